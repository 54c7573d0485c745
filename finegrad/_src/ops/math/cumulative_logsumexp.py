"""``tf.math.cumulative_logsumexp``: primitive ``cumulative_logsumexp`` (an inclusive forward
scan, ``np.logaddexp.accumulate``: exact and overflow-free), with exclusive and reverse scans
reduced to it as ``cumsum`` does.

Its rules are TensorFlow's: the VJP ``g_j = sum_{i >= j} ct_i exp(x_j - out_i)`` is computed
in log space by splitting ``ct`` into its positive and negative parts, each a reverse scan of
this same primitive, and the JVP likewise with a forward scan, so every order works.

Where an output is -inf, every input of its prefix is -inf and ``exp(x_j - out_i)`` is
``exp(-inf + inf)``. The derivative there is what JAX and the math give: for the first
output (a one-element prefix, ``out_0 = x_0``: the identity) it is 1; for a prefix of two or
more -inf inputs it is undefined (the gradient of logsumexp is a softmax, whose limit as all
inputs go to -inf depends on how they go) and is nan, as in JAX and TensorFlow and as
``reduce_logsumexp`` gives over all -inf inputs. A nan appears only where it is asked for:
an output whose cotangent (or a tangent whose input) is 0 adds nothing, so -inf entries of
a mask whose outputs are not used keep finite gradients (JAX's and TensorFlow's reverse
modes give nan there too). An exclusive scan shifts the inclusive one (its first output is
a constant -inf, not an input), so its second output, ``x_0``, has derivative 1.
Where an output is finite, ``d out_i / d x_j = exp(x_j - out_i)``: 0 for ``x_j = -inf``
(TensorFlow gives nan there; JAX's forward mode 0).
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import _t, cast, concat, ones_like, zeros_like
from finegrad._src.ops.zeros_and_axes import axis_vmap
from finegrad._src.ops.math.reductions import _flip, _scan_prep, cumsum, getitem_axis

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

cumulative_logsumexp_p = Primitive("cumulative_logsumexp", batch_rule=True, fresh=True,
                                   shape_rule=core.same_shape_rule)
cumulative_logsumexp_p.def_vmap(axis_vmap(cumulative_logsumexp_p, "axis"))


def cumulative_logsumexp(x: TensorLike, axis: int = 0, exclusive: bool = False,
                         reverse: bool = False, name: str | None = None) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``axis``, without overflow or underflow; ``exclusive``
    and ``reverse`` as for ``cumsum`` (an exclusive scan starts at -inf). Float inputs.
    Primitive ``cumulative_logsumexp``.

    Derivatives at -inf inputs (JAX's and the math's, see the module): 0 from an input of
    -inf to a finite output; 1 from the first input to the first output when both are
    -inf; nan from a prefix of two or more -inf inputs to its -inf output (undefined there,
    as ``reduce_logsumexp``'s over all -inf inputs), but only where that output's cotangent
    (or such an input's tangent) is nonzero. TensorFlow gives nan at every -inf input.

    >>> import finegrad as fg
    >>> fg.math.cumulative_logsumexp(fg.constant([0., 0., 1000.])).numpy().round(4).tolist()
    [0.0, 0.6930999755859375, 1000.0]
    """
    fn = "finegrad.math.cumulative_logsumexp"
    t = _t(x)
    if not t.dtype.is_floating:
        raise TypeError(f"{fn}: x must be a floating tensor, got {t.dtype.name}")
    y, ax = _scan_prep(t, axis, False, reverse, -np.inf, fn)
    out = bind(cumulative_logsumexp_p, y, axis=ax - y._value.ndim, undefined="nan")
    if exclusive:   # the inclusive scan shifted by one: -inf first (see the module)
        first = getitem_axis(out, ax, slice(0, 1))
        out = concat([zeros_like(first) - np.inf, getitem_axis(out, ax, slice(0, -1))], ax)
    return _flip(out, ax) if reverse else out


@cumulative_logsumexp_p.def_impl
def _cumulative_logsumexp_impl(x, *, axis, undefined):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x, axis=axis)


@cumulative_logsumexp_p.def_lowering
def _cumulative_logsumexp_lower(x, *, axis, undefined):
    # XLA's scan adds in another order (a tree): a few ulps
    from jax import lax
    return lax.cumlogsumexp(x, axis=axis % x.ndim)


def _scan(x, axis, reverse):
    """The inclusive scan along negative ``axis``, forward or reversed, for the rules: their
    log-space parts are -inf where a part is 0, with tangents that do not matter there (the
    result is multiplied by exp(-inf)), so an undefined partial is not nan but the sum
    (``undefined="sum"``: 1 for each input of the -inf prefix), which stays finite."""
    if not reverse:
        return bind(cumulative_logsumexp_p, x, axis=axis, undefined="sum")
    ax = x._value.ndim + axis
    return _flip(bind(cumulative_logsumexp_p, _flip(x, ax), axis=axis, undefined="sum"), ax)


def _log_parts(v):
    """``log(max(v, 0))`` and ``log(max(-v, 0))`` (-inf where the part is 0)."""
    pos, neg = v > 0, v < 0
    ones = ones_like(v)
    minus_inf = zeros_like(v) - np.inf
    return (ew.where(pos, ew.log(ew.where(pos, v, ones)), minus_inf),
            ew.where(neg, ew.log(ew.where(neg, -v, ones)), minus_inf))


def _finite_out(out):
    """``out`` with -inf (a prefix of -inf inputs, as the log-space rules scan) read as 0:
    those inputs are -inf themselves, so their terms are 0 either way, and -inf - -inf
    would make them nan."""
    return ew.where(ew.equal(out, -np.inf), zeros_like(out), out)


def _empty_prefix(out, axis):
    """Where ``out`` is -inf (a prefix of -inf inputs), and where that prefix is the first
    input alone (see the module)."""
    empty = ew.equal(out, -np.inf)
    first = ew.equal(cumsum(ones_like(out), axis=axis), 1)
    return empty, ew.logical_and(empty, first), ew.logical_and(empty, ew.logical_not(first))


def _undefined_part(asked, values, axis, reverse, undefined):
    """The contribution of the undefined partials (``asked``: where one is asked for, and
    ``values``: its cotangent or tangent), summed over this entry and (scanning ``reverse``)
    the ones beyond it: nan where any is asked for; with ``undefined="sum"``, their sum."""
    if undefined == "sum":
        return cumsum(ew.where(asked, values, zeros_like(values)), axis=axis, reverse=reverse)
    reach = cumsum(cast(asked, values.dtype), axis=axis, reverse=reverse) > 0
    return ew.where(reach, zeros_like(values) + np.nan, zeros_like(values))


@cumulative_logsumexp_p.def_vjp
def _cumulative_logsumexp_vjp(ct, x, *, out, needs, batch, axis, undefined):
    """VJP: sum_{i >= j} ct_i exp(x_j - out_i), as two reverse scans in log space; at the
    -inf prefix, ct_0 for the first input and nan where an undefined partial is asked for."""
    empty, single, several = _empty_prefix(out, axis)
    zero = zeros_like(ct)
    log_pos, log_neg = _log_parts(ew.where(empty, zero, ct))
    finite = _finite_out(out)
    g = ew.exp(_scan(log_pos - finite, axis, True) + x) \
        - ew.exp(_scan(log_neg - finite, axis, True) + x)
    asked = ew.logical_and(several, ew.not_equal(ct, 0))
    return (g + ew.where(single, ct, zero) + _undefined_part(asked, ct, axis, True, undefined),)


@cumulative_logsumexp_p.def_jvp
def _cumulative_logsumexp_jvp(primals, tangents, *, out, axis, undefined):
    (x,), (x_dot,) = primals, tangents
    if x_dot is None:
        return 0 * out
    log_pos, log_neg = _log_parts(x_dot)
    empty, single, several = _empty_prefix(out, axis)
    finite = _finite_out(out)
    y_dot = ew.exp(_scan(log_pos + x, axis, False) - finite) \
        - ew.exp(_scan(log_neg + x, axis, False) - finite)
    rest = _undefined_part(ew.not_equal(x_dot, 0), x_dot, axis, False, undefined)
    return ew.where(single, x_dot, ew.where(several, rest, y_dot))

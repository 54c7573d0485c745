"""``tf.math.cumulative_logsumexp``: primitive ``cumulative_logsumexp`` (an inclusive forward
scan, ``np.logaddexp.accumulate``: exact and overflow-free), with exclusive and reverse scans
reduced to it as ``cumsum`` does.

Its rules are TensorFlow's: the VJP ``g_j = sum_{i >= j} ct_i exp(x_j - out_i)`` is computed
in log space by splitting ``ct`` into its positive and negative parts, each a reverse scan of
this same primitive, and the JVP likewise with a forward scan, so every order works.

Where an output is -inf, every input of its prefix is -inf and ``exp(x_j - out_i)`` is
``exp(-inf + inf)``: the partial derivative there is 1 for each of those inputs (with the
others at -inf, ``out_i`` is ``x_j`` itself: what a finite difference in ``x_j`` alone gives
at any finite ``x_j``; a one-element prefix is the identity). So an exclusive scan's first
outputs, and the -inf entries of a mask, get their exact derivative, never a silent 0.
TensorFlow gives nan there.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import _t, ones_like, zeros_like
from finegrad._src.ops.zeros_and_axes import axis_vmap
from finegrad._src.ops.math.reductions import _flip, _scan_prep, cumsum

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

    >>> import finegrad as fg
    >>> fg.math.cumulative_logsumexp(fg.constant([0., 0., 1000.])).numpy().round(4).tolist()
    [0.0, 0.6930999755859375, 1000.0]
    """
    fn = "finegrad.math.cumulative_logsumexp"
    t = _t(x)
    if not t.dtype.is_floating:
        raise TypeError(f"{fn}: x must be a floating tensor, got {t.dtype.name}")
    y, ax = _scan_prep(t, axis, exclusive, reverse, -np.inf, fn)
    out = bind(cumulative_logsumexp_p, y, axis=ax - y._value.ndim)
    return _flip(out, ax) if reverse else out


@cumulative_logsumexp_p.def_impl
def _cumulative_logsumexp_impl(x, *, axis):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x, axis=axis)


@cumulative_logsumexp_p.def_lowering
def _cumulative_logsumexp_lower(x, *, axis):
    # XLA's scan adds in another order (a tree): a few ulps
    from jax import lax
    return lax.cumlogsumexp(x, axis=axis % x.ndim)


def _scan(x, axis, reverse):
    """The inclusive scan along negative ``axis``, forward or reversed."""
    if not reverse:
        return bind(cumulative_logsumexp_p, x, axis=axis)
    ax = x._value.ndim + axis
    return _flip(bind(cumulative_logsumexp_p, _flip(x, ax), axis=axis), ax)


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


def _empty_prefix(out):
    """Where ``out`` is -inf (a prefix of -inf inputs, each with partial derivative 1 there:
    see the module)."""
    return ew.equal(out, -np.inf)


@cumulative_logsumexp_p.def_vjp
def _cumulative_logsumexp_vjp(ct, x, *, out, needs, batch, axis):
    """VJP: sum_{i >= j} ct_i exp(x_j - out_i), as two reverse scans in log space; at the
    -inf prefix, sum_{i >= j} ct_i over the -inf outputs."""
    empty = _empty_prefix(out)
    log_pos, log_neg = _log_parts(ew.where(empty, zeros_like(ct), ct))
    finite = _finite_out(out)
    g = ew.exp(_scan(log_pos - finite, axis, True) + x) \
        - ew.exp(_scan(log_neg - finite, axis, True) + x)
    return (g + cumsum(ew.where(empty, ct, zeros_like(ct)), axis=axis, reverse=True),)


@cumulative_logsumexp_p.def_jvp
def _cumulative_logsumexp_jvp(primals, tangents, *, out, axis):
    (x,), (x_dot,) = primals, tangents
    if x_dot is None:
        return 0 * out
    log_pos, log_neg = _log_parts(x_dot)
    empty = _empty_prefix(out)
    finite = _finite_out(out)
    y_dot = ew.exp(_scan(log_pos + x, axis, False) - finite) \
        - ew.exp(_scan(log_neg + x, axis, False) - finite)
    return ew.where(empty, cumsum(x_dot, axis=axis), y_dot)

"""Neural-network ops: softmax, log_softmax, cross-entropies, clip_by_norm."""

from __future__ import annotations

import numpy as np

from finegrad._src.errors import InvalidArgumentError

from finegrad._src import core, dims
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.declare import float_only
from finegrad._src.ops.array.structural import (_t, reduce_sum, cast, identity, ones_like,
                                                expand_dims)
from finegrad._src.ops.zeros_and_axes import _normalize_axis, axis_vmap
from finegrad._src.tensor import Tensor
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math import arithmetic as ar

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike

softmax_p = Primitive("softmax", batch_rule=True, fresh=True, shape_rule=core.same_shape_rule)


def softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, computed stably. Primitive ``softmax``.

    >>> import finegrad as fg
    >>> fg.nn.softmax(fg.constant([0., 0.])).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    x = _t(logits)
    float_only("softmax", x._value, real=True)
    return bind(softmax_p, x, axis=_normalize_axis(axis, max(x._value.ndim, 1), "finegrad.softmax"))


@softmax_p.def_impl
def _softmax_impl(x, *, axis):
    if x.size == 0:   # nothing to normalize: an empty result, as TensorFlow's
        return x.copy()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@softmax_p.def_lowering
def _softmax_lower(x, *, axis):
    import jax.numpy as jnp
    if x.size == 0:
        return x
    e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
    return e / jnp.sum(e, axis=axis, keepdims=True)


softmax_p.def_vmap(axis_vmap(softmax_p, "axis"))


@softmax_p.def_jvp
def _softmax_jvp(primals, tangents, *, out, axis):
    t = tangents[0]
    return out * (t - reduce_sum(t * out, axis, keepdims=True))


@softmax_p.def_vjp
def _softmax_vjp(ct, x, *, out, needs, batch, axis):
    """VJP of softmax: out * (ct - sum(ct * out))."""
    a = axis + len(batch)
    return (out * (ct - reduce_sum(ct * out, a, keepdims=True)),)


log_softmax_p = Primitive("log_softmax", batch_rule=True, fresh=True,
                          shape_rule=core.same_shape_rule)


def log_softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """x - logsumexp(x) along ``axis``, computed stably. Primitive ``log_softmax``.

    >>> import finegrad as fg
    >>> fg.nn.log_softmax(fg.constant([1000., 1000.])).numpy()
    array([-0.6931472, -0.6931472], dtype=float32)
    """
    x = _t(logits)
    float_only("log_softmax", x._value, real=True)
    return bind(log_softmax_p, x,
                axis=_normalize_axis(axis, max(x._value.ndim, 1), "finegrad.log_softmax"))


@log_softmax_p.def_impl
def _log_softmax_impl(x, *, axis):
    if x.size == 0:
        return x.copy()
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


@log_softmax_p.def_lowering
def _log_softmax_lower(x, *, axis):
    import jax.numpy as jnp
    if x.size == 0:
        return x
    s = x - jnp.max(x, axis=axis, keepdims=True)
    return s - jnp.log(jnp.sum(jnp.exp(s), axis=axis, keepdims=True))


log_softmax_p.def_vmap(axis_vmap(log_softmax_p, "axis"))


@log_softmax_p.def_jvp
def _log_softmax_jvp(primals, tangents, *, out, axis):
    t = tangents[0]
    return t - reduce_sum(t * ew.exp(out), axis, keepdims=True)


@log_softmax_p.def_vjp
def _log_softmax_vjp(ct, x, *, out, needs, batch, axis):
    """VJP of log_softmax: ct - softmax * sum(ct)."""
    a = axis + len(batch)
    return (ct - ew.exp(out) * reduce_sum(ct, a, keepdims=True),)


def _labels_like(labels, logits, fn, broadcast=False):
    """Dense labels as a tensor of the logits' dtype and shape (a ValueError otherwise;
    ``broadcast``: of a shape that broadcasts against the logits', as TensorFlow's softmax
    cross entropy takes, else its InvalidArgumentError)."""
    logits = _t(logits)
    labels = core.unify_args(softmax_p, [labels, logits])[0]
    a, b = labels._value.shape, logits._value.shape
    if a == b:
        return labels, logits
    if broadcast:
        try:
            np.broadcast_shapes(a, b)
            return labels, logits
        except ValueError:
            sizes = [",".join(str(d) for d in shape) for shape in (b, a)]
            raise InvalidArgumentError(
                f"finegrad.nn.{fn}: logits and labels must be broadcastable: logits_size="
                f"[{sizes[0]}] labels_size=[{sizes[1]}]") from None
    raise ValueError(f"finegrad.nn.{fn}: labels of shape {tuple(a)} and logits of shape "
                     f"{tuple(b)} differ")


def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: int = -1,
                                      name: str | None = None) -> Tensor:
    """-sum(labels * log_softmax(logits)) along ``axis``; differentiable in both arguments.

    >>> import finegrad as fg
    >>> l = fg.nn.softmax_cross_entropy_with_logits([[0., 1.]], [[0., 0.]])
    >>> round(float(l[0]), 4)
    0.6931
    """
    labels, logits = _labels_like(labels, logits, "softmax_cross_entropy_with_logits",
                                  broadcast=True)
    return -reduce_sum(labels * log_softmax(logits, axis), axis)


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any,
                                             name: str | None = None) -> Tensor:
    """-log_softmax(logits)[label] per example; ``labels`` are integer class ids.

    >>> import finegrad as fg
    >>> l = fg.nn.sparse_softmax_cross_entropy_with_logits([1], [[0., 0.]])
    >>> round(float(l[0]), 4)
    0.6931
    """
    logits = _t(logits)
    labels = _t(labels)
    if not labels.dtype.is_integer:
        raise TypeError(f"finegrad.nn.sparse_softmax_cross_entropy_with_logits: labels must be "
                        f"integer class ids, got {labels.dtype.name}")
    if labels._value.shape != logits._value.shape[:-1]:
        raise ValueError(f"finegrad.nn.sparse_softmax_cross_entropy_with_logits: labels of "
                         f"shape {tuple(labels._value.shape)} need logits of shape "
                         f"labels.shape + (classes,), got {tuple(logits._value.shape)}")
    n = logits._value.shape[-1]
    dims.pin(core.shape_of(logits)[-1:], "sparse_softmax_cross_entropy_with_logits with a "
                                         "dynamic number of classes")
    lv = np.asarray(labels._value)
    if lv.size and (lv.min() < 0 or lv.max() >= n):
        raise ValueError(f"finegrad.nn.sparse_softmax_cross_entropy_with_logits: labels must "
                         f"be in [0, {n}), got values in [{lv.min()}, {lv.max()}]")
    ls = log_softmax(logits, -1)
    # the labels enter as a tensor (a one-hot mask), not as index values baked into the op,
    # so a traced function takes new labels at every call
    onehot = cast(ew.equal(expand_dims(labels, -1), Tensor(np.arange(n, dtype=lv.dtype))),
                  ls.dtype)
    return -reduce_sum(onehot * ls, -1)


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                      name: str | None = None) -> Tensor:
    """Elementwise logistic loss, stable for large |logits|: max(x, 0) - x z + log1p(exp(-|x|)).

    Written with `where` as TensorFlow does, so the gradient at x = 0 is sigmoid(0) - z.

    >>> import finegrad as fg
    >>> fg.nn.sigmoid_cross_entropy_with_logits(fg.constant([1.]), fg.constant([-100.])).numpy()
    array([100.], dtype=float32)
    """
    labels, logits = _labels_like(labels, logits, "sigmoid_cross_entropy_with_logits")
    zeros = logits * 0
    cond = logits >= 0
    relu_logits = ew.where(cond, logits, zeros)
    neg_abs = ew.where(cond, -logits, logits)
    return relu_logits - logits * labels + ew.log1p(ew.exp(neg_abs))


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Scale ``t`` so its L2 norm over ``axes`` is at most ``clip_norm`` (TensorFlow's formula).

    >>> import finegrad as fg
    >>> fg.clip_by_norm(fg.constant([3., 4.]), 1.).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    t = _t(t)
    l2sum = reduce_sum(t * t, axes, keepdims=True)
    pred = l2sum > 0
    # the safe square root keeps the gradient finite at t = 0
    l2norm = ew.where(pred, ew.sqrt(ew.where(pred, l2sum, ones_like(l2sum))), l2sum)
    return identity(t * clip_norm / ar.maximum(l2norm, clip_norm))


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2.

    >>> import finegrad as fg
    >>> fg.nn.l2_loss(fg.constant([1., 2.])).numpy()
    np.float32(2.5)
    """
    t = _t(t)
    return reduce_sum(t * t) / 2

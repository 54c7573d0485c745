"""Composites of TensorFlow names that training loops and layers use: ``clip_by_global_norm``
and ``linalg.global_norm``, ``nn.embedding_lookup``, ``nn.bias_add``, ``nn.softsign``, and the
``*_no_nan`` divisions and products (``reciprocal_no_nan``, ``multiply_no_nan``, ``xdivy``).
Each is written with finegrad ops (so every order, both modes and traces work) and follows
TensorFlow's formulas, so values and gradients are TensorFlow's.
"""
import numpy as np

from finegrad._src.ops import arithmetic as ar
from finegrad._src.ops import elementwise as ew
from finegrad._src.ops.array import cast, reduce_sum, reshape, zeros_like
from finegrad._src.ops.gather import gather
from finegrad._src.ops.nn import clip_by_norm
from finegrad._src.tensor import Tensor, convert_to_tensor


def global_norm(t_list, name=None):
    """``sqrt(sum of the squared L2 norms)`` of the tensors of ``t_list`` (None entries are
    ignored), as TensorFlow.

    >>> import finegrad as fg
    >>> fg.linalg.global_norm([fg.constant([3.]), None, fg.constant([[4.]])]).numpy()
    np.float32(5.0)
    """
    if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("finegrad.linalg.global_norm: t_list must be a list of tensors, got "
                        f"{type(t_list).__name__}")
    ts = [convert_to_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("finegrad.linalg.global_norm: t_list has no tensor (all None)")
    total = reduce_sum(ts[0] * ts[0])
    for t in ts[1:]:
        total = total + cast(reduce_sum(t * t), total.dtype)
    return ew.sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``;
    returns ``(clipped_list, global_norm)``. None entries stay None; a non-finite global norm
    makes every value nan, as in TensorFlow.

    >>> import finegrad as fg
    >>> clipped, norm = fg.clip_by_global_norm([fg.constant([3., 4.])], 1.)
    >>> clipped[0].numpy(), norm.numpy()
    (array([0.6, 0.8], dtype=float32), np.float32(5.0))
    """
    if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("finegrad.clip_by_global_norm: t_list must be a list of tensors, got "
                        f"{type(t_list).__name__}")
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip = convert_to_tensor(clip_norm, dtype=norm.dtype)
    # TensorFlow's scale: clip * min(1 / norm, 1 / clip); nan where the norm is not finite
    scale = clip * ar.minimum(1.0 / norm, 1.0 / clip)
    scale = scale * ew.where(ew.is_finite(norm), 1.0, np.nan)
    out = [None if t is None else convert_to_tensor(t) * cast(scale, convert_to_tensor(t).dtype)
           for t in t_list]
    return out, norm


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows ``ids`` of ``params`` (``gather`` on the first axis); the gradient adds into
    the looked-up rows. ``params`` may be a tensor, a Variable or a list of one of them;
    with ``max_norm``, each looked-up row is scaled to an L2 norm of at most ``max_norm``.

    >>> import finegrad as fg
    >>> fg.nn.embedding_lookup(fg.constant([[1., 2.], [3., 4.]]), [1, 1]).numpy()
    array([[3., 4.],
           [3., 4.]], dtype=float32)
    """
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("finegrad.nn.embedding_lookup: params sharded over "
                                      f"{len(params)} tensors is not supported; concatenate "
                                      "them (TensorFlow's 'mod' partitioning)")
        params = params[0]
    rows = gather(params, ids)
    if max_norm is None:
        return rows
    p_rank = len(convert_to_tensor(params).shape)
    axes = list(range(len(rows.shape) - p_rank + 1, len(rows.shape)))
    return clip_by_norm(rows, max_norm, axes=axes)


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` along the channel axis: the last one (``data_format`` None or
    ``"N...C"``), or axis 1 for ``"NC..."``; ``bias`` must be 1-D of that size.

    >>> import finegrad as fg
    >>> fg.nn.bias_add(fg.ones([2, 3]), fg.constant([1., 2., 3.])).numpy()[0]
    array([2., 3., 4.], dtype=float32)
    """
    value, bias = convert_to_tensor(value), convert_to_tensor(bias)
    channels_first = data_format is not None and data_format.startswith("NC")
    axis = 1 if channels_first else -1
    shape = value.shape.as_list() if hasattr(value.shape, "as_list") else list(value.shape)
    if len(bias.shape) != 1 or len(shape) < 2 or shape[axis] != bias.shape[0]:
        raise ValueError(f"finegrad.nn.bias_add: bias must be 1-D with the size of value's "
                         f"channel axis ({axis}), got bias shape {list(bias.shape)} for value "
                         f"shape {shape}")
    if channels_first:
        bias = reshape(bias, [-1] + [1] * (len(shape) - 2))
    return value + bias


def softsign(features, name=None):
    """Elementwise ``x / (1 + |x|)``; gradient ``1 / (1 + |x|)^2``.

    >>> import finegrad as fg
    >>> fg.nn.softsign(fg.constant([-1., 3.])).numpy()
    array([-0.5 ,  0.75], dtype=float32)
    """
    x = convert_to_tensor(features)
    return x / (1 + ew.abs(x))


def reciprocal_no_nan(x, name=None):
    """``1 / x``, and 0 where ``x == 0`` (gradient 0 there).

    >>> import finegrad as fg
    >>> fg.math.reciprocal_no_nan(fg.constant([0., 2.])).numpy()
    array([0. , 0.5], dtype=float32)
    """
    x = convert_to_tensor(x)
    zero = ew.equal(x, 0)
    inv = 1 / ew.where(zero, 1, x)
    return ew.where(zero, zeros_like(inv), inv)


def multiply_no_nan(x, y, name=None):
    """``x * y``, and 0 where ``y == 0`` even if ``x`` is inf or nan. Gradients
    TensorFlow's: ``y`` for ``x`` and ``x`` for ``y`` (0 for ``y`` where ``y == 0`` and
    ``x`` is not finite).

    >>> import finegrad as fg
    >>> fg.math.multiply_no_nan(fg.constant([float("inf"), 2.]), fg.constant([0., 3.])).numpy()
    array([0., 6.], dtype=float32)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    masked = ew.where(ew.logical_and(ew.equal(y, 0), ew.logical_not(ew.is_finite(x))),
                      zeros_like(x), x)
    return masked * y


def xdivy(x, y, name=None):
    """``x / y``, and 0 where ``x == 0`` (even where ``y`` is 0). Gradients TensorFlow's:
    ``1 / y`` for ``x`` and ``-x / y^2`` for ``y``, 0 where ``x == 0``.

    >>> import finegrad as fg
    >>> fg.math.xdivy(fg.constant([0., 3.]), fg.constant([0., 2.])).numpy()
    array([0. , 1.5], dtype=float32)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    zero = ew.equal(x, 0)
    quotient = x / ew.where(zero, 1, y)
    return ew.where(zero, zeros_like(quotient), quotient)

"""Clipping a list of gradients by their global norm: ``clip_by_global_norm`` and
``linalg.global_norm`` (``clip_by_norm`` is in `ops.nn.softmax_cross_entropy`, ``clip_by_value``
in `ops.math.arithmetic`). Each is written with finegrad ops (so every order, both modes and
traces work) and follows TensorFlow's formulas, so values and gradients are TensorFlow's.
"""

from __future__ import annotations

import numpy as np

from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, reduce_sum
from finegrad._src.tensor import Tensor, convert_to_tensor

from typing import Any


def global_norm(t_list: Any, name: str | None = None) -> Tensor:
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


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> Any:
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

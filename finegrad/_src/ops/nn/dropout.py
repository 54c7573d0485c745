"""``tf.nn.dropout``: zero each value with probability ``rate``, scale the kept ones by
1 / (1 - rate). The mask is a stateful random draw (`random_ops.uniform`), so a traced
function draws a new mask on every call; the gradient is mask / (1 - rate), by the recorded
multiplications."""

from __future__ import annotations

import numbers

from finegrad._src import core, dims
from finegrad._src.core import bind
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.random import streams as rs
from finegrad._src.ops.random import sampling as ro
from finegrad._src.ops.array.structural import _t, cast, convert_to_tensor
from finegrad._src.ops.zeros_and_axes import _static
from finegrad._src.tensor import Tensor

from typing import Any


def _noise_shape(noise_shape, x, fn):
    if noise_shape is None:
        return tuple(x._value.shape)
    if isinstance(noise_shape, Tensor):
        noise_shape = _static(noise_shape, "noise_shape").tolist()
    shape = tuple(noise_shape)
    xs = tuple(x._value.shape)
    if len(shape) != len(xs):
        raise ValueError(f"{fn}: noise_shape {list(shape)} must have the rank of x, "
                         f"{list(xs)}")
    # None takes x's size, as TensorFlow's noise_shape does
    shape = tuple(n if s is None else int(s) for s, n in zip(shape, xs, strict=True))
    if any(s not in (1, n) for s, n in zip(shape, xs, strict=True)):
        raise ValueError(f"{fn}: noise_shape {list(shape)} does not broadcast to x's shape "
                         f"{list(xs)}")
    return shape


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: Any = None,
            name: str | None = None) -> Tensor:
    """Randomly zero values of ``x`` with probability ``rate`` and scale the rest by
    1 / (1 - rate) (``tf.nn.dropout``). ``noise_shape`` (broadcastable to ``x``'s shape,
    ``None`` entries taking ``x``'s sizes) shares one draw along its axes of size 1.

    >>> import finegrad as fg
    >>> y = fg.nn.dropout(fg.ones([4]), rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True

    Raises:
        ValueError: for ``rate`` outside [0, 1), or a ``noise_shape`` that does not
            broadcast to ``x``'s shape.
        TypeError: for a non-floating ``x``.
    """
    fn = "finegrad.nn.dropout"
    x = _t(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn}: x must be floating, got {x.dtype.name}")
    if isinstance(rate, numbers.Real) and not isinstance(rate, bool):
        if not 0 <= float(rate) < 1:
            raise ValueError(f"{fn}: rate must be a scalar in [0, 1), got {rate!r}")
        keep = 1.0 / (1.0 - float(rate))
    else:
        rate = convert_to_tensor(rate, x.dtype)
        if rate._value.ndim:
            raise ValueError(f"{fn}: rate must be a scalar, got shape {rate.shape}")
        keep = 1.0 / (1.0 - rate)
    if noise_shape is None:
        # drawn shaped like x when the graph runs: a traced function serves any batch size
        u = bind(rs.random_like_p, x, stream=rs.op_stream(seed, fn), dist="uniform",
                 dtype=x._value.dtype)
    else:
        dims.pin(core.shape_of(x), "dropout with a noise_shape")
        u = ro.uniform(_noise_shape(noise_shape, x, fn), dtype=x.dtype, seed=seed)
    mask = cast(ew.greater_equal(u, rate), x.dtype)
    return x * keep * mask

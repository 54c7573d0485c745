"""TensorFlow's ``tf.random``: seeded stateful ops, `Generator`, and the stateless ops.

Random values carry no gradient; ``mean``/``stddev`` (normal) and ``minval``/``maxval``
(float uniform) enter as ``noise * stddev + mean``, recorded ops, so they are differentiable
as in TensorFlow. Where values come from (streams, the global seed) is `random_streams`.
"""

from __future__ import annotations

from finegrad._src import dtypes
from finegrad._src.core import bind
from finegrad._src.ops.random import streams as rs
from finegrad._src.ops.array.structural import _t, convert_to_tensor, stack
from finegrad._src.ops.zeros_and_axes import _shape_arg, _static
from finegrad._src.shapes import as_int
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

_FLOATS = ("float16", "float32", "float64")


def _dtype(dtype, fn, allowed=_FLOATS):
    try:
        dt = dtypes.as_dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: dtype must be one of {', '.join(allowed)}, got {dtype!r}") \
            from None
    if dt.name not in allowed:
        raise TypeError(f"{fn}: dtype must be one of {', '.join(allowed)}, got {dt.name}")
    return dt


def _shape(shape, fn):
    if isinstance(shape, Tensor) and not shape.dtype.is_integer:
        raise TypeError(f"{fn}: shape must be integers, got a {shape.dtype.name} tensor")
    if isinstance(shape, Tensor) and shape._value.ndim > 1:
        raise ValueError(f"{fn}: shape must be 1-D, got a tensor of shape {shape.shape}")
    return tuple(_shape_arg(shape, fn))


def _scaled(noise, scale, shift, dt):
    """``noise * scale + shift``, skipping the identity (a Python 1 and 0)."""
    if not (isinstance(scale, (int, float)) and scale == 1):
        noise = noise * convert_to_tensor(scale, dt)
    if not (isinstance(shift, (int, float)) and shift == 0):
        noise = noise + convert_to_tensor(shift, dt)
    return noise


def set_seed(seed: Any) -> None:
    """Set the global random seed (``tf.random.set_seed``): from here on, the program's
    sequence of random ops is reproducible, ops with and without an op ``seed`` alike.

    >>> import finegrad as fg
    >>> fg.random.set_seed(1); a = fg.random.uniform([2])
    >>> fg.random.set_seed(1); b = fg.random.uniform([2])
    >>> bool(fg.reduce_all(fg.equal(a, b)))
    True
    """
    rs.GLOBAL.set(None if seed is None else as_int(seed, "finegrad.random.set_seed", "seed"))


def _stateful(fn, shape, dtype, seed, dist, **params):
    """A draw of ``dist``; ``seed`` is an op seed (None or an int) or a `Stream`."""
    stream = seed if isinstance(seed, rs.Stream) else rs.op_stream(seed, fn)
    return bind(rs.random_p, stream=stream, dist=dist, shape=shape, dtype=dtype._np, **params)


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: DTypeLike = dtypes.float32,
           seed: Any = None, name: str | None = None) -> Tensor:
    """Normal values: ``noise * stddev + mean`` (differentiable in ``mean`` and ``stddev``).

    >>> import finegrad as fg
    >>> fg.random.normal([2, 3], seed=1).shape
    TensorShape([2, 3])
    """
    fn = "finegrad.random.normal"
    dt = _dtype(dtype, fn)
    noise = _stateful(fn, _shape(shape, fn), dt, seed, "normal")
    return _scaled(noise, stddev, mean, dt)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0,
                     dtype: DTypeLike = dtypes.float32, seed: Any = None,
                     name: str | None = None) -> Tensor:
    """Normal values redrawn beyond two standard deviations, times ``stddev`` plus ``mean``.

    >>> import finegrad as fg
    >>> bool(fg.reduce_max(fg.abs(fg.random.truncated_normal([100]))) <= 2.)
    True
    """
    fn = "finegrad.random.truncated_normal"
    dt = _dtype(dtype, fn)
    noise = _stateful(fn, _shape(shape, fn), dt, seed, "truncated_normal")
    return _scaled(noise, stddev, mean, dt)


def _int_bounds(minval, maxval, dt, fn):
    if maxval is None:
        raise ValueError(f"{fn}: an integer dtype ({dt.name}) needs maxval, as in TensorFlow")
    lo, hi = (int(_static(_t(v), "a bound")) if isinstance(v, Tensor) else as_int(v, fn, a)
              for v, a in ((minval, "minval"), (maxval, "maxval")))
    if lo >= hi:
        raise ValueError(f"{fn}: needs minval < maxval, got minval={lo}, maxval={hi}")
    return lo, hi


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: DTypeLike = dtypes.float32,
            seed: Any = None, name: str | None = None) -> Tensor:
    """Uniform values in [minval, maxval) (maxval defaults to 1 for floats; integer dtypes
    need it). Floats are ``u * (maxval - minval) + minval``, differentiable in the bounds.

    >>> import finegrad as fg
    >>> x = fg.random.uniform([3], minval=2, maxval=5, dtype=fg.int32, seed=1)
    >>> bool(fg.reduce_all((x >= 2) & (x < 5)))
    True
    """
    fn = "finegrad.random.uniform"
    dt = _dtype(dtype, fn, _FLOATS + ("int32", "int64"))
    shape = _shape(shape, fn)
    if dt.is_integer:
        lo, hi = _int_bounds(minval, maxval, dt, fn)
        return _stateful(fn, shape, dt, seed, "uniform", low=lo, high=hi)
    noise = _stateful(fn, shape, dt, seed, "uniform")
    return _bounded(noise, minval, 1.0 if maxval is None else maxval, dt)


def _bounded(u, minval, maxval, dt):
    if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)):
        return _scaled(u, maxval - minval, minval, dt)
    lo, hi = convert_to_tensor(minval, dt), convert_to_tensor(maxval, dt)
    return u * (hi - lo) + lo


def shuffle(value: TensorLike, seed: Any = None, name: str | None = None) -> Tensor:
    """``value`` with its first axis randomly permuted (no gradient, as in TensorFlow).

    >>> import finegrad as fg
    >>> sorted(fg.random.shuffle(fg.constant([1, 2, 3]), seed=4).numpy().tolist())
    [1, 2, 3]
    """
    return bind(rs.random_shuffle_p, _t(value),
                stream=rs.op_stream(seed, "finegrad.random.shuffle"))


def poisson(shape: Any, lam: Any, dtype: DTypeLike = dtypes.float32, seed: Any = None,
            name: str | None = None) -> Tensor:
    """Poisson samples with rates ``lam``; the result has shape ``shape + lam.shape``. No
    gradient flows to ``lam`` (TensorFlow registers none).

    >>> import finegrad as fg
    >>> fg.random.poisson([4], [1., 5.], seed=2).shape
    TensorShape([4, 2])
    """
    fn = "finegrad.random.poisson"
    dt = _dtype(dtype, fn, _FLOATS + ("int32", "int64"))
    rates = _t(lam)
    if not rates.dtype.is_floating:
        raise TypeError(f"finegrad.random.poisson: lam must be floating, got {rates.dtype.name}")
    return bind(rs.random_poisson_p, rates, stream=rs.op_stream(seed, fn),
                shape=_shape(shape, fn), dtype=dt._np)


def _logits(logits, fn):
    x = _t(logits)
    if x._value.ndim != 2:
        raise ValueError(f"{fn}: logits must be 2-D [batch, classes], got shape {x.shape}")
    if not x.dtype.is_floating:
        raise TypeError(f"{fn}: logits must be floating, got {x.dtype.name}")
    return x


def categorical(logits: TensorLike, num_samples: Any, dtype: DTypeLike | None = None,
                seed: Any = None, name: str | None = None) -> Tensor:
    """``num_samples`` class ids per row of ``logits`` ([batch, classes], unnormalized log
    probabilities); int64 by default.

    >>> import finegrad as fg
    >>> fg.random.categorical([[0., -1e9]], 3, seed=1).numpy()
    array([[0, 0, 0]])
    """
    fn = "finegrad.random.categorical"
    x = _logits(logits, fn)
    dt = _dtype("int64" if dtype is None else dtype, fn, ("int32", "int64"))
    return bind(rs.random_categorical_p, x, stream=rs.op_stream(seed, fn),
                num_samples=as_int(num_samples, fn, "num_samples"), dtype=dt._np)


# --- stateless ------------------------------------------------------------------------------

def _seed(seed, fn):
    s = _t(seed)
    if not s.dtype.is_integer or s._value.shape != (2,):
        raise ValueError(f"{fn}: seed must be an integer tensor of shape [2], got "
                         f"{s.dtype.name} of shape {tuple(s._value.shape)}")
    return s


def stateless_normal(shape: Any, seed: Any, mean: float = 0.0, stddev: float = 1.0,
                     dtype: DTypeLike = dtypes.float32, name: str | None = None,
                     alg: str = "auto_select") -> Tensor:
    """Normal values that depend only on ``shape`` and ``seed`` (a pair of ints), eagerly
    and traced alike: TensorFlow's values (its Philox4x32 stream and Box-Muller; float32 may
    differ from TensorFlow's in the last bits).

    >>> import finegrad as fg
    >>> a = fg.random.stateless_normal([3], seed=[1, 2])
    >>> bool(fg.reduce_all(fg.equal(a, fg.random.stateless_normal([3], seed=[1, 2]))))
    True
    """
    fn = "finegrad.random.stateless_normal"
    dt = _dtype(dtype, fn)
    noise = bind(rs.stateless_random_p, _seed(seed, fn), dist="normal",
                 shape=_shape(shape, fn), dtype=dt._np)
    return _scaled(noise, stddev, mean, dt)


def stateless_truncated_normal(shape: Any, seed: Any, mean: float = 0.0, stddev: float = 1.0,
                               dtype: DTypeLike = dtypes.float32, name: str | None = None,
                               alg: str = "auto_select") -> Tensor:
    """Truncated normal values that depend only on ``shape`` and ``seed``: TensorFlow's
    values (normals redrawn outside two standard deviations).

    >>> import finegrad as fg
    >>> fg.random.stateless_truncated_normal([2], seed=[0, 7]).shape
    TensorShape([2])
    """
    fn = "finegrad.random.stateless_truncated_normal"
    dt = _dtype(dtype, fn)
    noise = bind(rs.stateless_random_p, _seed(seed, fn), dist="truncated_normal",
                 shape=_shape(shape, fn), dtype=dt._np)
    return _scaled(noise, stddev, mean, dt)


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                      dtype: DTypeLike = dtypes.float32, name: str | None = None,
                      alg: str = "auto_select") -> Tensor:
    """Uniform values in [minval, maxval) that depend only on ``shape`` and ``seed``:
    TensorFlow's values, bit for bit (its Philox4x32 stream).

    >>> import finegrad as fg
    >>> x = fg.random.stateless_uniform([4], seed=[3, 4], maxval=10, dtype=fg.int64)
    >>> bool(fg.reduce_all((x >= 0) & (x < 10)))
    True
    """
    fn = "finegrad.random.stateless_uniform"
    dt = _dtype(dtype, fn, _FLOATS + ("int32", "int64"))
    s, shape = _seed(seed, fn), _shape(shape, fn)
    if dt.is_integer:
        lo, hi = _int_bounds(minval, maxval, dt, fn)
        return bind(rs.stateless_random_p, s, dist="uniform", shape=shape, dtype=dt._np,
                    low=lo, high=hi)
    u = bind(rs.stateless_random_p, s, dist="uniform", shape=shape, dtype=dt._np)
    return _bounded(u, minval, 1.0 if maxval is None else maxval, dt)


def stateless_categorical(logits: TensorLike, num_samples: Any, seed: Any,
                          dtype: DTypeLike = dtypes.int64, name: str | None = None) -> Tensor:
    """`categorical` as a pure function of ``seed``: TensorFlow's values (its
    StatelessMultinomial kernel on the seed's Philox stream).

    >>> import finegrad as fg
    >>> fg.random.stateless_categorical([[-1e9, 0.]], 2, seed=[1, 1]).numpy()
    array([[1, 1]])
    """
    fn = "finegrad.random.stateless_categorical"
    x = _logits(logits, fn)
    dt = _dtype(dtype, fn, ("int32", "int64"))
    return bind(rs.stateless_categorical_p, x, _seed(seed, fn),
                num_samples=as_int(num_samples, fn, "num_samples"), dtype=dt._np)


def _int_seed(seed, fn):
    s = _seed(seed, fn)
    if s.dtype.name not in ("int32", "int64"):
        raise ValueError(f"{fn}: seed must be int32 or int64, got {s.dtype.name}")
    return s


def split(seed: Any, num: int = 2, alg: str = "auto_select") -> Tensor:
    """``num`` new seeds from ``seed`` (an int32 or int64 pair): a ``[num, 2]`` tensor of
    ``seed``'s dtype, the full-range stateless integers of ``seed`` (TensorFlow's
    ``tf.random.split``; the same values, bit for bit, as its Philox4x32 stream).

    >>> import finegrad as fg
    >>> fg.random.split([1, 2], num=3).shape
    TensorShape([3, 2])

    Raises:
        ValueError: for a seed that is not an int32 or int64 pair, or ``num`` below 1.
        TypeError: for a ``num`` that is not an integer.
    """
    fn = "finegrad.random.split"
    s = _int_seed(seed, fn)
    n = int(_static(_t(num), "num")) if isinstance(num, Tensor) else as_int(num, fn, "num")
    if n < 1:
        raise ValueError(f"{fn}: num must be a positive integer, got {n}")
    return bind(rs.stateless_random_p, s, dist="uniform", shape=(n, 2), dtype=s.dtype._np,
                low=None, high=None)


def fold_in(seed: Any, data: TensorLike, alg: str = "auto_select") -> Tensor:
    """A new seed from ``seed`` (an int32 or int64 pair) and ``data`` (an int32 or int64
    scalar): ``[r, data]`` with ``r`` a full-range stateless integer of ``seed``, of
    ``data``'s dtype (TensorFlow's ``tf.random.fold_in``, bit for bit).

    >>> import finegrad as fg
    >>> fg.random.fold_in([1, 2], 3).numpy()
    array([1105988140,          3], dtype=int32)

    Raises:
        ValueError: for a seed that is not an int32 or int64 pair, or ``data`` that is not
            an int32 or int64 scalar.
    """
    fn = "finegrad.random.fold_in"
    s, d = _int_seed(seed, fn), _t(data)
    if d.dtype.name not in ("int32", "int64") or d._value.ndim:
        raise ValueError(f"{fn}: data must be an int32 or int64 scalar, got {d.dtype.name} of "
                         f"shape {tuple(d._value.shape)}")
    r = bind(rs.stateless_random_p, s, dist="uniform", shape=(), dtype=d.dtype._np,
             low=None, high=None)
    return stack([r, d])

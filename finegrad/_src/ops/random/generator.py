"""``tf.random.Generator``: an object that owns a random stream, and the global generator.

A generator's ops carry its `Stream` (see `random_streams`), so inside `finegrad.function`
they draw new values on every call, continuing the generator's state, as TensorFlow's
generator (a variable holding the state) does. `set_seed` does not restart a generator.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import bind
from finegrad._src.ops.random import sampling as ro
from finegrad._src.ops.random import streams as rs
from finegrad._src.shapes import as_int, as_ints
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike


class Generator:
    """A random number generator with its own state (``tf.random.Generator``).

    Make one with `Generator.from_seed` or `Generator.from_non_deterministic_state`.

    >>> import finegrad as fg
    >>> g = fg.random.Generator.from_seed(1)
    >>> a = g.normal([2])
    >>> bool(fg.reduce_all(fg.equal(a, fg.random.Generator.from_seed(1).normal([2]))))
    True
    """

    def __init__(self, copy_from: Any = None, state: Any = None, alg: Any = None) -> None:
        if copy_from is not None:
            self._stream = rs.Stream(None, follows_global=False)
            self._stream.seeds = copy_from._stream.seeds
            self._stream.bits.state = copy_from._stream.bits.state
        elif state is not None:
            self._stream = rs.Stream(tuple(np.asarray(
                state._value if isinstance(state, Tensor) else state).reshape(-1).tolist()),
                follows_global=False)
        else:
            raise ValueError("finegrad.random.Generator: give copy_from or state, or use "
                             "Generator.from_seed / Generator.from_non_deterministic_state")

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Any:
        """A generator whose values depend only on ``seed`` (an int).

        >>> import finegrad as fg
        >>> fg.random.Generator.from_seed(3).uniform([2]).shape
        TensorShape([2])
        """
        return cls(state=as_ints(seed, "finegrad.random.Generator.from_seed", "seed"))

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Any:
        """A generator started from fresh OS entropy.

        >>> import finegrad as fg
        >>> fg.random.Generator.from_non_deterministic_state().normal([1]).shape
        TensorShape([1])
        """
        g = cls.__new__(cls)
        g._stream = rs.Stream(None, follows_global=False)
        return g

    def normal(self, shape: Any, mean: float = 0.0, stddev: float = 1.0,
               dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Normal values from this generator (see `finegrad.random.normal`)."""
        fn = "finegrad.random.Generator.normal"
        dt = ro._dtype(dtype, fn)
        noise = ro._stateful(fn, ro._shape(shape, fn), dt, self._stream, "normal")
        return ro._scaled(noise, stddev, mean, dt)

    def truncated_normal(self, shape: Any, mean: float = 0.0, stddev: float = 1.0,
                         dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Truncated normal values from this generator."""
        fn = "finegrad.random.Generator.truncated_normal"
        dt = ro._dtype(dtype, fn)
        noise = ro._stateful(fn, ro._shape(shape, fn), dt, self._stream, "truncated_normal")
        return ro._scaled(noise, stddev, mean, dt)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Uniform values in [minval, maxval) from this generator."""
        fn = "finegrad.random.Generator.uniform"
        dt = ro._dtype(dtype, fn, ro._FLOATS + ("int32", "int64"))
        shape = ro._shape(shape, fn)
        if dt.is_integer:
            lo, hi = ro._int_bounds(minval, maxval, dt, fn)
            return ro._stateful(fn, shape, dt, self._stream, "uniform", low=lo, high=hi)
        u = ro._stateful(fn, shape, dt, self._stream, "uniform")
        return ro._bounded(u, minval, 1.0 if maxval is None else maxval, dt)

    def make_seeds(self, count: int = 1) -> Tensor:
        """``count`` seeds for the stateless ops, as an int64 tensor of shape [2, count]
        (column ``i`` is one seed pair).

        >>> import finegrad as fg
        >>> fg.random.Generator.from_seed(0).make_seeds(3).shape
        TensorShape([2, 3])
        """
        count = as_int(count, "finegrad.random.Generator.make_seeds", "count")
        return bind(rs.random_p, stream=self._stream, dist="uniform", shape=(2, count),
                    dtype=np.dtype(np.int64), low=-(1 << 63), high=(1 << 63) - 1)

    def split(self, count: int = 1) -> Any:
        """``count`` new generators seeded from this one's stream (which advances).

        >>> import finegrad as fg
        >>> len(fg.random.Generator.from_seed(0).split(2))
        2
        """
        count = as_int(count, "finegrad.random.Generator.split", "count")
        seeds = self._stream.generator().integers(-(1 << 63), (1 << 63) - 1, (count, 2))
        return [Generator(state=s) for s in seeds]


_GLOBAL_GENERATOR: list = []   # the one global generator, made on first use


def get_global_generator() -> Any:
    """The global `Generator` (nondeterministic unless `set_global_generator` replaced it).

    >>> import finegrad as fg
    >>> isinstance(fg.random.get_global_generator(), fg.random.Generator)
    True
    """
    if not _GLOBAL_GENERATOR:
        _GLOBAL_GENERATOR.append(Generator.from_non_deterministic_state())
    return _GLOBAL_GENERATOR[0]


def set_global_generator(generator: Any) -> None:
    """Make ``generator`` the global generator.

    >>> import finegrad as fg
    >>> fg.random.set_global_generator(fg.random.Generator.from_seed(5))
    """
    if not isinstance(generator, Generator):
        raise TypeError(f"finegrad.random.set_global_generator: expected a "
                        f"finegrad.random.Generator, got {type(generator).__name__}")
    _GLOBAL_GENERATOR[:] = [generator]

"""TensorFlow 2's initializer classes of the top-level namespace: ``constant_initializer``,
``zeros_initializer``, ``ones_initializer``, ``random_normal_initializer`` and
``random_uniform_initializer``.

An initializer is a configured callable: ``init(shape, dtype=finegrad.float32)`` returns a
tensor, ``get_config()`` gives the constructor's arguments and ``from_config`` rebuilds it.
The random ones follow TensorFlow's seed rule: with ``seed``, every call gives the same values,
those of the stateless op with the seed ``[seed, 0]`` (TensorFlow's own values for the uniform
initializer, bit for bit; for the normal one, to the last bits of float32); without, each call
draws new values from the global seed's stream, as `finegrad.random.normal` does.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.ops.random import sampling as random_ops
from finegrad._src.ops.zeros_and_axes import _shape_arg
from finegrad._src.ops.array.constants import ones, zeros
from finegrad._src.tensor import Tensor, filled, to_numpy_value

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike

_PARTITION = ("partition_shape", "partition_offset")


class Initializer:
    """The base of the initializers: ``init(shape, dtype)`` returns a tensor; ``get_config``
    and ``from_config`` save and rebuild one.

    >>> import finegrad as fg
    >>> init = fg.zeros_initializer()
    >>> type(init).from_config(init.get_config())(2).numpy()
    array([0., 0.], dtype=float32)
    """

    _fn = "finegrad.Initializer"

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError(f"{self._fn}: an initializer defines __call__")

    def get_config(self):
        """The constructor's arguments, as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer made from ``get_config()``'s dict (a ``dtype`` entry is ignored)."""
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)

    def _shape(self, shape, kwargs, partition=True):
        """The shape to fill: ``shape``, or ``partition_shape`` (a partitioned variable's)."""
        for k in kwargs:
            if k not in _PARTITION:
                raise TypeError(f"{self._fn}: unknown keyword argument {k!r}; expected "
                                f"partition_shape or partition_offset")
            if not partition:
                raise ValueError(f"{self._fn}: this initializer does not support "
                                 f"partition_shape and partition_offset (support_partition is "
                                 f"False)")
        return _shape_arg(kwargs.get("partition_shape", shape), self._fn)

    def _dtype(self, dtype, kinds, what):
        dt = dtypes.as_dtype(dtype)
        if dt._np.kind not in kinds:
            raise ValueError(f"{self._fn}: dtype must be {what}, got {dt.name}")
        return dt


class constant_initializer(Initializer):  # TensorFlow's name
    """Fills with ``value``: a scalar fills any shape; a list, tuple or array must have as
    many elements as the shape and is reshaped to it. ``dtype`` None keeps the value's own
    (Python floats float32, ints int32).

    >>> import finegrad as fg
    >>> fg.constant_initializer([1., 2., 3., 4.])([2, 2]).numpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)

    Raises:
        TypeError: for a value that is not a Python scalar, list, tuple or NumPy array.
        ValueError: when the value's number of elements does not fit the shape.
    """

    _fn = "finegrad.constant_initializer"

    def __init__(self, value: Any = 0, support_partition: bool = False) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"{self._fn}: value must be a Python scalar, list, tuple or NumPy "
                            f"array, got {type(value).__name__}")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape: Any, dtype: DTypeLike | None = None, **kwargs: Any) -> Tensor:
        shape = self._shape(shape, kwargs, self.support_partition)
        return Tensor(filled(to_numpy_value(self.value, dtype, self._fn), shape, self._fn))

    def get_config(self) -> Any:
        return {"value": self.value}


class zeros_initializer(Initializer):  # TensorFlow's name
    """Fills with zeros, of a numeric or boolean dtype (float32 by default).

    >>> import finegrad as fg
    >>> fg.zeros_initializer()([2], fg.int32).numpy()
    array([0, 0], dtype=int32)

    Raises:
        ValueError: for a string dtype.
    """

    _fn = "finegrad.zeros_initializer"

    def __call__(self, shape: Any, dtype: DTypeLike = dtypes.float32, **kwargs: Any) -> Tensor:
        shape = self._shape(shape, kwargs)
        return zeros(shape, self._dtype(dtype, "biufc", "numeric or boolean"))


class ones_initializer(Initializer):  # TensorFlow's name
    """Fills with ones, of a numeric or boolean dtype (float32 by default).

    >>> import finegrad as fg
    >>> fg.ones_initializer()([2]).numpy()
    array([1., 1.], dtype=float32)

    Raises:
        ValueError: for a string dtype.
    """

    _fn = "finegrad.ones_initializer"

    def __call__(self, shape: Any, dtype: DTypeLike = dtypes.float32, **kwargs: Any) -> Tensor:
        shape = self._shape(shape, kwargs)
        return ones(shape, self._dtype(dtype, "biufc", "numeric or boolean"))


class random_normal_initializer(Initializer):  # TensorFlow's name
    """Normal values of mean ``mean`` and standard deviation ``stddev``, of a float dtype.
    With ``seed`` (an int), every call gives the same values (the module docstring says
    which); without, new values each call.

    >>> import finegrad as fg
    >>> init = fg.random_normal_initializer(stddev=1., seed=1)
    >>> bool(fg.reduce_all(init([3]) == init([3])))
    True

    Raises:
        ValueError: for a dtype that is not floating point.
    """

    _fn = "finegrad.random_normal_initializer"

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Any = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: DTypeLike = dtypes.float32, **kwargs: Any) -> Tensor:
        shape = self._shape(shape, kwargs)
        dt = self._dtype(dtype, "f", "floating point")
        if self.seed is None:
            return random_ops.normal(shape, self.mean, self.stddev, dt)
        return random_ops.stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dt)

    def get_config(self) -> Any:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class random_uniform_initializer(Initializer):  # TensorFlow's name
    """Uniform values in ``[minval, maxval)``, of a float or integer dtype. With ``seed`` (an
    int), every call gives the same values, TensorFlow's; without, new values each call.

    >>> import finegrad as fg
    >>> x = fg.random_uniform_initializer(0, 10, seed=1)([3], fg.int32)
    >>> bool(fg.reduce_all((x >= 0) & (x < 10)))
    True

    Raises:
        ValueError: for a dtype that is neither floating point nor integer.
    """

    _fn = "finegrad.random_uniform_initializer"

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: Any = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = dtypes.float32, **kwargs: Any) -> Tensor:
        shape = self._shape(shape, kwargs)
        dt = self._dtype(dtype, "fiu", "floating point or integer")
        if self.seed is None:
            return random_ops.uniform(shape, self.minval, self.maxval, dt)
        return random_ops.stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dt)

    def get_config(self) -> Any:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}

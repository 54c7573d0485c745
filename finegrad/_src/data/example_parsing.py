"""``tf.io.parse_example`` and ``parse_single_example`` for dense features
(`FixedLenFeature`, `FixedLenSequenceFeature`), as TensorFlow's ``ParseExampleV2`` parses
serialized ``tf.train.Example`` protos: the same shapes, defaults, padding and errors.
``VarLenFeature``, ``SparseFeature`` and ``RaggedFeature`` exist as TensorFlow's feature
descriptions, but parsing them raises NotImplementedError: finegrad has no SparseTensor or
RaggedTensor to return.
"""
from __future__ import annotations

import collections
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data.example_protos import Example
from finegrad._src.data.tf_protos import ProtoError
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.data.host_ops import tracing
from finegrad._src.core import current_tracer
from finegrad._src.graph.pyfunc import TraceOnly, numpy_function
from finegrad._src.tensor import Tensor, convert_to_tensor


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature of fixed ``shape`` and ``dtype`` (float32, int64 or string);
    ``default_value`` (reshaped to ``shape``) when an Example lacks it."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Any number of values of ``shape`` each (a new first axis; ``parse_example`` pads
    the batch with ``default_value``, or zeros / empty strings). ``allow_missing`` must be
    True for Examples."""

    def __new__(cls, shape: Any, dtype: Any, allow_missing: bool = False,
                default_value: Any = None) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """TensorFlow's variable-length feature (parsed as a SparseTensor: not supported)."""


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """TensorFlow's sparse feature (parsed as a SparseTensor: not supported)."""

    def __new__(cls, index_key: Any, value_key: Any, dtype: Any, size: Any,
                already_sorted: bool = False) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """TensorFlow's ragged feature (parsed as a RaggedTensor: not supported)."""

    def __new__(cls, dtype: Any, value_key: Any = None, partitions: Any = (),
                row_splits_dtype: Any = dtypes.int32, validate: bool = False) -> RaggedFeature:
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


_LISTS = {dtypes.float32: ("float_list", "float"), dtypes.int64: ("int64_list", "int64"),
          dtypes.string: ("bytes_list", "string")}
_TF_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


class _Dense:
    """One dense feature's checked description."""

    def __init__(self, key: str, feature: Any, fn: str) -> None:
        self.key, self.sequence = key, isinstance(feature, FixedLenSequenceFeature)
        if isinstance(feature, (VarLenFeature, SparseFeature, RaggedFeature)):
            kind = type(feature).__name__
            raise NotImplementedError(
                f"{fn}: {kind} (feature {key!r}) parses to a "
                f"{'RaggedTensor' if kind == 'RaggedFeature' else 'SparseTensor'}, which "
                f"finegrad does not have; use FixedLenFeature or FixedLenSequenceFeature")
        if not isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"{fn}: Unsupported feature {key!r}: {feature!r}")
        if feature.shape is None:
            raise ValueError(f"{fn}: Missing shape for feature {key}. Received "
                             f"feature={feature!r}.")
        self.shape = tuple(int(d) for d in feature.shape)
        if any(d < 0 for d in self.shape):
            raise ValueError(f"{fn}: Dimension {min(self.shape)} must be >= 0")
        self.dtype = dtypes.as_dtype(feature.dtype)
        if self.dtype not in _LISTS:
            raise InvalidArgumentError(
                f"{fn}: Value for attr 'Tdense' of {self.dtype.name} is not in the list of "
                f"allowed values: float, int64, string")
        if isinstance(feature, FixedLenSequenceFeature) and not feature.allow_missing:
            raise ValueError(f"{fn}: Unsupported: FixedLenSequenceFeature requires "
                             f"allow_missing to be True.")
        self.default = self._default(feature.default_value, fn)

    def _default(self, value: Any, fn: str) -> Any:
        if value is None:
            return None
        arr = np.asarray(convert_to_tensor(value, dtype=self.dtype)._value)
        if self.sequence:
            return arr.reshape(-1)[0] if arr.size else None
        if arr.size != int(np.prod(self.shape)):
            raise InvalidArgumentError(
                f"{fn}: default_value of feature {self.key!r} has {arr.size} values, but its "
                f"shape {list(self.shape)} needs {int(np.prod(self.shape))}")
        return arr.reshape(self.shape)

    def values(self, example: Example, index: int, fn: str) -> np.ndarray:
        """This feature's values in ``example`` (of shape ``shape``, or ``[n] + shape``)."""
        f = example.features.feature.get(self.key)
        kind = f.WhichOneof("kind") if f is not None else None
        want = _LISTS[self.dtype][0]
        if kind is None:
            if self.sequence:
                return np.zeros((0,) + self.shape, self.dtype._np)
            if self.default is None:
                raise InvalidArgumentError(
                    f"{fn}: Feature: {self.key} (data type: {_LISTS[self.dtype][1]}) is "
                    f"required but could not be found.")
            return self.default
        if kind != want:
            raise InvalidArgumentError(
                f"{fn}: Name: <unknown>, Key: {self.key}, Index: {index}.  Data types don't "
                f"match. Data type: {_TF_NAMES[kind]} but expected type: "
                f"{_LISTS[self.dtype][1]}")
        vals = getattr(f, kind).value
        arr = np.empty(len(vals), object) if self.dtype == dtypes.string else None
        if arr is not None:
            arr[:] = vals
        else:
            arr = np.asarray(vals, self.dtype._np)
        return self._shaped(arr, index, fn)

    def stand_in(self, batch: tuple[int, ...]) -> np.ndarray:
        """Values of this feature's dtype and rank for ``batch`` strings, standing in while a
        graph is built from made-up strings (`pyfunc.TraceOnly`)."""
        shape = tuple(batch) + ((0,) if self.sequence else ()) + self.shape
        return np.full(shape, b"", object) if self.dtype == dtypes.string else \
            np.zeros(shape, self.dtype._np)

    def _shaped(self, arr: np.ndarray, index: int, fn: str) -> np.ndarray:
        step = int(np.prod(self.shape))
        if self.sequence:
            if (step == 0 and arr.size) or (step and arr.size % step):
                raise InvalidArgumentError(
                    f"{fn}: Name: <unknown>, Key: {self.key}, Index: {index}.  Number of "
                    f"values {arr.size} is not a multiple of {step}")
            return arr.reshape((arr.size // step if step else 0,) + self.shape)
        if arr.size != step:
            raise InvalidArgumentError(
                f"{fn}: Key: {self.key}.  Can't parse serialized Example: {arr.size} values "
                f"for shape {list(self.shape)} (index {index})")
        return arr.reshape(self.shape)

    def batch(self, parts: list[np.ndarray]) -> Tensor:
        if not self.sequence:
            return _tensor(np.stack(parts) if parts else
                           np.zeros((0,) + self.shape, self.dtype._np), self.dtype)
        longest = max((len(p) for p in parts), default=0)
        fill = self.default if self.default is not None else \
            (b"" if self.dtype == dtypes.string else 0)
        out = np.full((len(parts), longest) + self.shape, fill,
                      object if self.dtype == dtypes.string else self.dtype._np)
        for i, p in enumerate(parts):
            out[i, :len(p)] = p
        return _tensor(out, self.dtype)


def _tensor(arr: np.ndarray, dtype: Any) -> Tensor:
    return Tensor(arr.astype(object) if dtype == dtypes.string else arr)


def _examples(serialized: Any, fn: str) -> tuple[list[Example], tuple[int, ...]]:
    t = convert_to_tensor(serialized)
    if t.dtype != dtypes.string:       # (a ValueError, as TensorFlow's conversion raises)
        raise ValueError(f"{fn}: Tensor conversion requested dtype string for serialized "
                         f"of dtype {t.dtype.name}")
    flat = np.asarray(t._value, object).reshape(-1)
    out = []
    for i, s in enumerate(flat):
        try:
            out.append(Example.FromString(bytes(s)))
        except (ProtoError, ValueError):
            raise InvalidArgumentError(f"{fn}: Could not parse example input, value: "
                                       f"{bytes(s)[:40]!r} (index {i})") from None
    return out, np.asarray(t._value).shape


def parse_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Tensor]:
    """Parses a vector of serialized ``tf.train.Example`` protos into a dict of dense
    tensors, one per entry of ``features`` (each of shape ``[batch] + shape``; a scalar
    parses as `parse_single_example` does).

    >>> import finegrad as fg
    >>> ex = [fg.train.Example(features=fg.train.Features(feature={"n": fg.train.Feature(
    ...     int64_list=fg.train.Int64List(value=[v]))})).SerializeToString() for v in (3, 4)]
    >>> fg.io.parse_example(ex, {"n": fg.io.FixedLenFeature([], fg.int64)})["n"].numpy()
    array([3, 4])

    Raises:
        finegrad.errors.InvalidArgumentError: for a missing feature without default, a
            feature of another type or size than described, or bytes that are no Example.
        NotImplementedError: for ``VarLenFeature``, ``SparseFeature`` and ``RaggedFeature``.
    """
    fn = "parse_example"
    dense = [_Dense(k, f, fn) for k, f in sorted(features.items())]
    if tracing():
        return _parsed_when_run(parse_example, serialized, features, dense)
    examples, shape = _examples(serialized, fn)
    if len(shape) > 1:
        raise InvalidArgumentError(f"{fn}: Expected serialized to be a scalar or vector, "
                                   f"got shape: {list(shape)}")
    if not shape:
        return {d.key: _tensor(np.asarray(d.values(examples[0], 0, fn)), d.dtype)
                for d in dense}
    return {d.key: d.batch([d.values(e, i, fn) for i, e in enumerate(examples)])
            for d in dense}


def parse_single_example(serialized: Any, features: dict[str, Any],
                         example_names: Any = None, name: str | None = None) -> dict[str, Tensor]:
    """Parses one serialized ``tf.train.Example`` (a string scalar) into a dict of dense
    tensors, one per entry of ``features``.

    Raises:
        finegrad.errors.InvalidArgumentError: as `parse_example`.
        NotImplementedError: for ``VarLenFeature``, ``SparseFeature`` and ``RaggedFeature``.
    """
    fn = "parse_single_example"
    t = convert_to_tensor(serialized)
    if tracing():
        return _parsed_when_run(parse_single_example, t, features,
                                [_Dense(k, f, fn) for k, f in sorted(features.items())])
    if np.asarray(t._value).ndim != 0:
        raise InvalidArgumentError(f"{fn}: serialized must be a scalar, got shape "
                                   f"{list(np.asarray(t._value).shape)}")
    dense = [_Dense(k, f, fn) for k, f in sorted(features.items())]
    (example,), _ = _examples(t, fn)
    return {d.key: _tensor(np.asarray(d.values(example, 0, fn)), d.dtype) for d in dense}


def _parsed_when_run(parse: Any, serialized: Any, features: dict[str, Any],
                     dense: list[_Dense]) -> dict[str, Tensor]:
    """Inside a `finegrad.function` trace or a TF1 graph: the parsing as a host-function
    node (`numpy_function`), so that each run parses the strings it is given rather than
    the ones seen while tracing. The features were checked when ``dense`` was made."""
    keys = [d.key for d in dense]
    # (a TF1 graph's placeholder holds a made-up string while the graph is built: no Example)
    made_up = [bool(getattr(current_tracer(), "examples", False))]

    def run(strings: np.ndarray) -> list[np.ndarray]:
        if made_up[0]:
            raise TraceOnly([d.stand_in(np.shape(strings)) for d in dense])
        got = parse(Tensor(np.asarray(strings, object)), features)
        return [np.asarray(got[k]._value) for k in keys]
    outs = numpy_function(run, [serialized], [d.dtype for d in dense], stateful=False)
    made_up[0] = False
    batch = list(convert_to_tensor(serialized).shape)   # (static; [] for one Example)
    for d, t in zip(dense, outs, strict=True):   # TensorFlow's static shapes
        t.set_shape(batch + ([None] if d.sequence else []) + list(d.shape))
    return dict(zip(keys, outs, strict=True))

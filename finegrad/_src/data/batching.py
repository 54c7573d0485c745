"""Batching of ``finegrad.data`` elements: ``batch`` (stacking), ``padded_batch`` (padding
each component to the batch's largest, or given, shape) and ``unbatch``; each a generator
over an iterator of elements, with the element spec it produces."""
from typing import Any
import numpy as np

from finegrad._src.data import resumable, structure
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor


def _chunks(it, size, drop_remainder):
    chunk = []
    for element in it:
        chunk.append(element)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk and not drop_remainder:
        yield chunk


def _stack(values, fn):
    arrays = [v._value for v in values]
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise InvalidArgumentError(f"{fn}: cannot batch tensors with different shapes in a "
                                   f"component: {sorted(shapes)}; use padded_batch")
    return Tensor(np.stack(arrays))


def batch(it: Any, size: Any, drop_remainder: Any) -> Any:
    """Stack ``size`` consecutive elements along a new first axis (resumable after an
    element's error, see `resumable.batched`)."""
    return resumable.batched(
        it, size, drop_remainder,
        lambda chunk: structure.map_structure(lambda *c: _stack(c, "Dataset.batch"), *chunk))


def gather_rows(tensors: Any, arrays: Any, indices: Any, size: Any, drop_remainder: Any) -> Any:
    """Batches of rows of ``arrays`` (from_tensor_slices' components) taken by chunks of
    ``indices``: one NumPy gather per component and batch."""
    for chunk in _chunks(indices, size, drop_remainder):
        idx = np.asarray(chunk, dtype=np.intp)
        yield structure.pack(tensors, [Tensor(a[idx]) for a in arrays])


def batch_spec(spec: Any, size: Any, drop_remainder: Any) -> Any:
    """The element spec after `batch`."""
    return structure.map_structure(
        lambda s: TensorSpec(None if not isinstance(s.shape, tuple) else
                             (size if drop_remainder else None,) + s.shape, s.dtype), spec)


def _padded_shape(arrays, padded_shape):
    rank = arrays[0].ndim
    if any(a.ndim != rank for a in arrays):
        raise InvalidArgumentError("Dataset.padded_batch: components of different ranks")
    biggest = [max(a.shape[d] for a in arrays) for d in range(rank)]
    if padded_shape is None:
        return biggest
    padded_shape = list(padded_shape)
    if len(padded_shape) != rank:
        raise ValueError(f"Dataset.padded_batch: padded shape {padded_shape} does not have the "
                         f"rank {rank} of the component")
    out = []
    for want, big in zip(padded_shape, biggest, strict=True):
        if want is None or want == -1:
            out.append(big)
        elif want < big:
            raise InvalidArgumentError(f"Dataset.padded_batch: a component of size {big} is "
                                       f"larger than its padded size {want}")
        else:
            out.append(int(want))
    return out


def _pad_stack(values, padded_shape, padding_value):
    arrays = [v._value for v in values]
    shape = _padded_shape(arrays, padded_shape)
    if padding_value is None:
        padding_value = b"" if arrays[0].dtype.kind in "OSU" else 0
    out = np.full([len(arrays)] + shape, padding_value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, s) for s in a.shape)] = a if a.ndim else a[()]
    return Tensor(out)


def padded_batch(it: Any, size: Any, padded_shapes: Any, padding_values: Any, drop_remainder: Any,
                 spec: Any) -> Any:
    """Batch ``size`` elements, padding each component to ``padded_shapes`` (None or -1
    entries: the batch's largest size) with ``padding_values`` (0 or b"" by default)."""
    shapes = structure.map_structure(lambda s: None, spec) if padded_shapes is None \
        else padded_shapes
    values = structure.map_structure(lambda s: None, spec) if padding_values is None \
        else padding_values
    flat_shapes = _broadcast_option(shapes, spec, "padded_shapes")
    flat_values = _broadcast_option(values, spec, "padding_values")
    def stack(chunk):
        flats = [structure.flatten(e) for e in chunk]
        out = [_pad_stack([f[i] for f in flats], flat_shapes[i], _scalar(flat_values[i]))
               for i in range(len(flat_shapes))]
        return structure.pack(spec, out)
    return resumable.batched(it, size, drop_remainder, stack, read_whole=False)


def _broadcast_option(option, spec, name):
    n = len(structure.flatten(spec))
    if not structure.is_structure(spec):
        return [option]
    flat = structure.flatten(option) if structure.is_structure(option) else [option] * n
    if len(flat) != n:
        raise ValueError(f"Dataset.padded_batch: {name} does not match the element structure")
    return flat


def _scalar(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value._value.item()
    return value


def padded_batch_spec(spec: Any, size: Any, padded_shapes: Any, drop_remainder: Any) -> Any:
    """The element spec after `padded_batch`."""
    flat = structure.flatten(spec)
    shapes = _broadcast_option(padded_shapes, spec, "padded_shapes") if padded_shapes \
        is not None else [None] * len(flat)
    lead = size if drop_remainder else None

    def one(s, shape):
        if shape is None:
            dims = (None,) * len(s.shape) if isinstance(s.shape, tuple) else None
        else:
            dims = tuple(None if d in (None, -1) else int(d) for d in shape)
        return TensorSpec(None if dims is None else (lead,) + dims, s.dtype)
    return structure.pack(spec, [one(s, p) for s, p in zip(flat, shapes, strict=True)])


def unbatch(it: Any) -> Any:
    """Split each element along its first axis into that many elements."""
    for element in it:
        flat = structure.flatten(element)
        sizes = {int(t._value.shape[0]) if t._value.ndim else None for t in flat}
        if None in sizes or len(sizes) != 1:
            raise InvalidArgumentError(f"Dataset.unbatch: every component needs the same "
                                       f"first dimension, got {sorted(sizes, key=str)}")
        for i in range(int(sizes.pop() or 0)):
            yield structure.pack(element, [Tensor(t._value[i, ...]) for t in flat])


def unbatch_spec(spec: Any) -> Any:
    """The element spec after `unbatch`."""
    return structure.map_structure(
        lambda s: TensorSpec(s.shape[1:] if isinstance(s.shape, tuple) else None, s.dtype),
        spec)

"""The few TensorFlow protocol buffers that ``tf.data``'s saved datasets hold, encoded and
decoded with a small wire-format codec of our own (NumPy only, no ``protobuf`` package).

* ``TensorProto`` (tensorflow/core/framework/tensor.proto): one component of an element, as
  TensorFlow's snapshot writer stores it: dtype, shape and the bytes in ``tensor_content``
  (strings as all their varint lengths, then all their bytes).
* ``SnapshotMetadataRecord`` (tensorflow/core/protobuf/snapshot.proto): the
  ``snapshot.metadata`` file: run id, format version, component dtypes, element count.
* ``StructuredValue`` (tensorflow/core/protobuf/struct.proto): the ``dataset_spec.pb`` file,
  the element spec as ``nested_structure_coder`` writes it (TensorSpecs in tuples, dicts and
  namedtuples).

Malformed bytes raise `ProtoError`; the readers turn it into ``DataLossError``.
"""
from __future__ import annotations

import collections
import struct
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.graph.tracing.builder import TensorSpec

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5

# TensorFlow's DataType enum (types.proto) for the dtypes finegrad has
DATA_TYPES = {dtypes.float32: 1, dtypes.float64: 2, dtypes.int32: 3, dtypes.uint8: 4,
              dtypes.int16: 5, dtypes.int8: 6, dtypes.string: 7, dtypes.complex64: 8,
              dtypes.int64: 9, dtypes.bool_: 10, dtypes.uint16: 17,
              dtypes.complex128: 18, dtypes.float16: 19, dtypes.uint32: 22,
              dtypes.uint64: 23}
_DTYPES = {v: k for k, v in DATA_TYPES.items()}
_TF_NAMES = {14: "bfloat16", 11: "qint8", 12: "quint8", 13: "qint32", 15: "qint16",
             16: "quint16", 20: "resource", 21: "variant"}


class ProtoError(ValueError):
    """Bytes that are not the protocol buffer expected."""


# --- the wire format --------------------------------------------------------------------

def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1                      # negative int64s as ten bytes, as protobuf does
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int_field(field: int, n: int) -> bytes:
    """A varint field; proto3 leaves a zero out."""
    return _key(field, _VARINT) + _varint(n) if n else b""


def _bytes_field(field: int, data: bytes, keep_empty: bool = False) -> bytes:
    return _key(field, _BYTES) + _varint(len(data)) + data if data or keep_empty else b""


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ProtoError("a varint runs past the end of the message")
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def _signed(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def parse(buf: bytes) -> dict[int, list[Any]]:
    """The fields of one message: field number to its values in order (ints for varint
    and fixed fields, bytes for length-delimited ones)."""
    out: dict[int, list[Any]] = collections.defaultdict(list)
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _read_varint(buf, pos)
        field, wire = key >> 3, key & 7
        value: Any
        if wire == _VARINT:
            value, pos = _read_varint(buf, pos)
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            if pos + size > end:
                raise ProtoError("a fixed-size field runs past the end of the message")
            value, pos = int.from_bytes(buf[pos:pos + size], "little"), pos + size
        elif wire == _BYTES:
            size, pos = _read_varint(buf, pos)
            if pos + size > end:
                raise ProtoError("a length-delimited field runs past the end of the message")
            value, pos = buf[pos:pos + size], pos + size
        else:
            raise ProtoError(f"unknown wire type {wire} (field {field})")
        if field == 0:
            raise ProtoError("field number 0")
        out[field].append(value)
    return out


def _last(fields: dict[int, list[Any]], field: int, default: Any) -> Any:
    values = fields.get(field)
    return values[-1] if values else default


def _varints(values: list[Any]) -> list[int]:
    """A repeated varint field's values, packed (bytes) or not (ints)."""
    out: list[int] = []
    for v in values:
        if isinstance(v, int):
            out.append(v)
            continue
        pos = 0
        while pos < len(v):
            n, pos = _read_varint(v, pos)
            out.append(n)
    return out


# --- TensorShapeProto and TensorProto ---------------------------------------------------

def dims_of(shape: Any) -> list[int | None] | None:
    """A shape (a TensorShape, a sequence, or None) as a list of sizes, or None."""
    if shape is None or getattr(shape, "rank", 0) is None:
        return None
    return [None if d is None else int(d) for d in
            (shape.as_list() if hasattr(shape, "as_list") else shape)]


def encode_shape(shape: Any) -> bytes:
    """A ``TensorShapeProto``: one ``Dim`` per axis (-1 unknown), or ``unknown_rank``."""
    shape = dims_of(shape)
    if shape is None:
        return _int_field(3, 1)
    return b"".join(_bytes_field(2, _int_field(1, -1 if d is None else int(d)),
                                 keep_empty=True) for d in shape)


def decode_shape(buf: bytes) -> tuple[int | None, ...] | None:
    fields = parse(buf)
    if _last(fields, 3, 0):
        return None
    dims = [_signed(_last(parse(d), 1, 0)) for d in fields.get(2, [])]
    return tuple(None if d < 0 else d for d in dims)


def data_type(dtype: Any, fn: str) -> int:
    try:
        return DATA_TYPES[dtypes.as_dtype(dtype)]
    except KeyError:
        raise TypeError(f"{fn}: a component of dtype {dtype!r} cannot be saved") from None


def dtype_of(enum: int) -> Any:
    """finegrad's dtype for TensorFlow's DataType number ``enum``."""
    if enum in _DTYPES:
        return _DTYPES[enum]
    raise ProtoError(f"TensorFlow dtype {_TF_NAMES.get(enum, enum)!r}, which finegrad "
                     f"does not have")


def encode_tensor(value: np.ndarray, enum: int) -> bytes:
    """A ``TensorProto`` as TensorFlow's ``AsProtoTensorContent`` writes it."""
    if enum == 7:
        flat = [v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1)]
        content = b"".join(_varint(len(b)) for b in flat) + b"".join(flat)
    else:
        content = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes()
    return (_int_field(1, enum) + _bytes_field(2, encode_shape(value.shape), keep_empty=True)
            + _bytes_field(4, content))


_VALUE_FIELDS = {1: (5, "<f4"), 2: (6, "<f8"), 8: (9, "<f4"), 18: (12, "<f8")}
_INT_FIELDS = {3: 7, 4: 7, 5: 7, 6: 7, 17: 7, 9: 10, 10: 11, 22: 16, 23: 17}


def decode_tensor(buf: bytes) -> np.ndarray:
    """The array a ``TensorProto`` holds (``tensor_content``, or the typed value lists).

    Raises:
        ProtoError: when the bytes are not one.
    """
    fields = parse(buf)
    dtype = dtype_of(_last(fields, 1, 0))
    shape = decode_shape(_last(fields, 2, b""))
    if shape is None or any(d is None for d in shape):
        raise ProtoError("a stored tensor without a full shape")
    size = int(np.prod([d or 0 for d in shape], dtype=np.int64))
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype == dtypes.string:
        return _decode_strings(fields, size).reshape(shape)
    content = _last(fields, 4, None)
    if content is not None:
        if len(content) != size * np_dtype.itemsize:
            raise ProtoError(f"tensor_content holds {len(content)} bytes for a {dtype.name} "
                             f"tensor of shape {list(shape)}")
        return np.frombuffer(content, np_dtype.newbyteorder("<")).astype(np_dtype) \
            .reshape(shape)
    return _from_value_list(fields, dtype, np_dtype, size).reshape(shape)


def _decode_strings(fields, size):
    out = np.empty(size, dtype=object)
    if 4 not in fields:                          # string_val
        vals = fields.get(8, [])
        out[:] = [bytes(v) for v in vals] if len(vals) == size else \
            [bytes(vals[-1]) if vals else b""] * size
        return out
    content, pos, lengths = _last(fields, 4, b""), 0, []
    for _ in range(size):
        n, pos = _read_varint(content, pos)
        lengths.append(n)
    if pos + sum(lengths) != len(content):
        raise ProtoError("string tensor_content does not match its lengths")
    for i, n in enumerate(lengths):
        out[i], pos = bytes(content[pos:pos + n]), pos + n
    return out


def _from_value_list(fields, dtype, np_dtype, size):
    enum = DATA_TYPES[dtype]
    if enum in _VALUE_FIELDS:
        field, code = _VALUE_FIELDS[enum]
        raw = b"".join(v if isinstance(v, bytes) else struct.pack(
            "<I" if code == "<f4" else "<Q", v) for v in fields.get(field, []))
        vals = np.frombuffer(raw, code)
        if enum in (8, 18):
            vals = vals[0::2] + 1j * vals[1::2]
    elif enum == 19:                              # half_val: float16 bits in int32s
        vals = np.array(_varints(fields.get(13, [])), np.uint16).view(np.float16)
    else:
        vals = np.array([_signed(v) for v in _varints(fields.get(_INT_FIELDS[enum], []))])
    if len(vals) == size:
        return vals.astype(np_dtype)
    if len(vals) > size:
        raise ProtoError(f"{len(vals)} values for a tensor of {size} elements")
    fill = vals[-1] if len(vals) else 0           # TensorFlow repeats the last value
    return np.concatenate([vals, np.full(size - len(vals), fill)]).astype(np_dtype)


# --- SnapshotMetadataRecord --------------------------------------------------------------

Metadata = collections.namedtuple(
    "Metadata", "graph_hash run_id creation_timestamp version dtypes num_elements finalized")


def encode_metadata(m: Metadata) -> bytes:
    packed = b"".join(_varint(d) for d in m.dtypes)
    return (_bytes_field(1, m.graph_hash.encode()) + _bytes_field(2, m.run_id.encode())
            + _int_field(3, m.creation_timestamp) + _int_field(4, m.version)
            + _bytes_field(5, packed) + _int_field(6, m.num_elements)
            + _int_field(1000, int(m.finalized)))


def decode_metadata(buf: bytes) -> Metadata:
    f = parse(buf)
    try:
        text = [bytes(_last(f, k, b"")).decode() for k in (1, 2)]
    except UnicodeDecodeError:
        raise ProtoError("a run id that is not text") from None
    return Metadata(text[0], text[1], _signed(_last(f, 3, 0)), _signed(_last(f, 4, 0)),
                    _varints(f.get(5, [])), _signed(_last(f, 6, 0)), bool(_last(f, 1000, 0)))


# --- StructuredValue (the element spec) ---------------------------------------------------

def encode_spec(spec: Any, fn: str) -> bytes:
    """The ``StructuredValue`` TensorFlow's ``nested_structure_coder`` writes for ``spec``."""
    if isinstance(spec, TensorSpec):
        body = (_bytes_field(1, (spec.name or "").encode())
                + _bytes_field(2, encode_shape(spec.shape), keep_empty=True)
                + _int_field(3, data_type(spec.dtype, fn)))
        return _bytes_field(33, body, keep_empty=True)
    if isinstance(spec, dict):
        if not all(isinstance(k, str) for k in spec):
            raise TypeError(f"{fn}: only string dictionary keys can be saved, got "
                            f"{list(spec)!r}")
        entries = b"".join(_bytes_field(1, _bytes_field(1, k.encode()) + _bytes_field(
            2, encode_spec(v, fn), keep_empty=True), keep_empty=True) for k, v in spec.items())
        return _bytes_field(53, entries, keep_empty=True)
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        pairs = b"".join(_bytes_field(2, _bytes_field(1, k.encode()) + _bytes_field(
            2, encode_spec(v, fn), keep_empty=True), keep_empty=True)
            for k, v in zip(spec._fields, spec, strict=True))
        return _bytes_field(54, _bytes_field(1, type(spec).__name__.encode()) + pairs,
                            keep_empty=True)
    if isinstance(spec, tuple):
        values = b"".join(_bytes_field(1, encode_spec(v, fn), keep_empty=True) for v in spec)
        return _bytes_field(52, values, keep_empty=True)
    raise TypeError(f"{fn}: elements with a component of spec {spec!r} cannot be saved")


_KINDS = {1: "None", 11: "float", 12: "int", 13: "string", 14: "bool", 31: "TensorShape",
          32: "DType", 34: "TypeSpec (ragged, sparse, dataset, ...)",
          35: "BoundedTensorSpec", 51: "list", 55: "tensor", 56: "NumPy array"}


def decode_spec(buf: bytes) -> Any:
    """The element spec a ``StructuredValue`` describes.

    Raises:
        ProtoError: when it is not one, or holds a kind finegrad's datasets cannot have.
    """
    fields = parse(buf)
    if 33 in fields:
        f = parse(fields[33][-1])
        name = bytes(_last(f, 1, b"")).decode() or None
        return TensorSpec(decode_shape(_last(f, 2, b"")), dtype_of(_last(f, 3, 0)), name)
    if 52 in fields:
        return tuple(decode_spec(v) for v in parse(fields[52][-1]).get(1, []))
    if 53 in fields:
        entries = [parse(e) for e in parse(fields[53][-1]).get(1, [])]
        return {bytes(_last(e, 1, b"")).decode(): decode_spec(_last(e, 2, b""))
                for e in entries}
    if 54 in fields:
        f = parse(fields[54][-1])
        pairs = [parse(p) for p in f.get(2, [])]
        keys = [bytes(_last(p, 1, b"")).decode() for p in pairs]
        name = bytes(_last(f, 1, b"")).decode() or "NamedTuple"
        kind = collections.namedtuple(name, keys)  # type: ignore[misc]
        return kind(*[decode_spec(_last(p, 2, b"")) for p in pairs])
    kinds = [_KINDS.get(k, f"field {k}") for k in fields]
    raise ProtoError(f"an element spec holding {', '.join(kinds) or 'nothing'}, which "
                     f"finegrad.data cannot represent")

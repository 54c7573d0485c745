"""``tf.io``'s byte-level functions: `read_file`, `write_file`, `serialize_tensor` and
`parse_tensor` (TensorFlow's ``TensorProto`` bytes, as ``tf.io.serialize_tensor`` writes them),
`decode_raw`, `encode_base64` and `decode_base64` (web-safe, as TensorFlow's)."""
from __future__ import annotations

import base64
import binascii
import os
import zlib
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import tf_protos
from finegrad._src.data.files import _matching
from finegrad._src.data.host_ops import on_host
from finegrad._src.errors import (DataLossError, FailedPreconditionError, InvalidArgumentError,
                                  NotFoundError)
from finegrad._src.tensor import Tensor, convert_to_tensor


def _text(value: Any, fn: str, argument: str) -> str:
    if isinstance(value, Tensor):
        value = value._value.item()
    if isinstance(value, (bytes, str, os.PathLike)):
        return os.fsdecode(value)
    raise TypeError(f"{fn}: {argument} must be a string, got {type(value).__name__}")


def _string_array(value: Any, fn: str, argument: str) -> np.ndarray:
    t = convert_to_tensor(value)
    if t.dtype != dtypes.string:
        raise TypeError(f"{fn}: {argument} must be a string tensor, got {t.dtype.name}")
    return np.asarray(t._value, dtype=object)


def _strings(array: np.ndarray) -> Tensor:
    out = np.empty(array.shape, dtype=object)
    out[...] = array
    return Tensor(out)


@on_host(("filename",), dtypes.string, stateful=True)
def read_file(filename: Any, name: str | None = None) -> Tensor:
    """The contents of the file ``filename``, as a string scalar.

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "f.txt")
    >>> fg.io.write_file(path, "hello")
    >>> fg.io.read_file(path).numpy()
    b'hello'

    Raises:
        finegrad.errors.NotFoundError: when the file does not exist.
    """
    path = _text(filename, "read_file", "filename")
    try:
        with open(path, "rb") as f:
            return Tensor(np.asarray(f.read(), dtype=object))
    except FileNotFoundError:
        raise NotFoundError(f"read_file: {path}; No such file or directory") from None
    except IsADirectoryError:
        raise FailedPreconditionError(f"read_file: {path}; Is a directory") from None


@on_host(("filename", "contents"), None, stateful=True)
def write_file(filename: Any, contents: Any, name: str | None = None) -> None:
    """Writes the string scalar ``contents`` to ``filename`` (creating its directories, as
    TensorFlow's ``WriteFile``).

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "new", "f.bin")
    >>> fg.io.write_file(path, b"\\x00\\x01")
    >>> os.path.getsize(path)
    2
    """
    path = _text(filename, "write_file", "filename")
    data = _string_array(contents, "write_file", "contents")
    if data.ndim:
        raise InvalidArgumentError(f"write_file: contents must be a scalar, got shape "
                                   f"{list(data.shape)}")
    value = data.item()
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(value.encode() if isinstance(value, str) else bytes(value))


@on_host(("tensor",), dtypes.string)
def serialize_tensor(tensor: Any, name: str | None = None) -> Tensor:
    """``tensor`` as the bytes of TensorFlow's ``TensorProto`` (what
    ``tf.io.serialize_tensor`` returns, byte for byte), a string scalar.

    >>> import finegrad as fg
    >>> s = fg.io.serialize_tensor(fg.constant([1, 2]))
    >>> fg.io.parse_tensor(s, fg.int32).numpy()
    array([1, 2], dtype=int32)
    """
    t = convert_to_tensor(tensor)
    enum = tf_protos.data_type(t.dtype, "serialize_tensor")
    value = np.asarray(t._value)
    if enum == 7:
        proto = tf_protos.encode_string_tensor(value)
    else:
        proto = tf_protos.encode_tensor(value, enum)
    return Tensor(np.asarray(proto, dtype=object))


@on_host(("serialized",), lambda a: a["out_type"])
def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Tensor:
    """The tensor a serialized ``TensorProto`` holds (`serialize_tensor`'s inverse, and
    TensorFlow's), checked to be of dtype ``out_type``.

    Raises:
        finegrad.errors.InvalidArgumentError: when the bytes are not a TensorProto, or hold
            another dtype.
    """
    data = _string_array(serialized, "parse_tensor", "serialized")
    if data.ndim:
        raise InvalidArgumentError(f"parse_tensor: serialized must be a scalar, got shape "
                                   f"{list(data.shape)}")
    want = dtypes.as_dtype(out_type)
    try:
        value = tf_protos.decode_tensor(bytes(data.item()))
    except tf_protos.ProtoError as e:
        raise InvalidArgumentError(f"parse_tensor: Could not parse `serialized` as "
                                   f"TensorProto ({e})") from None
    got = dtypes.as_dtype(value.dtype) if value.dtype != object else dtypes.string
    if got != want:
        raise InvalidArgumentError(f"parse_tensor: Type mismatch between parsed tensor "
                                   f"({got.name}) and dtype ({want.name})")
    return _strings(value) if got == dtypes.string else Tensor(value)


@on_host(("input_bytes",), lambda a: a["out_type"])
def decode_raw(input_bytes: Any, out_type: Any, little_endian: bool = True,
               fixed_length: Any = None, name: str | None = None) -> Tensor:
    """Each string of ``input_bytes`` read as a vector of ``out_type`` numbers (a new last
    axis); with ``fixed_length`` each string is cut or zero-padded to that many bytes first.

    >>> import finegrad as fg
    >>> fg.io.decode_raw(fg.constant([b"\\x01\\x00\\x02\\x00"]), fg.int16).numpy()
    array([[1, 2]], dtype=int16)

    Raises:
        finegrad.errors.InvalidArgumentError: when the strings' lengths differ or are not a
            multiple of the item size.
    """
    data = _string_array(input_bytes, "decode_raw", "input_bytes")
    dt = np.dtype(dtypes.as_dtype(out_type).as_numpy_dtype)
    dt = dt.newbyteorder("<" if little_endian else ">")
    flat = [bytes(v) for v in data.reshape(-1)]
    if fixed_length is not None:
        n = int(fixed_length._value if isinstance(fixed_length, Tensor) else fixed_length)
        flat = [v[:n].ljust(n, b"\0") for v in flat]
    sizes = {len(v) for v in flat}
    if len(sizes) > 1:
        raise InvalidArgumentError(f"decode_raw: DecodeRaw requires input strings to all be "
                                   f"the same size, got sizes {sorted(sizes)}")
    size = sizes.pop() if sizes else 0
    if size % dt.itemsize:
        raise InvalidArgumentError(f"decode_raw: Input to DecodeRaw has length {size} that "
                                   f"is not a multiple of {dt.itemsize}, the size of "
                                   f"{dt.name}")
    out = np.frombuffer(b"".join(flat), dt).astype(dt.newbyteorder("="))
    return Tensor(out.reshape(data.shape + (size // dt.itemsize,)))


@on_host(("input",), dtypes.string)
def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> Tensor:
    """Each string in web-safe base64 (``-`` and ``_``), padded with ``=`` only when
    ``pad``, as TensorFlow's.

    >>> import finegrad as fg
    >>> fg.io.encode_base64(fg.constant([b"\\xff\\xfe?", b"a"])).numpy()
    array([b'__4_', b'YQ'], dtype=object)
    """
    data = _string_array(input, "encode_base64", "input")
    out = [base64.urlsafe_b64encode(_bytes(v)) for v in data.reshape(-1)]
    if not pad:
        out = [v.rstrip(b"=") for v in out]
    return _strings(np.array(out + [None], dtype=object)[:-1].reshape(data.shape))


@on_host(("input",), dtypes.string)
def decode_base64(input: Any, name: str | None = None) -> Tensor:
    """Each web-safe base64 string decoded (padding optional), as TensorFlow's.

    Raises:
        finegrad.errors.InvalidArgumentError: at a character outside the alphabet.
    """
    data = _string_array(input, "decode_base64", "input")
    out = []
    for v in data.reshape(-1):
        text = _bytes(v).rstrip(b"=")
        try:
            out.append(base64.b64decode(text + b"=" * (-len(text) % 4), altchars=b"-_",
                                        validate=True))
        except binascii.Error:
            raise InvalidArgumentError(f"decode_base64: Invalid character found in base64 "
                                       f"string {v!r}") from None
    return _strings(np.array(out + [None], dtype=object)[:-1].reshape(data.shape))


def _bytes(v: Any) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


@on_host(("bytes",), dtypes.string)
def decode_compressed(bytes: Any, compression_type: str = "", name: str | None = None) -> Tensor:
    """Each string decompressed: ``compression_type`` "" (as is), "ZLIB" or "GZIP".

    >>> import finegrad as fg, gzip
    >>> fg.io.decode_compressed(gzip.compress(b"abc"), "GZIP").numpy()
    b'abc'

    Raises:
        finegrad.errors.DataLossError: for data not compressed so.
        ValueError: for another compression type.
    """
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError(f"decode_compressed: compression_type must be '', 'ZLIB' or "
                         f"'GZIP', got {compression_type!r}")
    data = _string_array(bytes, "decode_compressed", "bytes")
    if not compression_type:
        return _strings(data)
    wbits = 31 if compression_type == "GZIP" else 15
    out = []
    for v in data.reshape(-1):
        try:
            out.append(zlib.decompress(_bytes(v), wbits))
        except zlib.error as e:
            raise DataLossError(f"decode_compressed: inflate() failed ({e})") from None
    return _strings(np.array(out + [None], dtype=object)[:-1].reshape(data.shape))


@on_host(("pattern",), dtypes.string, stateful=True)
def matching_files(pattern: Any, name: str | None = None) -> Tensor:
    """The sorted paths matching ``pattern`` (a glob, or a list of them), a string vector
    (empty when nothing matches), as ``tf.io.matching_files``.

    >>> import finegrad as fg, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> fg.io.write_file(os.path.join(d, "a.tfrecord"), "")
    >>> [os.path.basename(p) for p in fg.io.matching_files(d + "/*.tfrecord").numpy()]
    [b'a.tfrecord']
    """
    patterns = _string_array(pattern, "matching_files", "pattern").reshape(-1)
    found = sorted({m for p in patterns for m in _matching(os.fsdecode(_bytes(p)))})
    return _strings(np.array([f.encode() for f in found] + [None], dtype=object)[:-1])

"""Datasets of plain files: ``tf.data.TextLineDataset`` (one element per line) and
``tf.data.FixedLengthRecordDataset`` (one per record of a fixed number of bytes), with
TensorFlow's line endings, compression (None, "GZIP", "ZLIB") and errors."""
from __future__ import annotations

import gzip
import zlib
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data.cardinality import UNKNOWN_CARDINALITY
from finegrad._src.data.dataset import Dataset
from finegrad._src.data.tfrecord_io import check_readable, compression_of, files_dataset
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor


def _contents(path: str, codec: Any, fn: str) -> bytes:
    """The (decompressed) bytes of file ``path``."""
    check_readable(path, fn)
    with open(path, "rb") as f:
        data = f.read()
    if codec == "GZIP":
        return gzip.decompress(data)
    if codec == "ZLIB":
        return zlib.decompress(data)
    return data


def _string(b: bytes) -> Tensor:
    return Tensor(np.asarray(b, dtype=object))


def _lines(path: str, codec: Any, fn: str) -> Any:
    """Each line of the file, without its ``\\n`` (or ``\\r\\n``)."""
    data = _contents(path, codec, fn)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":   # (a final newline ends the last line, starts none)
        lines.pop()
    for line in lines:
        yield _string(line[:-1] if line.endswith(b"\r") else line)


class TextLineDataset(Dataset):
    """The lines of text files, each a scalar string without its line ending, file after
    file (``num_parallel_reads`` files interleaved a line at a time).

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("one\\ntwo\\n")
    >>> [x.numpy() for x in fg.data.TextLineDataset(path)]
    [b'one', b'two']

    Raises:
        TypeError: when ``filenames`` are not strings.
        finegrad.errors.NotFoundError: (when iterated) at a file that does not exist.
    """

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None) -> None:
        fn = "TextLineDataset"
        codec = compression_of(compression_type, fn)
        if codec == "SNAPPY":
            raise ValueError(f"{fn}: compression_type must be None, '', 'GZIP' or 'ZLIB', "
                             f"got 'SNAPPY'")
        inner = files_dataset(filenames, num_parallel_reads,
                               lambda p: _lines(p, codec, fn), fn)
        super().__init__(inner._make_iterator, TensorSpec((), dtypes.string),
                         UNKNOWN_CARDINALITY)


def _records(path: str, codec: Any, sizes: tuple[int, int, int], fn: str) -> Any:
    record, header, footer = sizes
    data = _contents(path, codec, fn)
    body = len(data) - header - footer
    if body % record:
        raise InvalidArgumentError(
            f"{fn}: Excluding the header ({header} bytes) and footer ({footer} bytes), input "
            f"file \"{path}\" has body length {body} bytes, which is not an exact multiple of "
            f"the record length ({record} bytes).")
    for start in range(header, header + body, record):
        yield _string(data[start:start + record])


class FixedLengthRecordDataset(Dataset):
    """The records of ``record_bytes`` bytes of binary files (after ``header_bytes``, before
    ``footer_bytes``), each a scalar string.

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.bin")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"abcdef")
    >>> [x.numpy() for x in fg.data.FixedLengthRecordDataset(path, 3)]
    [b'abc', b'def']

    Raises:
        finegrad.errors.InvalidArgumentError: (when iterated) at a file whose body is not a
            whole number of records.
        finegrad.errors.NotFoundError: (when iterated) at a file that does not exist.
    """

    def __init__(self, filenames: Any, record_bytes: Any, header_bytes: Any = None,
                 footer_bytes: Any = None, buffer_size: Any = None, compression_type: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None) -> None:
        fn = "FixedLengthRecordDataset"
        codec = compression_of(compression_type, fn)
        record, header, footer = (int(getattr(v, "_value", v) or 0)
                                  for v in (record_bytes, header_bytes, footer_bytes))
        sizes = (record, header, footer)
        if sizes[0] <= 0 or sizes[1] < 0 or sizes[2] < 0:
            raise InvalidArgumentError(f"{fn}: record_bytes must be > 0 and header_bytes, "
                                       f"footer_bytes >= 0, got {sizes}")
        inner = files_dataset(filenames, num_parallel_reads,
                               lambda p: _records(p, codec, sizes, fn), fn)
        super().__init__(inner._make_iterator, TensorSpec((), dtypes.string),
                         UNKNOWN_CARDINALITY)

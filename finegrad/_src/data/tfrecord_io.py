"""TFRecord files through the public API: ``tf.data.TFRecordDataset`` (reading),
``tf.io.TFRecordWriter`` and ``tf.io.TFRecordOptions`` (writing), and TensorFlow 1's
``tf.compat.v1.io.tf_record_iterator``. The framing, CRCs and compressed streams are
`tfrecords`'; files are interchangeable with TensorFlow's both ways.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import tfrecords
from finegrad._src.data.cardinality import AUTOTUNE, UNKNOWN_CARDINALITY
from finegrad._src.data.dataset import Dataset
from finegrad._src.errors import FailedPreconditionError, NotFoundError
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor

_BATCH, _BATCH_BYTES = 4096, 1 << 20    # records a TFRecordWriter holds before framing them
_NAMES = {None: None, "": None, "GZIP": "GZIP", "ZLIB": "ZLIB", "SNAPPY": "SNAPPY"}


def compression_of(value: Any, fn: str, argument: str = "compression_type") -> Any:
    """``None``, ``"GZIP"``, ``"ZLIB"`` or ``"SNAPPY"`` for a compression type given as a
    string, a `TFRecordOptions` or a string tensor."""
    if isinstance(value, TFRecordOptions):
        value = value.compression_type
    if isinstance(value, Tensor):
        value = value._value.item()
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, (str, type(None))) or value not in _NAMES:
        raise ValueError(f"{fn}: {argument} must be None, '', 'GZIP', 'ZLIB' or 'SNAPPY', "
                         f"got {value!r}")
    return _NAMES[value]


def _path(value: Any) -> str:
    if isinstance(value, Tensor):
        value = value._value.item()
    return os.fsdecode(value)


def check_readable(path: str, fn: str) -> None:
    """TensorFlow's errors for a path that is no file to read."""
    if not os.path.exists(path):
        raise NotFoundError(f"{fn}: {path}; No such file or directory")
    if os.path.isdir(path):
        raise FailedPreconditionError(f"{fn}: {path} is a directory")


def _file_records(path: str, compression: Any, fn: str) -> Any:
    check_readable(path, fn)
    for record in tfrecords.read_records(path, compression, fn):
        yield Tensor(np.asarray(bytes(record), dtype=object))


def _filenames_dataset(filenames: Any, fn: str) -> Dataset:
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not isinstance(spec, TensorSpec) or dtypes.as_dtype(spec.dtype) != dtypes.string \
                or len(tuple(spec.shape or ())) != 0:
            raise TypeError(f"{fn}: `filenames` must be a `tf.data.Dataset` of scalar "
                            f"`tf.string` elements, got one of {spec}")
        return filenames
    if isinstance(filenames, os.PathLike):
        filenames = os.fspath(filenames)
    t = convert_to_tensor(filenames)
    if t.dtype != dtypes.string:
        raise TypeError(f"{fn}: The `filenames` argument must contain `tf.string` elements. "
                        f"Got `{t.dtype.name}` elements.")
    if t._value.ndim > 1:
        raise TypeError(f"{fn}: The `filenames` argument must contain a scalar or a vector "
                        f"of strings, got shape {list(t._value.shape)}")
    return Dataset.from_tensor_slices(t._value.reshape(-1))


def files_dataset(filenames: Any, num_parallel_reads: Any, read: Any, fn: str) -> Dataset:
    """The string scalars ``read(path)`` yields for each file of ``filenames``, file after
    file (or ``num_parallel_reads`` files interleaved an element at a time, as ``tf.data``)."""
    files = _filenames_dataset(filenames, fn)

    def one_file(path: Any) -> Dataset:
        p = _path(path)
        return Dataset(lambda: read(p), TensorSpec((), dtypes.string), UNKNOWN_CARDINALITY)
    parallel = None if num_parallel_reads is None else int(
        num_parallel_reads._value if isinstance(num_parallel_reads, Tensor)
        else num_parallel_reads)
    if parallel is not None and (parallel > 1 or parallel == AUTOTUNE):
        return files.interleave(one_file, cycle_length=parallel, block_length=1)
    return files.flat_map(one_file)


class TFRecordDataset(Dataset):
    """The records of TFRecord files, each a scalar string tensor, file after file (or
    ``num_parallel_reads`` files interleaved a record at a time, as ``tf.data``).

    ``filenames`` is a path, a list of them, a string tensor, or a dataset of string
    scalars; ``compression_type`` is None (or ""), "GZIP", "ZLIB" or "SNAPPY" (Snappy needs
    the ``cramjam`` package). ``buffer_size`` is accepted (reads are buffered anyway).

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
    >>> with fg.io.TFRecordWriter(path) as w:
    ...     for r in (b"one", b"two"):
    ...         w.write(r)
    >>> [x.numpy() for x in fg.data.TFRecordDataset(path)]
    [b'one', b'two']

    Raises:
        TypeError: when ``filenames`` are not strings.
        finegrad.errors.NotFoundError: (when iterated) at a file that does not exist.
        finegrad.errors.DataLossError: (when iterated) at a corrupted or cut record, or data
            not compressed as ``compression_type`` says.
    """

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None) -> None:
        fn = "TFRecordDataset"
        codec = compression_of(compression_type, fn)
        if codec == "SNAPPY":
            tfrecords.snappy_module(fn, "compression_type")
        inner = files_dataset(filenames, num_parallel_reads,
                              lambda p: _file_records(p, codec, fn), fn)
        super().__init__(inner._make_iterator, TensorSpec((), dtypes.string),
                         UNKNOWN_CARDINALITY)


class TFRecordOptions:
    """How a TFRecord file is written: ``compression_type`` None or "" (none), "GZIP" or
    "ZLIB", as ``tf.io.TFRecordOptions`` (whose writer has no Snappy); ``compression_level``
    (0 to 9, default 6) is used, the other zlib tuning arguments are kept but not used.

    >>> import finegrad as fg
    >>> fg.io.TFRecordOptions(compression_type="GZIP").compression_type
    'GZIP'

    Raises:
        ValueError: for another compression type.
    """

    def __init__(self, compression_type: Any = None, flush_mode: Any = None,
                 input_buffer_size: Any = None, output_buffer_size: Any = None,
                 window_bits: Any = None, compression_level: Any = None,
                 compression_method: Any = None, mem_level: Any = None,
                 compression_strategy: Any = None) -> None:
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """``options`` (a `TFRecordOptions` or a string) as "GZIP", "ZLIB" or "".

        Raises:
            ValueError: for another compression type.
        """
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in ("GZIP", "ZLIB"):
            return str(options)
        raise ValueError(f'TFRecordOptions: Not a valid compression_type: "{options}"')


class TFRecordWriter:
    """Writes records (bytes or str) to the TFRecord file ``path``, compressed as
    ``options`` says (a `TFRecordOptions`, or its compression type string). Usable as a
    context manager, which closes it. Records reach the file in batches (up to 4096 records
    or 1 MiB), and all of them at `flush` and `close`.

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord.gz")
    >>> with fg.io.TFRecordWriter(path, options="GZIP") as w:
    ...     w.write(b"payload")
    >>> [x.numpy() for x in fg.data.TFRecordDataset(path, compression_type="GZIP")]
    [b'payload']

    Raises:
        finegrad.errors.NotFoundError: when the file's directory does not exist.
        ValueError: for an unknown compression type.
    """

    def __init__(self, path: Any, options: Any = None) -> None:
        fn = "TFRecordWriter"
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        codec = compression_of(TFRecordOptions.get_compression_type_string(options), fn)
        path = _path(path)
        try:
            level = 6 if options.compression_level is None else int(options.compression_level)
            self._writer: Any = tfrecords.RecordWriter(path, codec, fn, level)
        except FileNotFoundError:
            raise NotFoundError(f"{fn}: {path}; No such file or directory") from None
        self._closed = False
        self._pending: list[bytes] = []     # framed many at a time: the CRCs are vectorized
        self._pending_bytes = 0

    def _push(self) -> None:
        if self._pending:
            self._writer.write(self._pending)
            self._pending, self._pending_bytes = [], 0

    def write(self, record: Any) -> None:
        """Appends one record.

        Raises:
            finegrad.errors.FailedPreconditionError: after `close`.
            TypeError: when ``record`` is not bytes or str.
        """
        if self._closed:
            raise FailedPreconditionError("TFRecordWriter.write: Writer is closed.")
        if isinstance(record, Tensor) and record.dtype == dtypes.string \
                and record._value.ndim == 0:
            record = record._value.item()
        if isinstance(record, str):
            record = record.encode()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write: record must be bytes or str, got "
                            f"{type(record).__name__}")
        self._pending.append(bytes(record))
        self._pending_bytes += len(record)
        if len(self._pending) >= _BATCH or self._pending_bytes >= _BATCH_BYTES:
            self._push()

    def flush(self) -> None:
        """Pushes what is written so far to the file (a compressed stream stays open)."""
        if self._closed:
            raise FailedPreconditionError("TFRecordWriter.flush: Writer is closed.")
        self._push()
        self._writer.flush()

    def close(self) -> None:
        """Finishes the file (closing twice is harmless)."""
        if not self._closed:
            self._closed = True
            self._push()
            self._writer.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):   # (as TensorFlow's writer, closed when dropped)
            try:
                self.close()
            except Exception:   # (at interpreter exit the file may be gone already)
                pass

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def tf_record_iterator(path: Any, options: Any = None) -> Any:
    """The records of the TFRecord file ``path`` as bytes, TensorFlow 1's way
    (``tf.compat.v1.io.tf_record_iterator``; ``options`` as `TFRecordWriter`'s).

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
    >>> with fg.io.TFRecordWriter(path) as w:
    ...     w.write(b"a")
    >>> list(fg.compat.v1.io.tf_record_iterator(path))
    [b'a']

    Raises:
        finegrad.errors.NotFoundError: when ``path`` does not exist.
        finegrad.errors.DataLossError: at a corrupted record.
    """
    fn = "tf_record_iterator"
    codec = compression_of(TFRecordOptions.get_compression_type_string(options), fn)
    for t in _file_records(_path(path), codec, fn):
        yield t._value.item()

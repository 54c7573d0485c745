"""TensorFlow's snapshot format (file format version 2), the files ``tf.data.Dataset.save``
and ``tf.data.Dataset.snapshot`` write, so that a dataset saved by one loads in the other.

A saved dataset is a directory::

    path/dataset_spec.pb        the element spec, a StructuredValue (save only)
    path/snapshot.metadata      a SnapshotMetadataRecord: run id, dtypes, element count
    path/<run_id>/<shard:08d>.shard/<file:08d>.snapshot
                                TFRecord files (see `tfrecords`), one TensorProto record per
                                component of each element, components in ``tf.nest`` order

The shard directories are read in sorted order, each shard's files from ``00000000`` until
one is missing. The compression is not recorded: a reader must be told it.
"""
from __future__ import annotations

import os
import secrets
import shutil
import time
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import structure, tf_protos
from finegrad._src.data.tfrecords import (COMPRESSIONS, RecordWriter, is_record_header,
                                           read_records, snappy_module)
from finegrad._src.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                                  UnimplementedError)
from finegrad._src.tensor import Tensor, convert_to_tensor

METADATA = "snapshot.metadata"
SPEC = "dataset_spec.pb"
VERSION = 2
_FLUSH = 256                  # elements a shard buffers before its records are written


def check_compression(compression: Any, fn: str) -> Any:
    """``compression`` as the writers take it: None, "GZIP", "ZLIB" or "SNAPPY" (``""`` is
    None). Snappy's codec is looked up here, so a missing ``cramjam`` fails at once."""
    if compression == "":
        compression = None
    if compression not in COMPRESSIONS:
        raise ValueError(f"{fn}: compression must be None, 'GZIP', 'ZLIB' or 'SNAPPY', got "
                         f"{compression!r}")
    if compression == "SNAPPY":
        snappy_module(fn)
    return compression


def shard_of(shard_func: Any, element: Any, fn: str) -> int:
    """The shard ``shard_func`` gives an element (0 without one, as ``tf.data.save``): an
    int64 scalar (``snapshot`` also takes an int32 one, as ``tf.data``)."""
    if shard_func is None:
        return 0
    k = convert_to_tensor(structure.call_with(shard_func, element))
    kinds = (dtypes.int64, dtypes.int32) if fn == "Dataset.snapshot" else (dtypes.int64,)
    if k.dtype not in kinds or k._value.ndim:
        raise InvalidArgumentError(f"{fn}: `shard_func` must return a scalar int64, got "
                                   f"{k.dtype.name} of shape {k.shape}")
    if int(k._value) < 0:
        raise InvalidArgumentError(f"{fn}: `shard_func` returned a negative shard "
                                   f"{int(k._value)}")
    return int(k._value)


class RunWriter:
    """The shard files of one run directory, opened as elements arrive for them."""

    def __init__(self, directory: str, compression: Any, fn: str) -> None:
        self.run_id = str(secrets.randbits(64))
        self.run_dir = os.path.join(directory, self.run_id)
        self.compression, self.fn = compression, fn
        self.enums: list[int] = []
        self.writers: dict[int, RecordWriter] = {}
        self.pending: dict[int, list[bytes]] = {}
        self.count = 0
        os.makedirs(self.run_dir)

    def write(self, shard: int, element: Any) -> None:
        if shard not in self.writers:
            shard_dir = os.path.join(self.run_dir, f"{shard:08d}.shard")
            os.makedirs(shard_dir, exist_ok=True)
            self.writers[shard] = RecordWriter(os.path.join(shard_dir, "00000000.snapshot"),
                                               self.compression, self.fn)
            self.pending[shard] = []
        records = self.pending[shard]
        values = [np.asarray(t._value) for t in structure.flatten(element)]
        if not self.enums:
            self.enums = [tf_protos.data_type(v.dtype, self.fn) for v in values]
        for v, enum in zip(values, self.enums, strict=True):
            records.append(tf_protos.encode_tensor(v, enum))
        self.count += 1
        if len(records) >= _FLUSH * len(self.enums):
            self.writers[shard].write(records)
            records.clear()

    def close(self) -> None:
        for shard, w in self.writers.items():
            if self.pending[shard]:
                w.write(self.pending[shard])
            w.close()

    def abort(self) -> None:
        for w in self.writers.values():
            w.abort()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def finish(self, directory: str, spec: Any, graph_hash: str = "") -> None:
        """Closes the shards, then writes the spec and the metadata, each whole or not at
        all: a save that stopped midway leaves the previous one loadable."""
        self.close()
        self.enums = [tf_protos.data_type(s.dtype, self.fn) for s in structure.flatten(spec)]
        _write_atomic(os.path.join(directory, SPEC), tf_protos.encode_spec(spec, self.fn))
        meta = tf_protos.Metadata(graph_hash, self.run_id, time.time_ns() // 1000, VERSION,
                                  self.enums, self.count, True)
        _write_atomic(os.path.join(directory, METADATA), tf_protos.encode_metadata(meta))


def _write_atomic(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{secrets.randbits(32)}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def read_metadata(path: str, fn: str) -> Any:
    """The ``snapshot.metadata`` under ``path``.

    Raises:
        finegrad.errors.NotFoundError: when there is none.
        finegrad.errors.DataLossError: when it is not one.
    """
    file = os.path.join(path, METADATA)
    try:
        with open(file, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(f"{fn}: Could not find metadata file [{path}]") from None
    try:
        return tf_protos.decode_metadata(data)
    except tf_protos.ProtoError as e:
        raise DataLossError(f"{fn}: {file} is not a snapshot metadata record ({e})") from None


def read_spec(path: str, fn: str) -> Any:
    """The element spec in ``dataset_spec.pb`` under ``path``.

    Raises:
        finegrad.errors.NotFoundError: when there is none (as ``tf.data``).
        finegrad.errors.DataLossError: when it is not one finegrad can read.
    """
    file = os.path.join(path, SPEC)
    try:
        with open(file, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(f"{fn}: tf.data snapshot element_spec file not found: "
                            f"{file}.") from None
    try:
        return tf_protos.decode_spec(data)
    except (tf_protos.ProtoError, UnicodeDecodeError) as e:
        raise DataLossError(f"{fn}: {file} is not an element spec finegrad can read "
                            f"({e})") from None


def shard_dirs(path: str, meta: Any) -> list[str]:
    """The run's shard directories, sorted (as TensorFlow's reader takes them)."""
    run = os.path.join(path, meta.run_id)
    try:
        names = os.listdir(run)
    except FileNotFoundError:
        raise NotFoundError(f"Dataset.load: the run directory {run} that {path}/{METADATA} "
                            f"names is missing") from None
    return [os.path.join(run, n) for n in sorted(names) if n.endswith(".shard")]


def read_shard(shard_dir: str, spec: Any, version: int, compression: Any, fn: str) -> Any:
    """The elements of one shard directory, file after file.

    Raises:
        finegrad.errors.InvalidArgumentError: when a component's dtype or shape is not the
            spec's (as ``tf.data``).
    """
    if version != VERSION:
        raise UnimplementedError(f"{fn}: snapshot file format version {version} (written "
                                 f"by TensorFlow before 2.3) cannot be read; version 2 can")
    specs = structure.flatten(spec)
    index = 0
    while os.path.exists(file := os.path.join(shard_dir, f"{index:08d}.snapshot")):
        parts: list[Any] = []
        for record in read_records(file, compression, fn):
            parts.append(_component(record, specs[len(parts)], len(parts), file, fn))
            if len(parts) == len(specs):
                yield structure.pack(spec, parts)
                parts = []
        if parts:
            raise DataLossError(f"{fn}: {file} ends inside an element")
        index += 1


def _component(record, spec, i, file, fn):
    try:
        value = tf_protos.decode_tensor(record)
    except tf_protos.ProtoError as e:
        raise DataLossError(f"{fn}: Unable to parse tensor from stored proto in {file} "
                            f"({e})") from None
    dtype = dtypes.as_dtype(value.dtype)
    if dtype != dtypes.as_dtype(spec.dtype):
        raise InvalidArgumentError(f"{fn}: Data type mismatch at component {i}: expected "
                                   f"{dtypes.as_dtype(spec.dtype).name} but got {dtype.name}.")
    shape = tf_protos.dims_of(spec.shape)
    if shape is not None and (len(shape) != value.ndim or any(
            d is not None and d != n for d, n in zip(shape, value.shape, strict=True))):
        raise InvalidArgumentError(f"{fn}: Incompatible shapes at component {i}: expected "
                                   f"{list(shape)} but got {list(value.shape)}.")
    return Tensor(value)


def sniff_compression(path: str, meta: Any) -> Any:
    """The compression a run's first file was written with (for ``snapshot``'s "AUTO")."""
    for shard in shard_dirs(path, meta):
        with open(os.path.join(shard, "00000000.snapshot"), "rb") as f:
            head = f.read(12)
        if head[:2] == b"\x1f\x8b":
            return "GZIP"
        if not head or is_record_header(head):
            return None
        if head[0] == 0x78 and int.from_bytes(head[:2], "big") % 31 == 0:
            return "ZLIB"
        return "SNAPPY"
    return None

"""finegrad's on-disk format for ``Dataset.save``, ``load`` and ``snapshot``.

A saved dataset is a directory: shard files ``shard_<k>.npyrec`` (``.npyrec.gz`` with
``compression="GZIP"``), each a sequence of elements, each element its components in
``tf.nest`` order as ``.npy`` records (a string component as its byte lengths and the bytes
joined), and a metadata file ``finegrad_dataset.json`` written last (element spec,
compression, each shard's element count). This is not TensorFlow's snapshot format
(protocol buffers and TFRecord files); a dataset saved by one cannot be loaded by the other.
"""
from __future__ import annotations

import collections
import gzip
import json
import os
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import structure
from finegrad._src.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                                  UnimplementedError)
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor

METADATA = "finegrad_dataset.json"
FORMAT = "finegrad.data.save/1"


def check_compression(compression: Any, fn: str) -> Any:
    """``compression`` as stored: None or "GZIP" (``""`` is None)."""
    if compression in (None, ""):
        return None
    if compression == "GZIP":
        return "GZIP"
    if compression == "SNAPPY":
        raise UnimplementedError(f"{fn}: compression='SNAPPY' is not available (the Python "
                                 f"standard library has no Snappy codec); use 'GZIP' or None")
    raise ValueError(f"{fn}: compression must be None, 'GZIP' or 'SNAPPY', got "
                     f"{compression!r}")


def encode_spec(spec: Any, fn: str) -> Any:
    """A JSON-able description of an element spec (TensorSpecs in tuples, namedtuples,
    dicts with string keys)."""
    if isinstance(spec, TensorSpec):
        shape = None if spec.shape is None else list(spec.shape)
        return {"tensor": {"shape": shape, "dtype": dtypes.as_dtype(spec.dtype).name}}
    if isinstance(spec, dict):
        if not all(isinstance(k, str) for k in spec):
            raise TypeError(f"{fn}: only string dictionary keys can be saved, got "
                            f"{list(spec)!r}")
        return {"dict": [[k, encode_spec(v, fn)] for k, v in spec.items()]}
    if isinstance(spec, tuple):
        items = [encode_spec(v, fn) for v in spec]
        fields = getattr(type(spec), "_fields", None)
        if fields is not None:
            return {"namedtuple": [type(spec).__name__, list(fields), items]}
        return {"tuple": items}
    raise TypeError(f"{fn}: elements with a component of spec {spec!r} cannot be saved")


def decode_spec(code: Any) -> Any:
    """The element spec `encode_spec` described (a namedtuple rebuilt by name and fields)."""
    if "tensor" in code:
        t = code["tensor"]
        shape = None if t["shape"] is None else tuple(t["shape"])
        return TensorSpec(shape, dtypes.as_dtype(t["dtype"]))
    if "dict" in code:
        return {k: decode_spec(v) for k, v in code["dict"]}
    if "namedtuple" in code:
        name, fields, items = code["namedtuple"]
        return collections.namedtuple(name, fields)(*[decode_spec(v) for v in items])
    return tuple(decode_spec(v) for v in code["tuple"])


def _open(path, mode, compression):
    return gzip.open(path, mode) if compression == "GZIP" else open(path, mode)


def shard_name(index: int, compression: Any) -> str:
    return f"shard_{index:08d}.npyrec" + (".gz" if compression == "GZIP" else "")


def _write_component(f, value):
    if value.dtype == object:     # strings: the shape, the byte lengths, the bytes joined
        flat = [v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1)]
        for part in (np.array(value.shape, np.int64), np.array([len(b) for b in flat], np.int64),
                     np.frombuffer(b"".join(flat), np.uint8)):
            np.lib.format.write_array(f, part, allow_pickle=False)
    else:
        np.lib.format.write_array(f, np.asarray(value, order="C"), allow_pickle=False)


def _read_component(f, spec):
    first = np.lib.format.read_array(f, allow_pickle=False)
    if dtypes.as_dtype(spec.dtype) != dtypes.string:
        return Tensor(first)
    lengths = np.lib.format.read_array(f, allow_pickle=False).tolist()
    data = np.lib.format.read_array(f, allow_pickle=False).tobytes()
    ends = np.cumsum([0] + lengths).tolist()
    out = np.empty(len(lengths), dtype=object)
    out[:] = [data[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]
    return Tensor(out.reshape(tuple(first.tolist())))


class ShardWriter:
    """Shard files under ``directory``, opened as elements arrive for them."""

    def __init__(self, directory: str, compression: Any) -> None:
        self.directory, self.compression = directory, compression
        self.files: dict[int, Any] = {}
        self.counts: dict[int, int] = {}

    def write(self, shard: int, element: Any) -> None:
        f = self.files.get(shard)
        if f is None:
            f = self.files[shard] = _open(os.path.join(
                self.directory, shard_name(shard, self.compression)), "wb", self.compression)
            self.counts[shard] = 0
        for t in structure.flatten(element):
            _write_component(f, np.asarray(t._value))
        self.counts[shard] += 1

    def finish(self, spec: Any, fn: str) -> None:
        """Closes the shards and writes the metadata (last: a save that stopped midway
        leaves no loadable dataset)."""
        for f in self.files.values():
            f.close()
        meta = {"format": FORMAT, "element_spec": encode_spec(spec, fn),
                "compression": self.compression,
                "shards": [[k, self.counts[k]] for k in sorted(self.counts)]}
        tmp = os.path.join(self.directory, METADATA + ".tmp")
        with open(tmp, "w") as f:
            json.dump(meta, f)
        os.replace(tmp, os.path.join(self.directory, METADATA))

    def abort(self) -> None:
        for f in self.files.values():
            f.close()


def shard_of(shard_func: Any, element: Any, fn: str) -> int:
    """The shard ``shard_func`` gives an element (0 without one)."""
    if shard_func is None:
        return 0
    k = convert_to_tensor(structure.call_with(shard_func, element))
    if k.dtype != dtypes.int64 or k._value.ndim:
        raise InvalidArgumentError(f"{fn}: `shard_func` must return a scalar int64, got "
                                   f"{k.dtype.name} of shape {k.shape}")
    if int(k._value) < 0:
        raise InvalidArgumentError(f"{fn}: `shard_func` returned a negative shard "
                                   f"{int(k._value)}")
    return int(k._value)


def read_metadata(path: str, fn: str) -> Any:
    """The metadata of the dataset saved at ``path``.

    Raises:
        NotFoundError: when no saved dataset is there.
    """
    try:
        with open(os.path.join(os.fspath(path), METADATA)) as f:
            meta = json.load(f)
    except FileNotFoundError:
        raise NotFoundError(f"{fn}: no dataset saved by finegrad at {path} (its "
                            f"{METADATA} is missing)") from None
    if meta.get("format") != FORMAT:
        raise DataLossError(f"{fn}: {path} holds an unknown format {meta.get('format')!r}")
    return meta


def read_shard(path: str, shard: int, count: int, spec: Any, compression: Any) -> Any:
    """The ``count`` elements of one shard file, in order."""
    specs = structure.flatten(spec)
    with _open(os.path.join(path, shard_name(shard, compression)), "rb", compression) as f:
        for _ in range(count):
            yield structure.pack(spec, [_read_component(f, s) for s in specs])

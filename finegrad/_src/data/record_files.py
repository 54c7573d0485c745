"""The on-disk format of finegrad's earlier ``Dataset.save`` (before it wrote TensorFlow's
format, `snapshot_files`), kept so that ``Dataset.load`` still reads such directories.

A saved dataset is a directory: shard files ``shard_<k>.npyrec`` (``.npyrec.gz`` with
``compression="GZIP"``), each a sequence of elements, each element its components in
``tf.nest`` order as ``.npy`` records (a string component as its byte lengths and the bytes
joined), and a metadata file ``finegrad_dataset.json`` written last (element spec,
compression, each shard's element count). TensorFlow cannot read it; finegrad no longer writes
it.
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
from finegrad._src.errors import (DataLossError, NotFoundError)
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor

METADATA = "finegrad_dataset.json"
FORMAT = "finegrad.data.save/1"


def decode_spec(code: Any) -> Any:
    """The element spec the metadata describes (a namedtuple rebuilt by name and fields)."""
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

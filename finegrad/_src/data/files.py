"""The ``tf.data.Dataset`` methods that touch files: `list_files`, `save`, `load` and
`snapshot` (`FileMethods`, inherited by `Dataset`). The format on disk is finegrad's own
(see `record_files`), not TensorFlow's."""
from __future__ import annotations

import fnmatch
import glob
import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import record_files, structure
from finegrad._src.data.fingerprints import fingerprint
from finegrad._src.data.regrouping import DatasetSpec
from finegrad._src.errors import DataLossError, InvalidArgumentError
from finegrad._src.tensor import Tensor, convert_to_tensor


def _patterns(file_pattern):
    if isinstance(file_pattern, (str, bytes, os.PathLike)):
        file_pattern = [file_pattern]
    elif isinstance(file_pattern, Tensor):
        file_pattern = np.asarray(file_pattern._value).reshape(-1).tolist()
    out = []
    for p in file_pattern:
        p = convert_to_tensor(p)._value if isinstance(p, Tensor) else p
        p = os.fsdecode(p.item() if isinstance(p, np.ndarray) else p)
        if not isinstance(p, str):
            raise TypeError(f"Dataset.list_files: file_pattern must be strings, got {p!r}")
        out.append(p)
    return out


def _matching(pattern):
    """The paths matching ``pattern`` component by component, as TensorFlow's
    ``matching_files``: ``*``, ``?`` and ``[...]`` within one component, hidden names
    included (unlike Python's glob), ``**`` no different from ``*``."""
    head, parts = ("/", pattern.lstrip("/").split("/")) if pattern.startswith("/") else \
        ("", pattern.split("/"))
    paths = [head]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if not glob.has_magic(part):
            paths = [os.path.join(p, part) if p else part for p in paths]
            paths = [p for p in paths if os.path.lexists(p) and (last or os.path.isdir(p))]
            continue
        found = []
        for p in paths:
            try:
                names = sorted(os.listdir(p or "."))
            except OSError:
                continue
            found += [os.path.join(p, n) if p else n for n in names
                      if fnmatch.fnmatchcase(n, part) and (last or os.path.isdir(
                          os.path.join(p, n) if p else n))]
        paths = found
    return paths


def _spec_compatible(a, b):
    fa, fb = structure.flatten(a), structure.flatten(b)
    return len(fa) == len(fb) and all(
        dtypes.as_dtype(x.dtype) == dtypes.as_dtype(y.dtype) for x, y in zip(fa, fb,
                                                                              strict=True))


class FileMethods:
    """`Dataset`'s methods that read or write files."""

    if TYPE_CHECKING:   # a mixin of `Dataset`: its constructor and attributes, to the checker
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...
        from_tensor_slices: Any

    @classmethod
    def list_files(cls, file_pattern: Any, shuffle: Any = None, seed: Any = None,
                   name: str | None = None) -> Any:
        """The names of the files matching ``file_pattern`` (a glob pattern, or a list of
        them) as string scalars: sorted, then shuffled (``shuffle`` defaults to True;
        ``seed`` makes the order reproducible).

        >>> import finegrad as fg, os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> for n in ("b.txt", "a.txt"): open(os.path.join(d, n), "w").close()
        >>> [os.path.basename(f) for f in
        ...  fg.data.Dataset.list_files(d + "/*.txt", shuffle=False).as_numpy_iterator()]
        [b'a.txt', b'b.txt']

        Raises:
            finegrad.errors.InvalidArgumentError: when no file matches (as ``tf.data``).
        """
        patterns = _patterns(file_pattern)
        names = sorted(m for p in patterns for m in _matching(p))
        if not names:
            raise InvalidArgumentError(f"Dataset.list_files: No files matched pattern: "
                                       f"{', '.join(patterns)}")
        ds = cls.from_tensor_slices(np.array([n.encode() for n in names], dtype=object))
        if shuffle is None or shuffle:
            ds = ds.shuffle(len(names), seed=seed)
        return ds

    def save(self, path: Any, compression: Any = None, shard_func: Any = None,
             checkpoint_args: Any = None) -> None:
        """Writes the elements to the directory ``path`` (finegrad's format, not
        TensorFlow's), in shards chosen by ``shard_func`` (an element to an int64 scalar;
        one shard without it), compressed with ``compression`` (None or "GZIP").

        >>> import finegrad as fg, tempfile
        >>> d = tempfile.mkdtemp()
        >>> fg.data.Dataset.range(3).save(d)
        >>> [int(x) for x in fg.data.Dataset.load(d)]
        [0, 1, 2]

        Raises:
            finegrad.errors.InvalidArgumentError: when ``shard_func`` does not return a
                non-negative int64 scalar.
            finegrad.errors.UnimplementedError: for ``compression="SNAPPY"``.
        """
        fn = "Dataset.save"
        if checkpoint_args is not None:
            raise NotImplementedError(f"{fn}: checkpoint_args (resumable saving) is not "
                                      f"supported")
        codec = record_files.check_compression(compression, fn)
        spec = self.element_spec
        record_files.encode_spec(spec, fn)          # an unsavable spec fails before writing
        path = os.fspath(path)
        tmp = tempfile.mkdtemp(prefix=".finegrad_save_", dir=_parent(path))
        writer = record_files.ShardWriter(tmp, codec)
        try:
            for element in self._make_iterator():
                writer.write(record_files.shard_of(shard_func, element, fn), element)
            writer.finish(spec, fn)
        except BaseException:
            writer.abort()
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _replace_dir(tmp, path)

    @classmethod
    def load(cls, path: Any, element_spec: Any = None, compression: Any = None,
             reader_func: Any = None, wait: bool = False) -> Any:
        """The dataset `save` wrote to ``path``; its element spec is read from there unless
        given. ``reader_func`` turns the dataset of shard datasets into one (by default
        ``tf.data``'s: an interleave of the shards).

        Raises:
            finegrad.errors.NotFoundError: when nothing was saved at ``path``.
            finegrad.errors.DataLossError: when ``compression`` is not the one it was saved
                with.
            ValueError: when ``element_spec`` does not match the saved elements.
        """
        fn = "Dataset.load"
        path = os.fspath(path)
        meta = record_files.read_metadata(path, fn)
        codec = record_files.check_compression(compression, fn)
        if codec != meta["compression"]:
            raise DataLossError(f"{fn}: {path} was saved with compression "
                                f"{meta['compression']!r}, read with {codec!r}")
        saved = record_files.decode_spec(meta["element_spec"])
        if element_spec is not None and not _spec_compatible(saved, element_spec):
            raise ValueError(f"{fn}: element_spec {element_spec!r} does not match the "
                             f"saved elements' {saved!r}")
        return cls._from_shards(path, meta, element_spec or saved, reader_func)

    @classmethod
    def _from_shards(cls, path, meta, spec, reader_func):
        shards = [cls(lambda k=k, n=n: record_files.read_shard(path, k, n, spec,
                                                               meta["compression"]),
                      spec, n) for k, n in meta["shards"]]
        datasets = cls(lambda: iter(shards), DatasetSpec(spec), len(shards))
        if reader_func is None:
            out = datasets.interleave(lambda d: d)
            out._cardinality = sum(n for _, n in meta["shards"])
            out._element_spec = spec
            return out
        return reader_func(datasets)

    def snapshot(self, path: Any, compression: Any = "AUTO", reader_func: Any = None,
                 shard_func: Any = None, name: str | None = None) -> Any:
        """The same elements, written under ``path`` on the first complete iteration and
        read back from there afterwards (in this process and later ones). Snapshots are
        filed by the dataset's `fingerprint`, so a changed pipeline writes a new one.
        ``compression="AUTO"`` writes uncompressed files (TensorFlow's picks Snappy).

        >>> import finegrad as fg, tempfile
        >>> ds = fg.data.Dataset.range(3).map(lambda x: x * 2).snapshot(tempfile.mkdtemp())
        >>> [int(x) for x in ds], [int(x) for x in ds]
        ([0, 2, 4], [0, 2, 4])
        """
        fn = "Dataset.snapshot"
        codec = record_files.check_compression(None if compression == "AUTO" else
                                               compression, fn)
        root = os.fspath(path)

        def make():
            run = os.path.join(root, f"{fingerprint(self):d}")
            if os.path.exists(os.path.join(run, record_files.METADATA)):
                meta = record_files.read_metadata(run, fn)
                spec = record_files.decode_spec(meta["element_spec"])
                return iter(type(self)._from_shards(run, meta, spec,
                                                    reader_func)._make_iterator())
            return _writing(self, run, codec, shard_func, fn)
        return type(self)(make, self._element_spec, self._cardinality)


def _parent(path):
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    return parent


def _replace_dir(tmp, path):
    if os.path.isdir(path) and os.path.exists(os.path.join(path, record_files.METADATA)):
        shutil.rmtree(path)
    elif os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        shutil.rmtree(tmp, ignore_errors=True)
        raise FileExistsError(f"Dataset.save: {path} exists and is not a saved dataset")
    elif os.path.isdir(path):
        os.rmdir(path)
    os.replace(tmp, path)


def _writing(dataset, run, codec, shard_func, fn):
    """The dataset's elements, written to a new snapshot ``run`` as they pass; the snapshot
    is kept only when the iteration reaches the end."""
    tmp = tempfile.mkdtemp(prefix=".finegrad_snapshot_", dir=_parent(run))
    writer = record_files.ShardWriter(tmp, codec)
    done = False
    try:
        for element in dataset._make_iterator():
            writer.write(record_files.shard_of(shard_func, element, fn), element)
            yield element
        writer.finish(dataset.element_spec, fn)
        done = True
    finally:
        if not done:
            writer.abort()
            shutil.rmtree(tmp, ignore_errors=True)
    if os.path.exists(run):          # another iteration finished first
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        os.replace(tmp, run)


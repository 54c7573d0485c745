"""The ``tf.data.Dataset`` methods that touch files: `list_files`, `save`, `load` and
`snapshot` (`FileMethods`, inherited by `Dataset`). The files are TensorFlow's (see
`snapshot_files`); `load` also reads the format of finegrad's earlier releases
(`record_files`)."""
from __future__ import annotations

import fnmatch
import glob
import importlib.util
import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import record_files, snapshot_files, structure, tf_protos
from finegrad._src.data.cardinality import UNKNOWN_CARDINALITY
from finegrad._src.data.fingerprints import fingerprint
from finegrad._src.data.regrouping import DatasetSpec
from finegrad._src.errors import DataLossError, InvalidArgumentError, NotFoundError
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
        """Writes the elements to the directory ``path`` in TensorFlow's format (what
        ``tf.data.Dataset.save`` writes, so ``tf.data.Dataset.load`` reads it and the other
        way round; see `snapshot_files`): in shards chosen by ``shard_func`` (an element to
        an int64 scalar; all in shard 0 without it, as TensorFlow), compressed with
        ``compression`` (None, "GZIP", "ZLIB" or "SNAPPY"; Snappy needs the ``cramjam``
        package, ``pip install "finegrad[data]"``). Saving again to ``path`` adds a new run
        and points the metadata at it, as TensorFlow does.

        >>> import finegrad as fg, tempfile
        >>> d = tempfile.mkdtemp()
        >>> fg.data.Dataset.range(3).save(d, compression="GZIP")
        >>> [int(x) for x in fg.data.Dataset.load(d, compression="GZIP")]
        [0, 1, 2]

        Raises:
            finegrad.errors.InvalidArgumentError: when ``shard_func`` does not return a
                non-negative int64 scalar.
            ImportError: for ``compression="SNAPPY"`` without ``cramjam``.
        """
        fn = "Dataset.save"
        if checkpoint_args is not None:
            raise NotImplementedError(f"{fn}: checkpoint_args (resumable saving) is not "
                                      f"supported")
        codec = snapshot_files.check_compression(compression, fn)
        spec = self.element_spec
        tf_protos.encode_spec(spec, fn)          # an unsavable spec fails before writing
        path = os.fspath(path)
        os.makedirs(path, exist_ok=True)
        _write_run(self._make_iterator(), path, codec, spec, shard_func, fn)

    @classmethod
    def load(cls, path: Any, element_spec: Any = None, compression: Any = None,
             reader_func: Any = None, wait: bool = False) -> Any:
        """The dataset `save` (finegrad's or TensorFlow's) wrote to ``path``, read with the
        ``compression`` it was written with (TensorFlow's format does not record it). The
        element spec is read from ``path`` unless given. ``reader_func`` turns the dataset
        of shard datasets into one (by default ``tf.data``'s: an interleave of the shards).
        ``wait=True`` retries every 5 seconds until something is saved at ``path``.

        Raises:
            finegrad.errors.NotFoundError: when nothing was saved at ``path``.
            finegrad.errors.DataLossError: when iterating a dataset saved with another
                ``compression``, or a corrupted file.
            finegrad.errors.InvalidArgumentError: when iterating with an ``element_spec``
                whose dtypes or shapes are not the saved ones.
        """
        fn = "Dataset.load"
        path = os.fspath(path)
        while True:
            try:
                return cls._load(path, element_spec, compression, reader_func, fn)
            except NotFoundError:
                if not wait:
                    raise
                time.sleep(5)

    @classmethod
    def _load(cls, path, element_spec, compression, reader_func, fn):
        codec = snapshot_files.check_compression(compression, fn)
        if not os.path.exists(os.path.join(path, snapshot_files.METADATA)) and \
                os.path.exists(os.path.join(path, record_files.METADATA)):
            return cls._load_legacy(path, element_spec, codec, reader_func, fn)
        spec = snapshot_files.read_spec(path, fn) if element_spec is None else element_spec
        meta = snapshot_files.read_metadata(path, fn)
        return cls._from_run(path, meta, spec, codec, reader_func, fn)

    @classmethod
    def _from_run(cls, path, meta, spec, codec, reader_func, fn):
        dirs = snapshot_files.shard_dirs(path, meta)
        shards = [cls(lambda d=d: snapshot_files.read_shard(d, spec, meta.version, codec, fn),
                      spec, UNKNOWN_CARDINALITY) for d in dirs]
        datasets = cls(lambda: iter(shards), DatasetSpec(spec), len(shards))
        if reader_func is not None:
            return reader_func(datasets)
        out = datasets.interleave(lambda d: d)
        out._cardinality, out._element_spec = meta.num_elements, spec
        return out

    @classmethod
    def _load_legacy(cls, path, element_spec, codec, reader_func, fn):
        """A directory finegrad's earlier releases saved (its own format)."""
        meta = record_files.read_metadata(path, fn)
        if codec != meta["compression"]:
            raise DataLossError(f"{fn}: {path} was saved with compression "
                                f"{meta['compression']!r}, read with {codec!r}")
        saved = record_files.decode_spec(meta["element_spec"])
        if element_spec is not None and not _spec_compatible(saved, element_spec):
            raise ValueError(f"{fn}: element_spec {element_spec!r} does not match the "
                             f"saved elements' {saved!r}")
        spec = element_spec or saved
        shards = [cls(lambda k=k, n=n: record_files.read_shard(path, k, n, spec,
                                                               meta["compression"]),
                      spec, n) for k, n in meta["shards"]]
        datasets = cls(lambda: iter(shards), DatasetSpec(spec), len(shards))
        if reader_func is not None:
            return reader_func(datasets)
        out = datasets.interleave(lambda d: d)
        out._cardinality = sum(n for _, n in meta["shards"])
        out._element_spec = spec
        return out

    def snapshot(self, path: Any, compression: Any = "AUTO", reader_func: Any = None,
                 shard_func: Any = None, name: str | None = None) -> Any:
        """The same elements, written under ``path`` on the first complete iteration and
        read back from there afterwards (in this process and later ones), in TensorFlow's
        snapshot layout: ``path/<fingerprint>/`` holds ``snapshot.metadata`` and the run's
        shards as ``tf.data.Dataset.snapshot`` writes them (and a ``dataset_spec.pb``, so
        ``tf.data.Dataset.load`` reads the directory). Without ``shard_func`` the elements
        are stored enumerated, ``(index, element)``, in ``index % cpu_count`` shards, and
        ``reader_func`` sees them so, as in TensorFlow. The directory is named by finegrad's
        `fingerprint` of the pipeline, not TensorFlow's graph hash, so TensorFlow's
        ``snapshot`` does not find finegrad's snapshots nor finegrad TensorFlow's.
        ``compression="AUTO"`` is "SNAPPY" when ``cramjam`` is installed (TensorFlow's
        choice), else no compression; reading back finds which was written.

        >>> import finegrad as fg, tempfile
        >>> ds = fg.data.Dataset.range(3).map(lambda x: x * 2).snapshot(tempfile.mkdtemp())
        >>> [int(x) for x in ds], [int(x) for x in ds]
        ([0, 2, 4], [0, 2, 4])
        """
        fn = "Dataset.snapshot"
        auto = compression == "AUTO"
        codec = snapshot_files.check_compression(_auto_compression() if auto else
                                                 compression, fn)
        root = os.fspath(path)
        stored = self if shard_func is not None else self.enumerate()
        cpus = os.cpu_count() or 1
        shards = shard_func if shard_func is not None else (lambda i, _: i % cpus)
        project = None if shard_func is not None else (lambda e: e[1])

        def make():
            run = os.path.join(root, f"{fingerprint(self):d}")
            meta = _finished(run, fn)
            if meta is None:
                return _writing(stored, run, codec, shards, fn, project)
            read_codec = snapshot_files.sniff_compression(run, meta) if auto else codec
            ds = type(self)._from_run(run, meta, snapshot_files.read_spec(run, fn),
                                      read_codec, reader_func, fn)
            it = ds._make_iterator()
            return it if project is None else map(project, it)
        return type(self)(make, self._element_spec, self._cardinality)


def _auto_compression():
    return "SNAPPY" if importlib.util.find_spec("cramjam") is not None else None


def _finished(run, fn):
    """The metadata of a finished snapshot in ``run``, or None."""
    try:
        meta = snapshot_files.read_metadata(run, fn)
    except NotFoundError:
        return None
    return meta if meta.finalized else None


def _write_run(elements, path, codec, spec, shard_func, fn):
    writer = snapshot_files.RunWriter(path, codec, fn)
    try:
        for element in elements:
            writer.write(snapshot_files.shard_of(shard_func, element, fn), element)
    except BaseException:
        writer.abort()
        raise
    writer.finish(path, spec)


def _writing(dataset, run, codec, shard_func, fn, project):
    """The dataset's elements (``project``-ed), written to a new snapshot run under ``run``
    as they pass; the snapshot is kept only when the iteration reaches the end."""
    os.makedirs(run, exist_ok=True)
    writer = snapshot_files.RunWriter(run, codec, fn)
    done = False
    try:
        for element in dataset._make_iterator():
            writer.write(snapshot_files.shard_of(shard_func, element, fn), element)
            yield element if project is None else project(element)
        done = True
    finally:
        if not done:
            writer.abort()
    writer.finish(run, dataset.element_spec, graph_hash=os.path.basename(run))

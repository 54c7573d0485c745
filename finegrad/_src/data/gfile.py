"""``tf.io.gfile`` on the local file system: `GFile` and the file functions, raising
TensorFlow's errors (``NotFoundError``, ``AlreadyExistsError``, ``FailedPreconditionError``)
where TensorFlow's local file system does."""
from __future__ import annotations

import collections
import os
import shutil
from typing import Any

from finegrad._src.data.files import _matching
from finegrad._src.errors import (AlreadyExistsError, FailedPreconditionError,
                                  NotFoundError, OpError)

FileStatistics = collections.namedtuple("FileStatistics", "length mtime_nsec is_directory")


def _p(path: Any) -> str:
    return os.fsdecode(path)


def _missing(path: str) -> NotFoundError:
    return NotFoundError(f"{path}; No such file or directory")


class GFile:
    """A file, as ``tf.io.gfile.GFile``: ``mode`` as ``open``'s ("r", "rb", "w", "wb",
    "a", ...); text modes read str, binary modes bytes; ``write`` takes either.

    >>> import finegrad as fg, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> with fg.io.gfile.GFile(path, "w") as f:
    ...     f.write("a\\nb\\n")
    >>> with fg.io.gfile.GFile(path) as f:
    ...     f.readlines()
    ['a\\n', 'b\\n']

    Raises:
        finegrad.errors.NotFoundError: (when first read) when the file does not exist.
    """

    def __init__(self, name: Any, mode: str = "r") -> None:
        self.name = _p(name)
        self.mode = mode
        self._binary = "b" in mode
        self._file: Any = None

    def _open(self) -> Any:
        if self._file is None:
            mode = self.mode if self._binary else self.mode.replace("t", "") + "b"
            try:
                self._file = open(self.name, mode)
            except FileNotFoundError:
                raise _missing(self.name) from None
            except IsADirectoryError:
                raise FailedPreconditionError(f"{self.name}; Is a directory") from None
        return self._file

    def _out(self, data: bytes) -> Any:
        return data if self._binary else data.decode()

    def read(self, n: int = -1) -> Any:
        """``n`` bytes (all that is left when ``n`` is -1)."""
        return self._out(self._open().read(n))

    def readline(self) -> Any:
        return self._out(self._open().readline())

    def readlines(self) -> list[Any]:
        return [self._out(line) for line in self._open().readlines()]

    def __iter__(self) -> Any:
        return iter(self.readlines())

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, file_content: Any) -> None:
        data = file_content.encode() if isinstance(file_content, str) else file_content
        self._open().write(bytes(data))

    def seek(self, offset: int = 0, whence: int = 0) -> int:
        return int(self._open().seek(offset, whence))

    def tell(self) -> int:
        return int(self._open().tell())

    def size(self) -> int:
        """The file's length in bytes."""
        return stat(self.name).length

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def exists(path: Any) -> bool:
    """Whether ``path`` exists (a file or a directory)."""
    return os.path.exists(_p(path))


def isdir(path: Any) -> bool:
    """Whether ``path`` is a directory."""
    return os.path.isdir(_p(path))


def glob(pattern: Any) -> list[str]:
    """The paths matching ``pattern`` (or each pattern of a list), TensorFlow's way:
    ``*``, ``?`` and ``[...]`` within a path component, hidden names included.

    >>> import finegrad as fg, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> fg.io.write_file(os.path.join(d, "a.txt"), "")
    >>> [os.path.basename(p) for p in fg.io.gfile.glob(os.path.join(d, "*.txt"))]
    ['a.txt']
    """
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    return sorted({m for p in patterns for m in _matching(_p(p))})


def listdir(path: Any) -> list[str]:
    """The names in the directory ``path`` (not "." or "..").

    Raises:
        finegrad.errors.NotFoundError: when ``path`` is not a directory.
    """
    path = _p(path)
    if not os.path.isdir(path):
        raise NotFoundError(f"Could not find directory {path}")
    return sorted(os.listdir(path))


def makedirs(path: Any) -> None:
    """Creates the directory ``path`` and its missing parents (none when it exists)."""
    path = _p(path)
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FailedPreconditionError(f"{path}; Not a directory") from None


def mkdir(path: Any) -> None:
    """Creates the directory ``path``, whose parent must exist.

    Raises:
        finegrad.errors.NotFoundError: when the parent does not exist.
    """
    path = _p(path)
    if os.path.isdir(path):
        return
    try:
        os.mkdir(path)
    except FileNotFoundError:
        raise _missing(path) from None


def remove(path: Any) -> None:
    """Deletes the file ``path``.

    Raises:
        finegrad.errors.NotFoundError: when it does not exist.
        finegrad.errors.FailedPreconditionError: when it is a directory.
    """
    path = _p(path)
    if os.path.isdir(path):
        raise FailedPreconditionError(f"{path}; Is a directory")
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _missing(path) from None


def rmtree(path: Any) -> None:
    """Deletes the directory ``path`` and everything in it.

    Raises:
        finegrad.errors.NotFoundError: when it does not exist.
    """
    path = _p(path)
    if not os.path.exists(path):
        raise NotFoundError(f"{path} not found")
    shutil.rmtree(path)


def _check_target(src: str, dst: str, overwrite: bool) -> None:
    if not os.path.exists(src):
        raise _missing(src)
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError("file already exists")


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Moves ``src`` to ``dst``.

    Raises:
        finegrad.errors.NotFoundError: when ``src`` does not exist.
        finegrad.errors.AlreadyExistsError: when ``dst`` exists and not ``overwrite``.
    """
    src, dst = _p(src), _p(dst)
    _check_target(src, dst, overwrite)
    os.replace(src, dst)


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file ``src`` to ``dst``.

    Raises:
        finegrad.errors.NotFoundError: when ``src`` does not exist.
        finegrad.errors.AlreadyExistsError: when ``dst`` exists and not ``overwrite``.
    """
    src, dst = _p(src), _p(dst)
    _check_target(src, dst, overwrite)
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise OpError(f"copy: {src} to {dst}: {e}") from None


def stat(path: Any) -> FileStatistics:
    """``path``'s length in bytes, modification time (ns) and whether it is a directory.

    Raises:
        finegrad.errors.NotFoundError: when it does not exist.
    """
    path = _p(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _missing(path) from None
    return FileStatistics(int(st.st_size), int(st.st_mtime_ns), os.path.isdir(path))


def walk(top: Any, topdown: bool = True, onerror: Any = None) -> Any:
    """``(dirname, subdirs, files)`` for each directory under ``top`` (names sorted, as
    TensorFlow's); nothing for a ``top`` that does not exist."""
    for dirname, subdirs, files in os.walk(_p(top), topdown=topdown, onerror=onerror):
        subdirs.sort()
        yield dirname, subdirs, sorted(files)


def join(path: Any, *paths: Any) -> str:
    """The paths joined with "/" (a later absolute path starts afresh), as ``os.path.join``.

    >>> import finegrad as fg
    >>> fg.io.gfile.join("a", "b", "c.txt")
    'a/b/c.txt'
    """
    return os.path.join(_p(path), *[_p(p) for p in paths])


def get_registered_schemes() -> list[str]:
    """The URL schemes the file functions understand: only the local file system's."""
    return ["file"]

"""``tf.train.Checkpoint``: save the variables an object graph holds, restore them by path.

The model is TensorFlow's object-based checkpointing. From the root (a ``Checkpoint`` and the
objects given to it as keywords) a breadth-first walk follows attributes in name order: through
``Module``s, Keras layers, models, optimizers and metrics (any object with a ``variables``
attribute; one with ``_checkpoint_children()`` lists its own edges), lists and tuples (children
``"0"``, ``"1"``, ...), and dicts (their keys). Each variable is saved once, under the first
path that reaches it, with TensorFlow's key (``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``).
Restoring walks the new program's objects the same way and assigns by key, so a checkpoint loads
into any program that builds the same attribute structure, whatever its variables' names.

The files are finegrad's own format, documented here and in docs/saving.md (TensorFlow's
``.index``/``.data`` files cannot be read or written):

- ``PREFIX.index``: JSON, ``{"format": "finegrad-checkpoint", "version": 1, "variables":
  {key: {"dtype": str, "shape": [int, ...]}}}``;
- ``PREFIX.data.npz``: NumPy's ``.npz`` archive, one array per key;
- ``DIRECTORY/checkpoint``: TensorFlow's text state file (``model_checkpoint_path: "ckpt-2"``),
  written by ``save`` and ``CheckpointManager``, read by ``latest_checkpoint``.

Variables created after ``restore`` (a Keras layer built on its first call, an optimizer's slots
made at its first step) are restored when they are created, as in TensorFlow, where the code
that creates them reports them through ``restore_on_creation``.
"""
from __future__ import annotations

import json
import os
import weakref
from collections import deque
from collections.abc import Iterator
from typing import Any

import numpy as np

from finegrad._src.errors import NotFoundError
from finegrad._src.api.module import Module
from finegrad._src.variables import Variable

__all__ = ["Checkpoint", "CheckpointLoadStatus", "InitializationOnlyStatus",
           "latest_checkpoint", "list_variables", "load_variable", "restore_on_creation"]

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_FORMAT = "finegrad-checkpoint"

# owner object -> {attribute name: (checkpoint key, saved value)} of values restored before the
# variable existed; weak, so a checkpoint never keeps a model alive
_deferred: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _is_trackable(x: Any) -> bool:
    return isinstance(x, (Variable, Module, Checkpoint)) or (
        not isinstance(x, type) and hasattr(type(x), "variables") and hasattr(x, "__dict__"))


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    """The (name, child) edges of the object graph leaving ``obj``, in name order."""
    if isinstance(obj, Variable):
        return
    if isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        items = sorted((str(k), v) for k, v in obj.items())
    elif isinstance(obj, Checkpoint):
        items = sorted(obj._root.items())
    elif hasattr(type(obj), "_checkpoint_children"):   # an object that says what to follow
        items = list(obj._checkpoint_children())
    else:
        items = sorted(vars(obj).items())
    for name, child in items:
        if _is_trackable(child) or (isinstance(child, (list, tuple, dict)) and child):
            yield name, child


def _walk(root: Any) -> tuple[dict[str, Variable], dict[int, str]]:
    """Breadth first from ``root``: {key: variable} (first path wins) and {id(obj): path}."""
    variables: dict[str, Variable] = {}
    paths: dict[int, str] = {id(root): ""}
    queue = deque([(root, "")])
    while queue:
        obj, path = queue.popleft()
        for name, child in _children(obj):
            if id(child) in paths:
                continue
            child_path = f"{path}/{name}" if path else name
            paths[id(child)] = child_path
            if isinstance(child, Variable):
                variables[child_path + _SUFFIX] = child
            else:
                queue.append((child, child_path))
    return variables, paths


def _write(prefix: str, variables: dict[str, Variable]) -> None:
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    arrays = {k: np.asarray(v.numpy()) for k, v in variables.items()}
    index = {"format": _FORMAT, "version": 1,
             "variables": {k: {"dtype": str(a.dtype), "shape": list(a.shape)}
                           for k, a in arrays.items()}}
    with open(prefix + ".data.npz", "wb") as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]  # (numpy's stub types **kwds as bool)
    with open(prefix + ".index", "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1, sort_keys=True)


def _read(prefix: str, where: str) -> dict[str, np.ndarray]:
    prefix = os.fspath(prefix)
    if not os.path.exists(prefix + ".index"):
        raise NotFoundError(None, None, f"{where}: no finegrad checkpoint at {prefix!r} (looked "
                                        f"for {prefix}.index); TensorFlow's own checkpoint "
                                        f"files cannot be read")
    with open(prefix + ".index", encoding="utf-8") as f:
        index = json.load(f)
    if index.get("format") != _FORMAT:
        raise ValueError(f"{where}: {prefix}.index is not a finegrad checkpoint index")
    with np.load(prefix + ".data.npz", allow_pickle=False) as data:
        return {k: data[k] for k in index["variables"]}


def _assign(var: Variable, value: np.ndarray, key: str) -> None:
    if tuple(var.shape.as_list()) != tuple(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when "
                         f"attempting to restore variable with shape "
                         f"{tuple(var.shape.as_list())} and name {var.name} (checkpoint key "
                         f"{key!r}).")
    var.assign(value.astype(var.dtype._np, copy=False))


class CheckpointLoadStatus:
    """What a ``restore`` matched; its ``assert_*`` methods check it, as TensorFlow's.

    ``unmatched_keys`` are checkpoint values no object has (yet); ``unmatched_variables``
    existing variables the checkpoint has no value for.
    """

    def __init__(self, root: Any, values: dict[str, np.ndarray], restored: set[str]):
        self._root, self._values, self._restored = root, values, restored

    def _current(self) -> tuple[list[str], list[str]]:
        variables, _ = _walk(self._root)
        keys = [k for k in self._values if k not in self._restored and k not in variables]
        missing = [k for k in variables if k not in self._values]
        return keys, missing

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every value of the checkpoint found its variable, and every variable a value."""
        keys, missing = self._current()
        if keys:
            raise AssertionError(f"Unresolved object in checkpoint: {keys}")
        if missing:
            raise AssertionError(f"Some objects had no checkpointed value: {missing}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable that exists now got a value from the checkpoint."""
        _, missing = self._current()
        if missing:
            raise AssertionError(f"Some objects had no checkpointed value: {missing}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """At least one value of the checkpoint was restored."""
        if not self._restored:
            raise AssertionError("Nothing except the root object matched a checkpointed value.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Say that a partial restore is intended (finegrad never warns about one)."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: eager restores assign at once."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: eager restores assign at once."""


class InitializationOnlyStatus(CheckpointLoadStatus):
    """The status of ``restore(None)``: nothing was restored, every check but
    ``assert_nontrivial_match`` passes vacuously."""

    def __init__(self, root: Any):
        super().__init__(root, {}, set())

    def assert_consumed(self) -> CheckpointLoadStatus:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")


def restore_on_creation(owner: Any, name: str, variable: Variable) -> None:
    """Give ``variable`` (just created as ``owner.<name>``) the value a ``restore`` made
    earlier kept for it, if any. Layers call this when a variable is set as an attribute
    (its checkpoint key), optimizers when they
    make their slots."""
    pending = _deferred.get(owner)
    if pending and name in pending:
        key, value = pending.pop(name)
        _assign(variable, value, key)


class Checkpoint:
    """Groups trackable objects (variables, Modules, Keras layers, models, optimizers) to save
    and restore their variables (``tf.train.Checkpoint``).

    >>> import tempfile, finegrad as tf
    >>> v = tf.Variable(1.)
    >>> ckpt = tf.train.Checkpoint(v=v)
    >>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
    >>> path.endswith("ckpt-1")
    True
    >>> _ = v.assign(5.)
    >>> _ = ckpt.restore(path).assert_consumed()
    >>> v.numpy()
    np.float32(1.0)
    """

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        if root is not None:
            kwargs["root"] = root
        for name, value in kwargs.items():
            if not (_is_trackable(value) or isinstance(value, (list, tuple, dict))):
                raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object "
                                 f"(a Variable, Module, Keras layer, model or optimizer, or a "
                                 f"list or dict of them), got {type(value).__name__}.")
        self._root = dict(kwargs)
        self._save_counter: Variable | None = None

    def __getattr__(self, name: str) -> Any:
        root = self.__dict__.get("_root", {})
        if name in root:
            return root[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    @property
    def save_counter(self) -> Variable:
        """How many times ``save`` ran (an int64 Variable, saved with the checkpoint)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
            self._root["save_counter"] = self._save_counter
        return self._save_counter

    def write(self, file_prefix: str, options: Any = None) -> str:
        """Write the variables to exactly ``file_prefix`` (no counter, no state file)."""
        file_prefix = os.fspath(file_prefix)
        _write(file_prefix, _walk(self)[0])
        return file_prefix

    def save(self, file_prefix: str, options: Any = None) -> str:
        """Write ``file_prefix-N`` (N = the incremented ``save_counter``) and record it in the
        directory's ``checkpoint`` file; returns the path written."""
        self.save_counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}")
        _update_state(os.path.dirname(path), path)
        return path

    def read(self, save_path: str, options: Any = None) -> CheckpointLoadStatus:
        """Restore from a path written by ``write`` (or ``save``)."""
        return self.restore(save_path, options)

    def restore(self, save_path: str | None, options: Any = None) -> CheckpointLoadStatus:
        """Assign the saved values to the variables at the same paths; values whose variable
        does not exist yet are kept and assigned when it is created (``restore_on_creation``)."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        values = _read(save_path, "Checkpoint.restore")
        if "save_counter" + _SUFFIX in values:
            _ = self.save_counter   # made now, so that the walk below restores it
        variables, paths = _walk(self)
        restored = set()
        for key, value in values.items():
            if key in variables:
                _assign(variables[key], value, key)
                restored.add(key)
        _defer(self, {k: v for k, v in values.items() if k not in restored}, paths)
        return CheckpointLoadStatus(self, values, restored)


def _defer(root: Any, values: dict[str, np.ndarray], paths: dict[int, str]) -> None:
    """Keep unmatched values on the objects that would own them (by path)."""
    owners = {}
    for obj in _objects(root):
        owners[paths.get(id(obj))] = obj
    for key, value in values.items():
        owner_path, _, name = key[:-len(_SUFFIX)].rpartition("/")
        # a value whose owner is a list or dict (or not made yet) waits on the nearest object
        # above it, under the rest of its path ("_variables/3" for an optimizer's slot)
        while owner_path and not _weakly_referenceable(owners.get(owner_path)):
            owner_path, _, step = owner_path.rpartition("/")
            name = f"{step}/{name}"
        owner = owners.get(owner_path)
        if _weakly_referenceable(owner):
            _deferred.setdefault(owner, {})[name] = (key, value)


def _weakly_referenceable(obj: Any) -> bool:
    if obj is None:
        return False
    try:
        weakref.ref(obj)
    except TypeError:
        return False
    return True


def _objects(root: Any) -> Iterator[Any]:
    seen, queue = {id(root)}, deque([root])
    while queue:
        obj = queue.popleft()
        yield obj
        for _, child in _children(obj):
            if id(child) not in seen and not isinstance(child, Variable):
                seen.add(id(child))
                queue.append(child)


# -- the directory's state file (TensorFlow's text format) ----------------------------------
def _state_path(directory: str) -> str:
    return os.path.join(directory or ".", "checkpoint")


def read_state(directory: str) -> tuple[str | None, list[str]]:
    """(latest checkpoint prefix, every recorded prefix) from ``directory/checkpoint``."""
    try:
        with open(_state_path(directory), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None, []
    latest, everything = None, []
    for line in lines:
        field, _, value = line.partition(":")
        value = value.strip().strip('"')
        path = value if os.path.isabs(value) else os.path.join(directory, value)
        if field == "model_checkpoint_path":
            latest = path
        elif field == "all_model_checkpoint_paths":
            everything.append(path)
    return latest, everything


def write_state(directory: str, latest: str, everything: list[str]) -> None:
    """Write ``directory/checkpoint`` with paths relative to the directory, as TensorFlow."""
    rel = lambda p: os.path.relpath(p, directory or ".")  # noqa: E731
    text = f'model_checkpoint_path: "{rel(latest)}"\n' + "".join(
        f'all_model_checkpoint_paths: "{rel(p)}"\n' for p in everything)
    with open(_state_path(directory), "w", encoding="utf-8") as f:
        f.write(text)


def _update_state(directory: str, path: str) -> list[str]:
    _, everything = read_state(directory)
    everything = [p for p in everything if p != path] + [path]
    write_state(directory, path, everything)
    return everything


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in ``checkpoint_dir``, or None.

    >>> import tempfile, finegrad as tf
    >>> tf.train.latest_checkpoint(tempfile.mkdtemp()) is None
    True
    """
    latest, _ = read_state(os.fspath(checkpoint_dir))
    return latest if latest is not None and os.path.exists(latest + ".index") else None


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """``(key, shape)`` of every value in a checkpoint (a prefix or a directory), by key."""
    values = _read(_prefix(ckpt_dir_or_file), "train.list_variables")
    return [(k, list(values[k].shape)) for k in sorted(values)]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The saved value of key ``name`` (``.ATTRIBUTES/VARIABLE_VALUE`` may be left out)."""
    values = _read(_prefix(ckpt_dir_or_file), "train.load_variable")
    key = name if name in values else name + _SUFFIX
    if key not in values:
        raise NotFoundError(None, None, f"train.load_variable: key {name!r} not found in "
                                        f"checkpoint; it has {sorted(values)}")
    return values[key]


def _prefix(ckpt_dir_or_file: str) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        return latest
    return path

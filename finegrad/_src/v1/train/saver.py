"""TensorFlow 1's ``train.Saver`` and ``latest_checkpoint``, on NumPy's ``.npz`` files.

A checkpoint ``<prefix>`` is one file, ``<prefix>.npz`` (`numpy.savez`): one array per
variable, keyed by the variable's name without the ``:0`` (``"dense/w"``), or by the key of
``var_list`` when it is a dict. Beside it, the directory's ``checkpoint`` file is TensorFlow's
text state (``model_checkpoint_path: "<prefix>"`` then one ``all_model_checkpoint_paths``
line per kept checkpoint), so `latest_checkpoint` finds the newest. TensorFlow's own
checkpoint files (``.index``/``.data``) are not read or written.
"""

from __future__ import annotations

import os

import numpy as np

from finegrad._src.errors import InvalidArgumentError, NotFoundError
from finegrad._src.v1 import variable_scope as vs
from finegrad._src.variables import Variable

from typing import Any


class Saver:
    """Saves and restores variables (of a session, or eagerly their own values).

    >>> import os, tempfile
    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> d = tempfile.mkdtemp()
    >>> with fg.Graph().as_default():
    ...     w = v1.get_variable("w", initializer=fg.constant([1., 2.]))
    ...     saver = v1.train.Saver()
    ...     with v1.Session() as sess:
    ...         sess.run(w.initializer)
    ...         path = saver.save(sess, os.path.join(d, "model"), global_step=7)
    ...     with v1.Session() as sess:
    ...         saver.restore(sess, v1.train.latest_checkpoint(d))
    ...         sess.run(w)
    array([1., 2.], dtype=float32)
    >>> os.path.basename(path)
    'model-7'
    """

    def __init__(self, var_list: Any = None, reshape: Any = False, sharded: Any = False,
                 max_to_keep: Any = 5, keep_checkpoint_every_n_hours: Any = 10000.0,
                 name: str | None = None, restore_sequentially: Any = False, saver_def: Any = None,
                 builder: Any = None, defer_build: Any = False, allow_empty: Any = False,
                 write_version: Any = 2, pad_step_number: Any = False,
                 save_relative_paths: Any = False, filename: Any = None,
                 save_debug_info: Any = False) -> None:
        if var_list is None:
            var_list = vs.global_variables()
        if isinstance(var_list, dict):
            self._vars = dict(var_list)
        else:
            self._vars = {}
            for v in var_list:
                if not isinstance(v, Variable):
                    raise TypeError(f"Saver: var_list holds {type(v).__name__}, not variables")
                self._vars[v.name.rpartition(":")[0] or v.name] = v
        if not self._vars and not allow_empty:
            raise ValueError("No variables to save")
        self._max_to_keep = max_to_keep
        self._kept: list[Any] = []

    @property
    def last_checkpoints(self) -> Any:
        return list(self._kept)

    def save(self, sess: Any, save_path: Any, global_step: Any = None, latest_filename: Any = None,
             meta_graph_suffix: Any = "meta", write_meta_graph: Any = True, write_state: Any = True,
             strip_default_attrs: Any = False, save_debug_info: Any = False) -> str:
        """Write the variables' values in ``sess`` to ``<save_path>[-<global_step>].npz``;
        returns that prefix.

        Raises:
            ValueError: when the directory of ``save_path`` does not exist (TensorFlow's).
        """
        if global_step is not None:
            step = global_step
            if not isinstance(step, (int, np.integer)):
                step = sess.run(step) if sess is not None else step.numpy()
            save_path = f"{save_path}-{int(step)}"
        names = list(self._vars)
        values = sess.run([self._vars[n] for n in names]) if sess is not None else \
            [self._vars[n].numpy() for n in names]
        directory = os.path.dirname(save_path)
        if directory and not os.path.isdir(directory):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        # numpy's stub matches a ** mapping against savez's allow_pickle: bool as well
        np.savez(save_path + ".npz", **{n: np.asarray(v) for n, v in zip(  # type: ignore[arg-type]
            names, values, strict=True)})
        if save_path in self._kept:
            self._kept.remove(save_path)
        self._kept.append(save_path)
        while self._max_to_keep and len(self._kept) > self._max_to_keep:
            old = self._kept.pop(0)
            if os.path.exists(old + ".npz"):
                os.remove(old + ".npz")
        if write_state:
            _write_state(directory, latest_filename or "checkpoint", self._kept)
        return save_path

    def restore(self, sess: Any, save_path: Any) -> None:
        """Give the variables the values saved at ``save_path`` (a prefix `save` returned).

        Raises:
            ValueError: when ``save_path`` is None or no checkpoint is there.
            finegrad.errors.NotFoundError: when a variable is not in the checkpoint.
            finegrad.errors.InvalidArgumentError: when a saved shape differs.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not os.path.exists(save_path + ".npz"):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        with np.load(save_path + ".npz") as data:
            for name, var in self._vars.items():
                if name not in data:
                    raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
                value = data[name]
                if value.shape != tuple(var.shape):
                    raise InvalidArgumentError(
                        None, None, f"Assign requires shapes of both tensors to match. lhs "
                        f"shape= {list(var.shape)} rhs shape= {list(value.shape)} "
                        f"(variable {name})")
                value = np.asarray(value, var._storage.dtype)
                if sess is None:
                    var.assign(value)
                else:
                    sess._values[id(var)] = value


def _write_state(directory, filename, kept):
    def rel(p):
        return os.path.relpath(p, directory) if directory else p
    lines = [f'model_checkpoint_path: "{rel(kept[-1])}"']
    lines += [f'all_model_checkpoint_paths: "{rel(p)}"' for p in kept]
    with open(os.path.join(directory, filename), "w") as f:
        f.write("\n".join(lines) + "\n")


def latest_checkpoint(checkpoint_dir: Any, latest_filename: Any = None) -> Any:
    """The prefix of the newest checkpoint that `Saver.save` recorded in ``checkpoint_dir``,
    or None."""
    state = os.path.join(checkpoint_dir, latest_filename or "checkpoint")
    if not os.path.exists(state):
        return None
    with open(state) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model_checkpoint_path":
                path = value.strip().strip('"')
                path = path if os.path.isabs(path) else os.path.join(checkpoint_dir, path)
                return path if os.path.exists(path + ".npz") else None
    return None


def checkpoint_exists(checkpoint_prefix: Any) -> Any:
    return os.path.exists(checkpoint_prefix + ".npz")

"""``tf.saved_model.load``: the object a finegrad SavedModel directory describes.

Loading runs no user Python: the object tree is rebuilt from the JSON as plain restored
objects (`RestoredObject`, a `Module`, so ``variables`` and ``trainable_variables`` work),
the variables are new `Variable`s with the saved values, and each function is a
`RestoredFunction` over the saved graphs: a call runs the graph whose argument specs it
matches, differentiable under tapes (a custom_gradient node differentiates with its saved
rule graph). ``signatures`` maps each saved signature's name to a function of keyword
arguments that returns a dict (``output_0``... for outputs that are not a dict).
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from finegrad._src import nest
from finegrad._src.api.checkpoint import _read
from finegrad._src.api.module import Module
from finegrad._src.graph.compile.symbolic import GuardFailed
from finegrad._src.graph.saved_model.graph_format import decode_graph
from finegrad._src.graph.saved_model.save import (ARRAYS_NAME, FORMAT, JSON_NAME,
                                                   VARIABLES_PREFIX)
from finegrad._src.graph.tracing.concrete import ConcreteFunction
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


class LoadOptions:
    """Options of `load` (``tf.saved_model.LoadOptions``); accepted, no effect here.

    >>> import finegrad as tf
    >>> tf.saved_model.LoadOptions().allow_partial_checkpoint
    False
    """

    def __init__(self, allow_partial_checkpoint: bool = False,
                 experimental_io_device: Any = None,
                 experimental_skip_checkpoint: bool = False,
                 experimental_variable_policy: Any = None,
                 experimental_load_function_aliases: bool = False) -> None:
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


class RestoredObject(Module):
    """An object of a loaded SavedModel: the saved attributes, variables and functions (a
    saved ``__call__`` function makes it callable)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError("this loaded object was saved without a `__call__` function")
        return call(*args, **kwargs)


class _Saved:
    """One saved graph and what calls it serves."""

    def __init__(self, conc: ConcreteFunction, specs: list, python_values: list) -> None:
        self.conc, self.specs, self.python_values = conc, specs, python_values

    def arguments(self, leaves: list) -> list | None:
        """The call's leaves as this graph takes them (tensors of the specs' dtypes), or
        None when they do not fit its specs."""
        if len(leaves) != len(self.conc._is_tensor):
            return None
        specs, pys, out = iter(self.specs), iter(self.python_values), []
        for x, is_tensor in zip(leaves, self.conc._is_tensor, strict=True):
            if not is_tensor:
                if isinstance(x, (Tensor, Variable)) or x != next(pys, object()):
                    return None
                out.append(x)
                continue
            shape, dtype = next(specs)
            if isinstance(x, Variable):
                x = x.read_value()
            elif not isinstance(x, Tensor):
                try:
                    x = convert_to_tensor(x, dtype)
                except (TypeError, ValueError):
                    return None
            if x.dtype.name != dtype or np.ndim(x._value) != len(shape) or any(
                    d is not None and d != n for d, n in zip(shape, np.shape(x._value),
                                                             strict=True)):
                return None
            out.append(x)
        return out


class RestoredFunction:
    """A loaded ``function``: calls run the saved graph their arguments match."""

    def __init__(self, name: str, saved: list[_Saved]) -> None:
        self.__name__ = name
        self._saved = saved

    @property
    def concrete_functions(self) -> list[ConcreteFunction]:
        return [s.conc for s in self._saved]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = nest.flatten((args, kwargs))
        for saved in self._saved:
            fitted = saved.arguments(leaves)
            if fitted is None:
                continue
            a, k = nest.pack_sequence_as((args, kwargs), fitted)
            try:
                return saved.conc(*a, **k)
            except GuardFailed:   # its trace decided sizes these break: the next graph
                continue
        shapes = [getattr(x, "shape", type(x).__name__) for x in leaves]
        raise ValueError(f"Could not find matching concrete function to call loaded from "
                         f"the SavedModel: {self.__name__} was called with {shapes}; the "
                         f"saved graphs take "
                         f"{[s.specs for s in self._saved]}")

    def __repr__(self) -> str:
        return f"<RestoredFunction {self.__name__}: {len(self._saved)} graph(s)>"


class SignatureFunction:
    """A saved signature: keyword arguments (by the input_signature's names) in, a dict of
    outputs out."""

    def __init__(self, name: str, saved: list[_Saved], input_names: list[str]) -> None:
        self.name, self.input_names = name, input_names
        self._function = RestoredFunction(name, saved)

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        if args:
            raise TypeError(f"signature {self.name!r} takes keyword arguments only "
                            f"({self.input_names}), got {len(args)} positional")
        missing = [n for n in self.input_names if n not in kwargs]
        extra = [n for n in kwargs if n not in self.input_names]
        if missing or extra:
            raise TypeError(f"signature {self.name!r} takes {self.input_names}; missing "
                            f"{missing}, unexpected {extra}")
        out = self._function(*[kwargs[n] for n in self.input_names])
        if isinstance(out, dict):
            return out
        flat = nest.flatten(out)
        return {f"output_{i}": t for i, t in enumerate(flat)}


def contains_saved_model(export_dir: Any) -> bool:
    """Whether ``export_dir`` holds a finegrad SavedModel (TensorFlow's ``saved_model.pb``
    is not recognized: finegrad cannot read it).

    >>> import tempfile, finegrad as tf
    >>> tf.saved_model.contains_saved_model(tempfile.mkdtemp())
    False
    """
    return os.path.isfile(os.path.join(os.fspath(export_dir), JSON_NAME))


class _Restorer:
    """Rebuilds the object tree; an object saved once and reached again (``ref``) is the same
    object wherever it is reached."""

    def __init__(self, variables: dict, functions: list[_Saved]) -> None:
        self.variables, self.functions = variables, functions
        self.made: dict[str, Any] = {}
        self.fixups: list[tuple[Any, str, str]] = []   # (object, attribute, ref path)

    def restore(self, node: dict, path: str = "") -> Any:
        kind = node["kind"]
        if kind == "variable":
            return self.variables[node["key"]]
        if kind == "ref":
            return self.made.get(node["path"])
        if kind == "list":
            out: Any = [self.restore(n, f"{path}/{i}" if path else str(i))
                        for i, n in enumerate(node["items"])]
        elif kind == "dict":
            out = {k: self.restore(n, f"{path}/{k}" if path else k)
                   for k, n in node["items"].items()}
        else:
            out = self._object(node, path)
        self.made[path] = out
        return out

    def _object(self, node: dict, path: str) -> RestoredObject:
        obj = RestoredObject()
        self.made[path] = obj
        for name, child in node["children"].items():
            if child["kind"] == "ref" and child["path"] not in self.made:
                self.fixups.append((obj, name, child["path"]))   # made later (a cycle)
                continue
            setattr(obj, name, self.restore(child, f"{path}/{name}" if path else name))
        for name, ids in node["functions"].items():
            setattr(obj, name, RestoredFunction(name, [self.functions[i] for i in ids]))
        return obj

    def finish(self) -> None:
        for obj, name, ref in self.fixups:
            setattr(obj, name, self.made.get(ref))


def _read_document(export_dir: str) -> dict:
    path = os.path.join(export_dir, JSON_NAME)
    if not os.path.isfile(path):
        tf_format = os.path.isfile(os.path.join(export_dir, "saved_model.pb"))
        raise OSError(f"SavedModel file does not exist at: {export_dir}"
                      + (" (it holds TensorFlow's saved_model.pb, which finegrad cannot read)"
                         if tf_format else ""))
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT:
        raise ValueError(f"saved_model.load: {path} is not a finegrad SavedModel")
    return doc


def load(export_dir: Any, tags: Any = None, options: Any = None) -> Any:
    """The object saved by `save` in ``export_dir``: its attributes, variables (new, with the
    saved values and trainability) and functions (`RestoredFunction`), and ``signatures``.

    Raises:
        OSError: when ``export_dir`` holds no finegrad SavedModel.
    """
    export_dir = os.fspath(export_dir)
    doc = _read_document(export_dir)
    values = _read(os.path.join(export_dir, VARIABLES_PREFIX), "saved_model.load")
    variables = {key: Variable(values[key], trainable=meta["trainable"],
                               name=meta["name"].split(":")[0])
                 for key, meta in doc["variables"].items()}
    with np.load(os.path.join(export_dir, ARRAYS_NAME), allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    functions = []
    for entry in doc["functions"]:
        graph = decode_graph(entry["graph"], arrays, variables)
        conc = ConcreteFunction(graph, None, entry["is_tensor"])
        conc.polymorphic = entry["polymorphic"]
        functions.append(_Saved(conc, [(shape, dt) for shape, dt in entry["arg_specs"]],
                                entry["python_values"]))
    restorer = _Restorer(variables, functions)
    root = restorer.restore(doc["root"])
    restorer.finish()
    root.signatures = {name: SignatureFunction(name, [functions[i] for i in s["functions"]],
                                               s["input_names"])
                       for name, s in doc["signatures"].items()}
    return root

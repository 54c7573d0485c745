"""``tf.saved_model.save``: a `Module`'s variables and traced functions in a directory.

The directory (finegrad's own format; TensorFlow's ``saved_model.pb`` can be neither written
nor read, and TensorFlow cannot load this one):

- ``saved_model.json``: ``{"format": "finegrad-saved-model", "version": 1, "root": tree,
  "functions": [...], "signatures": {name: {...}}}``. The tree mirrors the object's
  attributes: ``{"kind": "object", "children": {...}, "functions": {name: [ids]}}``,
  ``{"kind": "variable", "key", "trainable", "name"}``, lists and dicts. Each function is one
  traced graph (`graph_format`) with the specs of the arguments it serves; an object reached
  again is ``{"kind": "ref", "path"}`` (the path where it was saved);
- ``saved_model.npz``: the graphs' constants, by the keys the JSON names;
- ``variables/variables.index`` and ``variables/variables.data.npz``: the variables in the
  checkpoint format of `tf.train.Checkpoint` (keys ``path/.ATTRIBUTES/VARIABLE_VALUE``).

What is saved for a ``function`` attribute: the graph of its ``input_signature`` (for a
``TensorSpec(None)`` of unknown rank, one graph for each rank 0 to 4 whose trace succeeds),
and every graph its calls have traced so far, as TensorFlow does.
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from finegrad._src import nest
from finegrad._src.api.checkpoint import _SUFFIX, _children, _walk, _write
from finegrad._src.graph.saved_model.graph_format import GraphEncoder
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.graph.tracing.concrete import ConcreteFunction
from finegrad._src.graph.tracing.function import Function
from finegrad._src.variables import Variable

FORMAT = "finegrad-saved-model"
JSON_NAME, ARRAYS_NAME = "saved_model.json", "saved_model.npz"
VARIABLES_PREFIX = os.path.join("variables", "variables")
MAX_RANK = 4   # ranks traced for a TensorSpec(None) argument


class SaveOptions:
    """Options of `save` (``tf.saved_model.SaveOptions``): ``experimental_custom_gradients``
    (True, TensorFlow's default: custom_gradient rules are saved and used by the loaded
    functions; False: their gradients go through the recorded forward computation). The
    other TensorFlow options are accepted and have no effect here.

    >>> import finegrad as tf
    >>> tf.saved_model.SaveOptions().experimental_custom_gradients
    True
    """

    def __init__(self, namespace_whitelist: Any = None, save_debug_info: bool = False,
                 function_aliases: Any = None, experimental_debug_stripper: bool = False,
                 experimental_io_device: Any = None, experimental_variable_policy: Any = None,
                 experimental_custom_gradients: bool = True,
                 experimental_image_format: bool = False,
                 experimental_skip_saver: bool = False,
                 experimental_sharding_callback: Any = None, extra_tags: Any = None) -> None:
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.extra_tags = extra_tags


def _functions_of(obj: Any) -> list[tuple[str, Function]]:
    """The ``function`` attributes of ``obj`` (decorated methods bound to it, and instance
    attributes), by name."""
    found = {}
    for name in dir(type(obj)):
        if isinstance(getattr(type(obj), name, None), Function):
            found[name] = getattr(obj, name)
    # (a Keras model's own step functions, `train_function`..., are not exported, as Keras)
    keras_model = hasattr(obj, "_default_save_signature")
    for name, value in vars(obj).items() if hasattr(obj, "__dict__") and not keras_model \
            else ():
        if isinstance(value, Function):
            found[name] = value
    return sorted(found.items())


class _Exporter:
    """Walks the object, then encodes its functions (variable keys known by then)."""

    def __init__(self, options: SaveOptions) -> None:
        self.keys: dict[int, str] = {}          # id(variable) -> checkpoint key
        self.variables: dict[str, Variable] = {}
        self.functions: list[dict] = []
        self.seen: dict[int, str] = {}     # id(object) -> the path it was saved at
        self.encoder = GraphEncoder(self._key, options.experimental_custom_gradients)

    def _key(self, var: Variable) -> str:
        key = self.keys.get(id(var))
        if key is None:   # captured by a function but not an attribute of the object
            key = f"_captured/{len(self.keys)}{_SUFFIX}"
            self.keys[id(var)] = key
            self.variables[key] = var
        return key

    def tree(self, obj: Any, path: str) -> dict:
        if isinstance(obj, Variable):
            key = self.keys.setdefault(id(obj), f"{path}{_SUFFIX}")
            self.variables[key] = obj
            return {"kind": "variable", "key": key, "trainable": bool(obj.trainable),
                    "name": obj.name}
        if id(obj) in self.seen:   # reached again: the loaded attribute is the same object
            return {"kind": "ref", "path": self.seen[id(obj)]}
        self.seen[id(obj)] = path
        children = {name: self.tree(child, f"{path}/{name}" if path else name)
                    for name, child in _children(obj)}
        if isinstance(obj, (list, tuple)):
            return {"kind": "list", "items": [children[str(i)] for i in range(len(obj))
                                              if str(i) in children]}
        if isinstance(obj, dict):
            return {"kind": "dict", "items": children}
        functions = {name: [self.add(c, f"{path}.{name}", py)
                            for c, py in concrete_functions(f)]
                     for name, f in _functions_of(obj)}
        return {"kind": "object", "children": children, "functions": functions}

    def add(self, conc: ConcreteFunction, where: str, python_values: list) -> int:
        """Encode one concrete function; its index in ``functions``."""
        self.encoder.where = f"function {where or 'root'}"
        g = conc.graph
        leaves = [[None if i in g.dyn.get(s, ()) else int(d) for i, d in
                   enumerate(g.meta[s][0])] for s in g.args]
        self.functions.append({"graph": self.encoder.graph(g, conc._builder),
                               "is_tensor": list(conc._is_tensor),
                               "python_values": python_values,
                               "arg_specs": [[shape, np.dtype(g.meta[s][1]).name]
                                             for shape, s in zip(leaves, g.args,
                                                                 strict=True)],
                               "polymorphic": bool(conc.polymorphic)})
        return len(self.functions) - 1


def signature_functions(f: Function) -> list[ConcreteFunction]:
    """The graphs of ``f``'s input_signature: one, or for a spec of unknown rank one per rank
    up to `MAX_RANK` that traces."""
    sig = f._signature
    if all(not isinstance(s, TensorSpec) or s._rank_known for s in nest.flatten(sig)):
        return [f.get_concrete_function()]
    out = []
    for rank in range(MAX_RANK + 1):
        specs = nest.map_structure(
            lambda s, r=rank: TensorSpec([None] * r, s.dtype, s.name)
            if isinstance(s, TensorSpec) and not s._rank_known else s, sig)
        try:
            out.append(f.get_concrete_function(*specs))
        except Exception:   # a rank the function's ops refuse: not saved
            continue
    return out


def concrete_functions(f: Function) -> list[tuple[ConcreteFunction, list]]:
    """The graphs to save for ``f``, each with the values of its Python (non-tensor)
    arguments: its input_signature's (`signature_functions`), then those its calls traced
    (not those traced for a variable or an unhashable object as an argument: a loaded
    function could not match them)."""
    out: list[tuple[ConcreteFunction, list]] = []
    if f._signature is not None:
        out += [(c, []) for c in signature_functions(f)]
    for key, conc in f._cache.items():
        kinds = [k[0] for k in key[1]]
        if "V" not in kinds and "O" not in kinds:
            out.append((conc, [k[2] for k in key[1] if k[0] == "P"]))
    out += [(c, []) for c in f._polys] + [(c, []) for _, c in f._relaxed]
    unique = {id(c): (c, py) for c, py in out}
    return list(unique.values())


def _signature_functions(obj: Any, signatures: Any) -> dict[str, Any]:
    """{name: Function or ConcreteFunction} of ``signatures`` (TensorFlow's rules: None
    takes the object's one function with an input_signature, if there is exactly one)."""
    if signatures is None:
        found = [f for _, f in _functions_of(obj) if f._signature is not None]
        if not found and hasattr(obj, "_default_save_signature"):   # a Keras model
            default = obj._default_save_signature()
            found = [default] if default is not None else []
        return {"serving_default": found[0]} if len(found) == 1 else {}
    if isinstance(signatures, (Function, ConcreteFunction)):
        return {"serving_default": signatures}
    if isinstance(signatures, dict):
        return dict(signatures)
    raise ValueError(f"saved_model.save: `signatures` must be a function, a concrete "
                     f"function or a dict of them, got {type(signatures).__name__}")


def _signature(exporter: _Exporter, name: str, f: Any) -> dict:
    if isinstance(f, Function):
        if f._signature is None:
            raise ValueError(f"saved_model.save: the signature {name!r} is a function "
                             f"without an input_signature; give it one, or pass "
                             f"f.get_concrete_function(...)")
        concs, specs = signature_functions(f), nest.flatten(f._signature)
    else:
        concs, specs = [f], [None] * len(f.graph.args)
    names = [getattr(spec, "name", None) or arg for spec, arg in
             zip(specs, concs[0].graph.arg_names, strict=False)] if concs else []
    return {"functions": [exporter.add(c, f"signature {name}", []) for c in concs],
            "input_names": names}


def save(obj: Any, export_dir: Any, signatures: Any = None, options: Any = None) -> None:
    """Save ``obj`` (a `Module`)'s variables and traced functions to ``export_dir``, in
    finegrad's SavedModel format (see this module; `load` reads it back).

    Args:
        obj: the object: its attributes (modules, variables, lists and dicts of them) and its
            ``function`` attributes are saved.
        export_dir: the directory (made if needed).
        signatures: a function with an input_signature, a concrete function, or a dict of
            them by name; None: the object's one function with an input_signature.
        options: `SaveOptions`.

    Raises:
        ValueError: for a function whose graph holds Python code (``numpy_function``,
            ``py_function``) or another op that cannot be stored.
    """
    options = options or SaveOptions()
    exporter = _Exporter(options)
    for key, var in _walk(obj)[0].items():   # the checkpoint's keys: first path wins
        exporter.keys.setdefault(id(var), key)
    root = exporter.tree(obj, "")
    sigs = {name: _signature(exporter, name, f)
            for name, f in _signature_functions(obj, signatures).items()}
    export_dir = os.fspath(export_dir)
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    meta = {key: {"trainable": bool(v.trainable), "name": v.name}
            for key, v in exporter.variables.items()}
    doc = {"format": FORMAT, "version": 1, "root": root, "functions": exporter.functions,
           "signatures": sigs, "variables": meta}
    with open(os.path.join(export_dir, ARRAYS_NAME), "wb") as out:
        np.savez(out, **exporter.encoder.arrays)  # type: ignore[arg-type]
    _write(os.path.join(export_dir, VARIABLES_PREFIX), exporter.variables)
    with open(os.path.join(export_dir, JSON_NAME), "w", encoding="utf-8") as text:
        json.dump(doc, text)

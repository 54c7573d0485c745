"""``save_weights`` / ``load_weights``: Keras 3's ``.weights.h5`` layout, or the same layout
in a NumPy ``.npz`` file.

Keras 3 stores each layer's own variables under a path made from the attributes that lead to
it: a functional or Sequential model's layers under ``layers/<class name in snake case>``
(``dense``, ``dense_1``... numbered by class, not by layer name), a subclassed model's under
their attribute names (lists and dicts numbered by class too), the root's own variables under
``vars``; each group ``<path>/vars`` holds datasets ``"0"``, ``"1"``... in the layer's own
order (trainable first) and the layer's name as an attribute. A compiled model's optimizer
goes under ``optimizer``. Files written here load in Keras 3 and the reverse.

The format: ``*.weights.h5`` is HDF5 when h5py is installed (the default); without h5py the
same paths go into a NumPy ``.npz`` archive (keys ``"<path>/vars/<i>"``), also what a
``*.npz`` file name asks for. `load_weights` tells the two apart by the file's first bytes.
"""
import os
import warnings

import numpy as np

from finegrad._src.keras.layer import Layer
from finegrad._src.keras.naming import to_snake_case

# attributes the engine sets on layers and models: not children to save
_INTERNAL = frozenset({
    "_trainable_variables", "_non_trainable_variables", "_losses", "_locked", "_called",
    "_tracked_layers", "_dtype_policy", "_name", "_trainable", "built", "autocast",
    "activity_regularizer", "supports_masking", "_input_shape_arg", "_batch_size_arg",
    "_inbound_nodes", "_auto_config_value", "_last_output_shape", "_graph_nodes",
    "_graph_layers", "_graph_operations", "_graph_inputs", "_graph_outputs", "_functional",
    "_stack",
    "optimizer", "compiled", "_compile_state", "train_function", "test_function",
    "predict_function", "history", "stop_training", "loss", "_metrics_state",
    "_compile_config", "_build_config_shapes"})


def _public_name(obj, name):
    """The name Keras's walk over ``dir(obj)`` saves the attribute ``name`` under: a private
    attribute that a public property of the same name returns is met (and saved) first under
    the property's name (``_query_dense`` as ``query_dense``)."""
    prop = getattr(type(obj), name[1:], None) if name.startswith("_") else None
    if isinstance(prop, property):
        try:
            if prop.fget(obj) is obj.__dict__[name]:
                return name[1:]
        except Exception:   # a property that cannot be read now: not a twin
            pass
    return name


def _keras_key(name):
    return f"~{name}" if name.startswith("_") else name   # Keras: private names last


def _children(obj):
    """(attribute name, value) of what may hold state below ``obj``, in Keras's order."""
    if getattr(obj, "_graph_nodes", None) is not None:
        yield "layers", obj.layers
    names = {_public_name(obj, n): n for n in obj.__dict__
             if n not in _INTERNAL and not n.startswith("__")}
    for saved in sorted(names, key=_keras_key):
        yield saved, obj.__dict__[names[saved]]
    optimizer = getattr(obj, "optimizer", None) if isinstance(obj, Layer) else None
    if optimizer is not None and getattr(optimizer, "built", False):
        yield "optimizer", optimizer


def _own_variables(obj):
    """What ``obj`` saves: its variables, or what its ``saved_variables`` puts in their place
    (a LoRA layer's merged kernel, as Keras's ``save_own_variables``)."""
    if isinstance(obj, Layer):
        variables = obj._trainable_variables + obj._non_trainable_variables
        replace = getattr(obj, "saved_variables", None)
        return replace(variables) if replace is not None else variables
    return list(obj.variables)


def _is_saveable(obj):
    return isinstance(obj, Layer) or (hasattr(obj, "variables") and hasattr(obj, "apply") and
                                      hasattr(obj, "iterations"))   # an optimizer


def collect(obj, path="", seen=None, out=None):
    """{group path: (name, [variables])} for ``obj`` and everything below it."""
    seen = set() if seen is None else seen
    out = {} if out is None else out
    if id(obj) in seen:
        return out
    seen.add(id(obj))
    out[path] = (getattr(obj, "name", type(obj).__name__), _own_variables(obj))
    for name, child in _children(obj):
        child_path = f"{path}/{name}" if path else name
        if _is_saveable(child):
            collect(child, child_path, seen, out)
        elif isinstance(child, (list, tuple, dict)):
            used = {}
            for item in (child.values() if isinstance(child, dict) else child):
                if not _is_saveable(item):
                    continue
                base = to_snake_case(type(item).__name__)
                used[base] = used.get(base, -1) + 1
                key = base if used[base] == 0 else f"{base}_{used[base]}"
                collect(item, f"{child_path}/{key}", seen, out)
    return out


def _group(path):
    return f"{path}/vars" if path else "vars"


def _check_path(filepath, where):
    filepath = os.fspath(filepath)
    if not (filepath.endswith(".weights.h5") or filepath.endswith(".npz")):
        raise ValueError(f"{where}: the filename must end in `.weights.h5` (Keras 3's format) "
                         f"or `.npz` (finegrad's NumPy layout). Received: filepath={filepath}")
    return filepath


def h5py_module():
    try:
        import h5py   # optional: Keras's HDF5 format
    except ImportError:
        return None
    return h5py


def save_weights(model, filepath, overwrite=True):
    filepath = _check_path(filepath, "Model.save_weights")
    if not overwrite and os.path.exists(filepath):
        answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip()
        if answer.lower() not in ("y", "yes"):
            return
    groups = collect(model)
    h5py = h5py_module() if filepath.endswith(".h5") else None
    if h5py is None:
        arrays = {f"{_group(p)}/{i}": np.asarray(v.numpy())
                  for p, (_, vs) in groups.items() for i, v in enumerate(vs)}
        with open(filepath, "wb") as f:
            np.savez(f, **arrays)
        return
    write_h5(h5py, filepath, groups)


def write_h5(h5py, target, groups):
    """Write `collect`'s groups into an HDF5 file (a path or a binary file object)."""
    with h5py.File(target, "w") as f:
        for path, (name, variables) in groups.items():
            g = f.require_group(_group(path))
            g.attrs["name"] = name
            for i, v in enumerate(variables):
                g.create_dataset(str(i), data=np.asarray(v.numpy()))


def _read(filepath):
    """{group path: {index: array}} from either format."""
    with open(filepath, "rb") as f:
        magic = f.read(4)
    out = {}
    if magic.startswith(b"PK"):
        with np.load(filepath, allow_pickle=False) as data:
            for key in data.files:
                group, _, i = key.rpartition("/")
                out.setdefault(group, {})[int(i)] = data[key]
        return out
    h5py = h5py_module()
    if h5py is None:
        raise ImportError(f"Model.load_weights: {filepath} is an HDF5 file; reading it needs "
                          f"h5py (pip install h5py, or finegrad[keras])")
    return read_h5(h5py, filepath)


def read_h5(h5py, source):
    """{group path: {index: array}} of an HDF5 weights file (a path or a file object)."""
    out = {}
    with h5py.File(source, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                group, _, i = name.rpartition("/")
                out.setdefault(group, {})[int(i)] = obj[()]
        f.visititems(visit)
    return out


def load_weights(model, filepath, skip_mismatch=False):
    filepath = _check_path(filepath, "Model.load_weights")
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"Model.load_weights: no file at {filepath}")
    assign(model, _read(filepath), skip_mismatch)


def assign(model, stored, skip_mismatch=False):
    """Give ``model``'s variables the values of `read_h5`'s dict, group by group."""
    for path, (name, variables) in collect(model).items():
        values = stored.get(_group(path), {})
        if path.startswith("optimizer") or "/optimizer" in path:
            if len(values) != len(variables):
                warnings.warn(f"Skipping the optimizer's variables: the file has "
                              f"{len(values)}, the optimizer {len(variables)}", stacklevel=3)
                continue
        if len(values) != len(variables):
            msg = (f"Layer '{name}' expected {len(variables)} variables, but received "
                   f"{len(values)} variables during loading. Expected: "
                   f"{[v.name for v in variables]}")
            if skip_mismatch:
                warnings.warn(msg, stacklevel=3)
                continue
            raise ValueError(msg)
        for i, v in enumerate(variables):
            value = values[i]
            if tuple(v.shape) != value.shape:
                msg = (f"The shape of the target variable and the shape of the target value "
                       f"in `variable.assign(value)` must match. variable.shape={v.shape}, "
                       f"Received: value.shape={value.shape}. Target variable: {v}")
                if skip_mismatch:
                    warnings.warn(msg, stacklevel=3)
                    continue
                raise ValueError(msg)
            v.assign(value.astype(v.dtype._np))

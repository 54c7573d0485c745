"""Model configs in Keras 3's layout: ``model.get_config()`` and ``Model.from_config``.

A layer serializes as ``{"module", "class_name", "config", "registered_name"}``. A
functional model's config lists its layers, each with ``name`` and ``inbound_nodes`` (one
``{"args", "kwargs"}`` per call, the symbolic tensors written as ``__keras_tensor__`` dicts
whose ``keras_history`` is ``[layer name, node index, tensor index]``), then
``input_layers`` and ``output_layers`` (the same references, in the model's structure). A
Sequential's config is its name and its layers. Rebuilding finds each class by name: the
``custom_objects`` given, then every `Layer` subclass defined so far. Operators on symbolic
tensors and `finegrad.ops` calls are entries of Keras's operation classes
(``keras.src.ops.numpy.Add``, `operation_classes`), read back as the same ops calls.
"""
import inspect
import operator

from finegrad._src.keras import dtype_policies, operation_classes, registration
from finegrad._src.keras.input_layer import InputLayer
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.nodes import KerasTensor, Operation, flatten, map_structure
from finegrad._src.keras.object_serialization import (deserialize_keras_object,
                                                      serialize_keras_object)

_VALUES = ("__slice__", "__ellipsis__", "__numpy__", "__tensor__", "__bytes__")

def _getitem(x, key):
    # a key read from JSON is a list where Python wrote a tuple (``x[:, 0]``)
    return operator.getitem(x, tuple(key) if isinstance(key, list) else key)


# the operators of symbolic tensors, and the Keras 3 op class each is saved as
_OPERATORS = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "matmul", "pow", "neg", "abs", "lt", "le", "gt", "ge")}
_OPERATORS["getitem"] = _getitem
_KERAS_OPS = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "truediv": "TrueDivide",
              "matmul": "Matmul", "pow": "Power", "neg": "Negative", "abs": "Absolute",
              "lt": "Less", "le": "LessEqual", "gt": "Greater", "ge": "GreaterEqual",
              "getitem": "GetItem"}
_FROM_KERAS_OPS = {v: k for k, v in _KERAS_OPS.items()}
_OPS_MODULE = "keras.src.ops.numpy"


def _operator_name(fn):
    if fn is operator.getitem:
        return "getitem"
    return next(k for k, v in _OPERATORS.items() if v is fn)


def serialize_layer(layer):
    """Keras's dict for ``layer``: its class, its `get_config` and its ``build_config``."""
    return serialize_keras_object(layer)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def layer_class(name, custom_objects=None, registered_name=None):
    """The Layer class named ``name`` (``custom_objects`` and registered classes first)."""
    for key in (registered_name, name):
        found = registration.get_registered_object(key, custom_objects) if key else None
        if found is not None:
            return found
    found = [c for c in _subclasses(Layer) if c.__name__ == name]
    if not found:
        raise TypeError(f"Could not locate class '{name}'. Make sure custom classes are "
                         f"decorated with `@keras.saving.register_keras_serializable()` or "
                         f"passed in `custom_objects`.")
    builtin = [c for c in found if c.__module__.startswith("finegrad._src.keras")]
    return (builtin or found)[0]


def deserialize_layer(config, custom_objects=None):
    """A new layer from `serialize_layer`'s dict."""
    cls = layer_class(config["class_name"], custom_objects, config.get("registered_name"))
    inner = dict(config.get("config", {}))
    if "custom_objects" in cls.from_config.__code__.co_varnames:   # (models)
        return cls.from_config(inner, custom_objects)
    return cls.from_config(inner)


def _is_functional(op):
    """Whether ``op`` is a functional model (not a Sequential): Keras counts a call of one
    from 1 in ``input_layers``/``output_layers`` (a node its Keras 2 ancestors made)."""
    return getattr(op, "_keras_functional", False) and op._graph_nodes is not None


def _node_index(node, model):
    """The index of ``node`` among its layer's calls that are part of ``model``'s graph."""
    own = model._graph_nodes
    calls = node.layer._inbound_nodes
    return sum(1 for n in calls[:calls.index(node)] if n in own or not n.input_tensors)


def _ref(t, model, shift=False):
    node, index = t._keras_history
    layer = node.layer
    return [layer.name, _node_index(node, model) + (1 if shift and _is_functional(layer)
                                                    else 0), index]


def _tensor_dict(t, model):
    return {"class_name": "__keras_tensor__",
            "config": {"shape": list(t.shape), "dtype": t.dtype,
                       "keras_history": _ref(t, model)}}


def _keras_kwargs(op, node):
    """The call's keyword arguments as Keras 3's ``Layer.__call__`` records them: with the
    ``training`` default of ``call``'s signature when it is not None, and the masks of the
    tensor arguments (``mask``, or ``<argument>_mask`` for several), None here (a symbolic
    mask is not an operation of the graph in finegrad; Keras recomputes a None mask)."""
    kwargs = dict(node.kwargs)
    if not isinstance(op, Layer) or not _records_filled_arguments(op, node):
        return kwargs
    signature = inspect.signature(op.call)
    try:
        bound = signature.bind(*node.args, **node.kwargs)
    except TypeError:
        return kwargs
    default = signature.parameters.get("training")
    if default is not None and "training" not in bound.arguments and \
            default.default not in (None, inspect.Parameter.empty):
        kwargs["training"] = default.default
    bound.apply_defaults()
    tensors = [k for k, v in bound.arguments.items() if _is_tensor_argument(v)]
    names = [k for k in tensors if k not in ("args", "kwargs")]
    wanted = ["mask"] if len(tensors) == 1 else [f"{k}_mask" for k in names]
    for k, name in zip(tensors if len(tensors) == 1 else names, wanted, strict=True):
        if name in bound.arguments and bound.arguments[name] is None:
            kwargs[name] = map_structure(lambda _: None, bound.arguments[k])
    return kwargs


def _records_filled_arguments(op, node):
    """Whether Keras's node of this call holds the arguments ``__call__`` fills in: it does
    when the call's keyword dict is the one filled, which is so for a functional model, and
    for a layer called on one tensor of its compute dtype and nothing else (any other call
    converts its inputs into a new dict first)."""
    if _is_functional(op):
        return True
    return not node.kwargs and len(node.args) == 1 and \
        isinstance(node.args[0], KerasTensor) and node.args[0].dtype == op.compute_dtype


def _is_tensor_argument(value):
    if isinstance(value, KerasTensor):
        return True
    flat = flatten(value) if isinstance(value, (list, tuple, dict)) and value else None
    return bool(flat) and all(x is None or isinstance(x, KerasTensor) for x in flat)


def _entry(op, model):
    def argument(x):
        return _tensor_dict(x, model) if isinstance(x, KerasTensor) else \
            serialize_keras_object(x)

    calls = [{"args": map_structure(argument, list(n.args)),
              "kwargs": map_structure(argument, _keras_kwargs(op, n))}
             for n in op._inbound_nodes if n in model._graph_nodes]
    if isinstance(op, Operation) and op.keras_class is not None:   # an ops call
        module, cls, config = op.keras_class
        return {"module": module, "class_name": cls, "config": dict(config),
                "registered_name": cls, "name": op.name, "inbound_nodes": calls}
    if isinstance(op, Operation):   # as Keras 3 writes its ops (`keras.ops.add`...)
        if op.fn is not operator.getitem and \
                all(op.fn is not v for v in _OPERATORS.values()):
            raise NotImplementedError(
                f"{model.name}.get_config: the node '{op.name}' is a function on a symbolic "
                f"tensor that no Keras 3 operation class describes (an ops.custom_gradient "
                f"function, or an ops call with a symbolic tensor where Keras takes a "
                f"constant), which finegrad.keras cannot serialize; wrap it in a layer to "
                f"save the model's config")
        cls = _KERAS_OPS[_operator_name(op.fn)]
        return {"module": _OPS_MODULE, "class_name": cls, "config": {"name": op.name},
                "registered_name": cls, "name": op.name, "inbound_nodes": calls}
    return {**serialize_layer(op), "name": op.name, "inbound_nodes": calls}


def functional_config(model):
    """Keras 3's config of a functional model."""
    def ref(t):
        return _ref(t, model, shift=True)

    return {"name": model.name, "trainable": model.trainable,
            "layers": [_entry(op, model) for op in model._graph_operations],
            "input_layers": map_structure(ref, model._graph_inputs),
            "output_layers": map_structure(ref, model._graph_outputs)}


def _is_ref(x):
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and \
        all(isinstance(i, int) for i in x[1:])


def _map_refs(fn, value):
    if _is_ref(value):
        return fn(value)
    if isinstance(value, list):
        return [_map_refs(fn, v) for v in value]
    if isinstance(value, dict):
        return {k: _map_refs(fn, v) for k, v in value.items()}
    return value


def _make_op(entry, custom_objects):
    spec = operation_classes.BY_CLASS.get((entry.get("module"), entry["class_name"]))
    if entry.get("module") == _OPS_MODULE and entry["class_name"] in _FROM_KERAS_OPS:
        spec = None   # an operator (``x + y``, ``x[:, 0]``)
    if spec is not None:   # a keras.ops call (``ops.sum(x, axis=1)``)
        return operation_classes.operation(spec, entry.get("config", {}), entry["name"])
    if str(entry.get("module")).startswith("keras.src.ops."):
        fn = _FROM_KERAS_OPS.get(entry["class_name"]) if entry["module"] == _OPS_MODULE \
            else None
        if fn is None:
            raise ValueError(f"Model.from_config: the Keras operation {entry['module']}."
                             f"{entry['class_name']} (node '{entry.get('name')}') has no "
                             f"finegrad.ops counterpart that can be rebuilt from a config")
        name = entry["config"].get("name")
        return Operation(_OPERATORS[fn], name or fn, unique=name is None)
    return deserialize_layer(entry, custom_objects)


def _tensor_of(x, outputs):
    """A ``__keras_tensor__`` reference as the tensor already made, other values as they are."""
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        layer, node, index = x["config"]["keras_history"]
        return outputs[(layer, node)][index]
    return x


def _ready(x, outputs):
    """Whether every tensor ``x`` refers to has been made."""
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        return tuple(x["config"]["keras_history"][:2]) in outputs
    if isinstance(x, (list, tuple)):
        return all(_ready(v, outputs) for v in x)
    if isinstance(x, dict):
        return all(_ready(v, outputs) for v in x.values())
    return True


def rebuild_graph(config, custom_objects=None):
    """(inputs, outputs) of the graph a functional config describes, its layers new."""
    made = {e["name"]: _make_op(e, custom_objects) for e in config["layers"]}
    outputs = {}   # (layer name, node index) -> the call's outputs (flat)
    for name, op in made.items():
        if isinstance(op, InputLayer):
            outputs[(name, 0)] = [op.output]
    pending = [(e["name"], i, call) for e in config["layers"]
               for i, call in enumerate(e["inbound_nodes"])]

    def tensor(x):
        return _tensor_of(x, outputs)

    def ready(x):
        return _ready(x, outputs)

    while pending:
        done = [p for p in pending if ready(p[2]["args"]) and ready(p[2]["kwargs"])]
        if not done:
            raise ValueError(f"Model.from_config: cannot connect the layers "
                             f"{sorted({p[0] for p in pending})}")
        for name, i, call in done:
            args = [_tensors(tensor, a) for a in call["args"]]
            kwargs = {k: _tensors(tensor, v) for k, v in call["kwargs"].items()}
            out = made[name](*args, **kwargs)
            outputs[(name, i)] = out if isinstance(out, (list, tuple)) else [out]
            pending.remove((name, i, call))
    def resolve(ref):   # (Keras counts a functional model's calls from 1 here)
        return outputs[(ref[0], ref[1] - (1 if _is_functional(made[ref[0]]) else 0))][ref[2]]
    return (_map_refs(resolve, config["input_layers"]),
            _map_refs(resolve, config["output_layers"]))


def _tensors(tensor, value):
    if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
        return tensor(value)
    if isinstance(value, dict) and value.get("class_name") in _VALUES:   # a slice, an array
        return deserialize_keras_object(value)
    if isinstance(value, list):
        return [_tensors(tensor, v) for v in value]
    if isinstance(value, dict):
        return {k: _tensors(tensor, v) for k, v in value.items()}
    return value


def sequential_config(model):
    stack = model._stack
    config = {"name": model.name, "trainable": model.trainable,
              "dtype": dtype_policies.serialize(model.dtype_policy),
              "layers": [serialize_layer(layer) for layer in stack]}
    if model._graph_nodes is not None:
        config["build_input_shape"] = list(stack[0].batch_shape)
    return config

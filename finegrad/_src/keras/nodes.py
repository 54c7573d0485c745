"""Nodes of the functional graph, and the structure helpers calls share.

A layer called on symbolic tensors (`Input`'s) records a node: the layer, its call's
arguments and its outputs. Masks (Keras's ``_keras_mask``) ride beside tensors here, keyed
by the tensor (finegrad tensors have fixed slots).
"""
import weakref

from finegrad._src import core
from finegrad._src.keras.keras_tensor import KerasTensor, functional_builder
from finegrad._src.tensor import Tensor

_masks = {}   # id(tensor) -> (weak reference to the tensor, mask)


def map_structure(fn, value, tuple_shapes=False):
    """``fn`` applied to each leaf of nested lists, tuples and dicts."""
    if isinstance(value, list):
        return [map_structure(fn, v, tuple_shapes) for v in value]
    if isinstance(value, tuple) and not (tuple_shapes and _is_shape(value)):
        return tuple(map_structure(fn, v, tuple_shapes) for v in value)
    if isinstance(value, dict):
        return {k: map_structure(fn, v, tuple_shapes) for k, v in value.items()}
    return fn(value)


def _is_shape(value):
    return all(v is None or isinstance(v, int) for v in value)


def set_mask(outputs, mask):
    for t in (outputs if isinstance(outputs, (list, tuple)) else [outputs]):
        if isinstance(t, Tensor):
            key = id(t)
            _masks[key] = (weakref.ref(t, lambda _, k=key: _masks.pop(k, None)), mask)
            if isinstance(mask, (list, tuple)):
                break


def mask_of(x):
    """The mask a masking layer attached to ``x`` (None when none)."""
    if isinstance(x, (list, tuple)):
        masks = [mask_of(v) for v in x]
        return None if all(m is None for m in masks) else masks
    entry = _masks.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def flatten(value):
    """The leaves of nested lists, tuples and dicts, in order."""
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flatten(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in flatten(v)]
    return [value]


class Node:
    """One call of ``layer`` on symbolic tensors: its arguments and its outputs."""

    def __init__(self, layer, args, kwargs, outputs):
        self.layer = layer
        self.args, self.kwargs = args, kwargs
        self.outputs = outputs
        self.input_tensors = [x for x in flatten((args, kwargs)) if isinstance(x, KerasTensor)]
        self.output_tensors = [x for x in flatten(outputs) if isinstance(x, KerasTensor)]

    @property
    def parent_nodes(self):
        return [t._keras_history[0] for t in self.input_tensors if t._keras_history]


def is_symbolic_call(args, kwargs):
    return any(isinstance(x, KerasTensor) for x in flatten((args, kwargs)))


def _traced(x):
    return x._tensor if isinstance(x, KerasTensor) else x


def trace_call(layer, args, kwargs, call):
    """Run ``call(args, kwargs)`` on the traced tensors behind ``args``' KerasTensors, under
    the functional graph's builder; the outputs as KerasTensors (no node recorded)."""
    builder = functional_builder()
    layer._maybe_build(args, kwargs)      # shapes with None sizes, outside the trace
    targs, tkwargs = map_structure(_traced, args), map_structure(_traced, kwargs)
    with core.tracing(builder):
        out = call(targs, tkwargs)
    names = iter(range(len(flatten(out))))

    def wrap(t):
        if not isinstance(t, Tensor):
            return t
        kt = KerasTensor(t, builder, name=f"{layer.name}_output_{next(names)}")
        mask = mask_of(t)
        if isinstance(mask, Tensor):
            kt._keras_mask = KerasTensor(mask, builder)
        return kt
    return map_structure(wrap, out)


def symbolic_call(layer, args, kwargs, call):
    """A layer's call on symbolic tensors: traced, and recorded as a node."""
    outputs = trace_call(layer, args, kwargs, call)
    node = Node(layer, args, kwargs, outputs)
    layer._inbound_nodes.append(node)
    for i, t in enumerate(node.output_tensors):
        t._keras_history = (node, i)
    return outputs


def output_spec(layer, *args, **kwargs):
    """The outputs (KerasTensors) of ``layer`` called on inputs of the given shape(s)."""
    if args:
        shapes, args = args[0], args[1:]
    else:
        key = next((k for k in kwargs if k.endswith("shape")), None)
        if key is None:
            raise TypeError(f"{type(layer).__name__}.compute_output_shape: missing the input "
                            f"shape")
        shapes = kwargs.pop(key)
    dtype = layer.compute_dtype if "float" in layer.compute_dtype else "float32"
    inputs = map_structure(lambda s: KerasTensor.placeholder(s, dtype), shapes, True)
    return trace_call(layer, (inputs,) + args, kwargs, layer._call_eagerly)

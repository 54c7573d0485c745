"""The symbolic side of the functional API: KerasTensor, the nodes layers record, masks.

The functional API traces with finegrad's graph machinery, as ``finegrad.function`` does
for an input_signature: `Input` adds an argument to the session's functional graph (a
`GraphBuilder` with shape polymorphism on), its ``None`` sizes symbolic; a layer called on
symbolic tensors runs its ``call`` under that builder (`trace_call`), so each output's shape
(open sizes included) comes from the primitives' shape rules, and records a `Node`: the layer,
its call's arguments and its outputs. A `KerasTensor` wraps one traced tensor and remembers
the node that made it (``_keras_history``); a layer receives the traced tensor itself, so every
finegrad op works inside ``call``. Operators on KerasTensors (``x + y``, ``x[:, 0]``) record
`Operation` nodes, as Keras 3's ops do.

Masks (Keras's ``_keras_mask``) ride beside tensors here, keyed by the tensor (finegrad tensors
have fixed slots).
"""

from __future__ import annotations

from typing import Any

import operator
import weakref

import numpy as np

from finegrad._src import core, dtypes
from finegrad._src.graph.tracing.builder import GraphBuilder
from finegrad._src.keras import naming
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    pass

_EXAMPLE_SIZE = 2   # the value a None size takes in the trace (its shape stays symbolic)
_session = {"builder": None, "names": 0}


def functional_builder():
    """The graph builder of this session's symbolic tensors (new after `clear_session`)."""
    b = _session["builder"]
    if b is None:
        b = _session["builder"] = GraphBuilder("functional")
        b.poly = True
        b.examples = True
    return b


def reset():
    _session["builder"] = None


class KerasTensor:
    """A symbolic tensor: a shape (None for the sizes known only when the model runs) and a
    dtype, made by `Input` or by a layer called on symbolic tensors.

    >>> import finegrad as tf
    >>> x = tf.keras.Input(shape=(3,))
    >>> x.shape, x.dtype
    ((None, 3), 'float32')
    """

    __array_priority__ = 200
    _symbolic_placeholder = True   # conversion to a tensor is Keras's ValueError

    def __init__(self, tensor: Any, builder: Any, name: str | None = None) -> None:
        self._tensor = tensor
        self._builder = builder
        self.name = name
        self._keras_history = None
        self._keras_mask = None

    @classmethod
    def placeholder(cls, shape: Any, dtype: Any, name: str | None = None) -> Any:
        """A new argument of the functional graph with ``shape`` (None: any size)."""
        builder = functional_builder()
        dt = dtypes.as_dtype(dtype)
        example = tuple(_EXAMPLE_SIZE if n is None else int(n) for n in shape)
        t = Tensor(np.zeros(example, dt._np) if example else dt._np.type(0))
        builder.add_arg(t, dynamic=tuple(i for i, n in enumerate(shape) if n is None))
        return cls(t, builder, name)

    @property
    def shape(self) -> Any:
        return tuple(self._builder.static_shape(self._tensor).as_list())

    @property
    def dtype(self) -> str:
        return self._tensor.dtype.name

    @property
    def ndim(self) -> Any:
        return len(self.shape)

    def get_shape(self) -> Any:
        return TensorShape(self.shape)

    def __repr__(self):
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, "
                f"ragged=False, name={self.name}>")

    def __array__(self, dtype=None, copy=None):
        raise ValueError(_NOT_A_VALUE)

    def numpy(self) -> None:
        raise ValueError(_NOT_A_VALUE)

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a Python bool: its value "
                        "is only known when the model runs")

    def __len__(self):
        n = self.shape[0] if self.shape else None
        if n is None:
            raise TypeError("len() of a KerasTensor whose first size is unknown (None)")
        return n

    def __iter__(self):
        raise TypeError("A KerasTensor is symbolic: it cannot be iterated over")

    # operators record Operation nodes (Keras 3's ops on symbolic tensors)
    def __add__(self, other):
        return _apply(operator.add, "add", self, other)

    def __radd__(self, other):
        return _apply(operator.add, "add", other, self)

    def __sub__(self, other):
        return _apply(operator.sub, "subtract", self, other)

    def __rsub__(self, other):
        return _apply(operator.sub, "subtract", other, self)

    def __mul__(self, other):
        return _apply(operator.mul, "multiply", self, other)

    def __rmul__(self, other):
        return _apply(operator.mul, "multiply", other, self)

    def __truediv__(self, other):
        return _apply(operator.truediv, "divide", self, other)

    def __rtruediv__(self, other):
        return _apply(operator.truediv, "divide", other, self)

    def __matmul__(self, other):
        return _apply(operator.matmul, "matmul", self, other)

    def __rmatmul__(self, other):
        return _apply(operator.matmul, "matmul", other, self)

    def __pow__(self, other):
        return _apply(operator.pow, "power", self, other)

    def __rpow__(self, other):
        return _apply(operator.pow, "power", other, self)

    def __neg__(self):
        return _apply(operator.neg, "negative", self)

    def __abs__(self):
        return _apply(operator.abs, "absolute", self)

    def __lt__(self, other):
        return _apply(operator.lt, "less", self, other)

    def __le__(self, other):
        return _apply(operator.le, "less_equal", self, other)

    def __gt__(self, other):
        return _apply(operator.gt, "greater", self, other)

    def __ge__(self, other):
        return _apply(operator.ge, "greater_equal", self, other)

    def __getitem__(self, key):
        return _apply(operator.getitem, "get_item", self, key)

    __hash__ = object.__hash__


_NOT_A_VALUE = ("A KerasTensor cannot be used as input to a finegrad function. A KerasTensor "
                "is a symbolic placeholder for a shape and dtype, used when constructing Keras "
                "Functional models or Keras Functions. You can only use it as input to a Keras "
                "layer or a Keras operation (from the namespaces `keras.layers` and "
                "`keras.ops`, which is `finegrad.ops`); wrap other functions in a layer (a "
                "custom layer whose `call` applies them, or a `Lambda` layer).")


def is_keras_tensor(x: Any) -> Any:
    """Whether ``x`` is a symbolic tensor of the functional API.

    >>> import finegrad as tf
    >>> from finegrad._src.keras.nodes import is_keras_tensor
    >>> is_keras_tensor(tf.keras.Input((2,))), is_keras_tensor(tf.ones(2))
    (True, False)
    """
    return isinstance(x, KerasTensor)


_masks: dict[int, tuple] = {}   # id(tensor) -> (weak reference to the tensor, mask)


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


class Operation:
    """A function in the functional graph that is not a layer (an operator applied to
    KerasTensors): recorded as a node and run again by the model, like a layer without
    weights; not among a model's `layers`, as in Keras 3."""

    keras_class = None   # (module, class name, config) of the Keras op class it saves as

    def __init__(self, fn, name, unique=True):
        self.fn = fn
        self.name = naming.auto_name(name) if unique else name
        self._inbound_nodes = []
        self.built = True
        self.weights = self.trainable_weights = self.non_trainable_weights = []

    def _maybe_build(self, args, kwargs):
        pass

    def _call_eagerly(self, args, kwargs):
        return self.fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        if is_symbolic_call(args, kwargs):
            return symbolic_call(self, args, kwargs, self._call_eagerly)
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"<Operation name={self.name}>"


def _apply(fn, name, *args):
    return Operation(fn, name)(*args)

"""TensorFlow 1's default graph and the switches between eager and graph execution:
``get_default_graph``, ``reset_default_graph``, ``disable_eager_execution`` (the global
default graph's recorder becomes this thread's tracer until ``enable_eager_execution``),
``placeholder`` and the collections of the default graph."""

from __future__ import annotations

import numpy as np

from finegrad._src import shapes
from finegrad._src.ops.array.structural import convert_to_tensor, identity
from finegrad._src.shapes import TensorShape
from finegrad._src.state import state as _state
from finegrad._src.v1.graphs import Graph, current_graph, graph_stack

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

_global: dict[str, Any] = {"graph": None, "graph_mode": False}


def _global_graph():
    if _global["graph"] is None:
        _global["graph"] = Graph()
    return _global["graph"]


def get_default_graph() -> Any:
    """The graph new ops go to: the innermost ``as_default`` graph, else the global default
    graph (the graph of ``disable_eager_execution``).

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     fg.compat.v1.get_default_graph() is g
    True
    """
    if graph_stack.stack:
        return graph_stack.stack[-1]
    return _global_graph()


def reset_default_graph() -> None:
    """Clear the global default graph: a new, empty one takes its place.

    Raises:
        AssertionError: inside a ``with g.as_default()`` block, as in TensorFlow.
    """
    if graph_stack.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new "
                             "graph.")
    if _global["graph_mode"]:
        _global_graph()._recorder.leave()
    _global["graph"] = Graph()
    if _global["graph_mode"]:
        _enter_global()


def _enter_global():
    rec = _global_graph()._recorder
    _state.tracer, _state.recorders = rec, (rec,)
    rec.enter()


def disable_eager_execution() -> None:
    """From now on, ops build the global default graph, run by a `Session` (TensorFlow 1).

    >>> import finegrad as fg
    >>> fg.compat.v1.disable_eager_execution()
    >>> fg.executing_eagerly()
    False
    >>> fg.compat.v1.enable_eager_execution()
    """
    if not _global["graph_mode"]:
        _global["graph_mode"] = True
        _enter_global()


def enable_eager_execution(config: Any = None, device_policy: Any = None,
                           execution_mode: Any = None) -> None:
    """Ops run eagerly again (TensorFlow 2's default)."""
    del config, device_policy, execution_mode
    if _global["graph_mode"]:
        _global["graph_mode"] = False
        _global_graph()._recorder.leave()
        _state.tracer, _state.recorders = None, ()


def disable_v2_behavior() -> None:
    """TensorFlow 1 behaviour: `disable_eager_execution`, and shapes whose sizes are
    `Dimension`s (``x.shape[1].value``), as TensorFlow's ``disable_v2_behavior`` does."""
    disable_eager_execution()
    shapes.disable_v2_tensorshape()


def enable_v2_behavior() -> None:
    """TensorFlow 2 behaviour: `enable_eager_execution` and int sizes in shapes."""
    enable_eager_execution()
    shapes.enable_v2_tensorshape()


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor whose value a `Session` feeds (``feed_dict``); ``None`` sizes take any size.

    >>> import finegrad as fg
    >>> g = fg.Graph()
    >>> with g.as_default():
    ...     x = fg.compat.v1.placeholder(fg.float32, [None, 2], name="x")
    >>> x.name, x.shape, x.op.type
    ('x:0', TensorShape([None, 2]), 'Placeholder')

    Raises:
        RuntimeError: while executing eagerly, as in TensorFlow.
    """
    g = current_graph()
    if g is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    return g.placeholder(dtype, shape, name)


def placeholder_with_default(input: TensorLike, shape: Any,  # TensorFlow's keyword
                             name: str | None = None) -> Any:
    """``input`` unless a `Session` feeds another value (of a shape compatible with
    ``shape``)."""
    t = identity(convert_to_tensor(input), name=name or "PlaceholderWithDefault")
    g = current_graph()
    if g is not None:
        shape = TensorShape(shape)
        if not TensorShape(np.shape(t._value)).is_compatible_with(shape):
            raise ValueError(f"placeholder_with_default: input of shape "
                             f"{np.shape(t._value)} is not compatible with shape {shape}")
        g._static[id(t)] = shape
        op = g._tensor_ops[id(t)][0]
        op.type = "PlaceholderWithDefault"
    return t


def get_collection(key: Any, scope: Any = None) -> Any:
    """The items of collection ``key`` of the default graph (whose ``name`` matches the
    regular expression ``scope`` from its start, when given)."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: Any) -> Any:
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name: str, value: TensorLike) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: TensorLike) -> None:
    for n in ([names] if isinstance(names, str) else names):
        add_to_collection(n, value)



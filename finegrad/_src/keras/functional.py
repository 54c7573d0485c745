"""The graph of a functional model: the layer calls between its inputs and outputs.

`build_graph` walks from the outputs' KerasTensors back through the nodes that made them
(``_keras_history``) to the inputs, and orders the nodes as Keras does (by depth, the inputs'
deepest). `run_graph` calls each node's layer again on real tensors, in that order: the same
layers with their ``training`` and mask semantics, so a Dropout behaves by the call's
``training`` and a nested model runs its own graph.
"""
import numpy as np

from finegrad._src import dtypes
from finegrad._src.keras.input_layer import InputLayer
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.nodes import flatten, map_structure
from finegrad._src.ops.array.structural import cast, convert_to_tensor, expand_dims
from finegrad._src.tensor import Tensor


def build_graph(inputs, outputs, where="Functional"):
    """(nodes in execution order, operations in Keras's order) of the graph inputs ->
    outputs: the operations are its layers (input layers included) and ops."""
    flat_in, flat_out = flatten(inputs), flatten(outputs)
    for t in flat_in + flat_out:
        if not isinstance(t, KerasTensor):
            raise ValueError(f"{where}: all `inputs` and `outputs` values must be KerasTensors "
                             f"(made by keras.Input and layers called on them); received {t!r}")
    input_ids = {id(t) for t in flat_in}
    order = _nodes_reaching(flat_out, input_ids, where)
    depth = _depths(order, input_ids)
    order = [n for n in order if not isinstance(n.layer, InputLayer)]
    order.sort(key=lambda n: -depth[id(n)])
    return order, operation_order(flat_in, flat_out)


def operation_order(flat_in, flat_out):
    """The graph's operations as Keras 3 orders them (``map_graph``): deepest first (the
    depth of an operation is the longest path from any of its calls to an output), ties
    by when a depth-first walk from the outputs first reaches them."""
    input_ids = {id(t) for t in flat_in}
    finished, walked, first = set(), [], {}

    def visit(t):
        node = t._keras_history[0]
        is_input = isinstance(node.layer, InputLayer)
        if id(node) in finished or (not is_input and id(t) in input_ids):
            finished.add(id(node))
            return
        first.setdefault(node.layer, len(first))
        if not is_input:
            for x in node.input_tensors:
                visit(x)
        finished.add(id(node))
        walked.append(node)

    for t in flat_out:
        visit(t)
    in_graph, node_depth, op_depth = {id(n) for n in walked}, {}, {}
    for node in reversed(walked):
        d = max(node_depth.setdefault(id(node), 0), op_depth.get(node.layer, 0))
        op_depth[node.layer] = node_depth[id(node)] = d
        for x in node.input_tensors:
            parent = x._keras_history[0]
            if id(parent) in in_graph:
                node_depth[id(parent)] = max(d + 1, node_depth.get(id(parent), 0))
    for t in flat_in:    # inputs that no output needs
        layer = t._keras_history[0].layer
        if isinstance(layer, InputLayer) and layer not in op_depth:
            op_depth[layer], first[layer] = 0, -1
    return sorted(op_depth, key=lambda op: (-op_depth[op], first[op]))


def _nodes_reaching(flat_out, input_ids, where):
    """The nodes the outputs depend on, each after those it reads (depth first)."""
    order, seen = [], set()

    def visit(node, path):
        if id(node) in seen:
            return
        if id(node) in path:
            raise ValueError(f"{where}: the graph has a cycle through {node.layer.name}")
        for t in node.input_tensors:
            if id(t) in input_ids:
                continue
            if t._keras_history is None:
                raise ValueError(f"{where}: a tensor reaches the outputs without coming from "
                                 f"the given inputs: {t!r}")
            visit(t._keras_history[0], path | {id(node)})
        _check_connected(node, input_ids, where)
        seen.add(id(node))
        order.append(node)

    for t in flat_out:
        if id(t) not in input_ids:
            visit(t._keras_history[0], frozenset())
    return order


def _check_connected(node, input_ids, where):
    if not node.input_tensors and isinstance(node.layer, InputLayer) and \
            not any(id(t) in input_ids for t in node.output_tensors):
        raise ValueError(f"{where}: graph disconnected: cannot get the value of "
                         f"{node.output_tensors[0]!r}; it comes from the input layer "
                         f"'{node.layer.name}', which is not among the model's inputs")


def _depths(order, input_ids):
    """{id(node): the longest path from it to an output}."""
    depth = {}
    for node in reversed(order):
        d = depth.get(id(node), 0)
        for t in node.input_tensors:
            if t._keras_history is not None and id(t) not in input_ids:
                parent = t._keras_history[0]
                depth[id(parent)] = max(depth.get(id(parent), 0), d + 1)
        depth.setdefault(id(node), d)
    return depth


def _standardize(x, ref, where):
    """An input value as a tensor of the Input's dtype (and rank, a missing last axis added,
    as Keras does)."""
    if isinstance(x, (np.ndarray, np.generic, list, float, int)):
        x = convert_to_tensor(np.asarray(x, dtype=dtypes.as_dtype(ref.dtype)._np))
    elif isinstance(x, Tensor) and x.dtype.name != ref.dtype and x.dtype.is_floating and \
            "float" in ref.dtype:
        x = cast(x, ref.dtype)
    if isinstance(x, Tensor) and len(x.shape) == len(ref.shape) - 1 and ref.shape[-1] == 1:
        x = expand_dims(x, -1)
    return x


def flatten_inputs(model, inputs):
    """The call's inputs matched to the model's Inputs, as a flat list."""
    struct = model._graph_inputs
    flat_ref = flatten(struct)
    if isinstance(inputs, dict):
        if isinstance(struct, dict):
            values = [inputs[k] for k in struct]
        else:
            names = [t._keras_history[0].layer.name for t in flat_ref]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"{model.name}: missing data for input(s) {missing}; the "
                                 f"model expects the inputs named {names}")
            values = [inputs[n] for n in names]
    else:
        values = flatten(inputs) if len(flat_ref) > 1 or isinstance(inputs, (list, tuple)) \
            and len(inputs) == 1 and isinstance(struct, (list, tuple)) else [inputs]
    if len(values) != len(flat_ref):
        raise ValueError(f"Layer \"{model.name}\" expects {len(flat_ref)} input(s), but it "
                         f"received {len(values)} input tensors.")
    return [_standardize(v, r, model.name) for v, r in zip(values, flat_ref, strict=True)]


def run_graph(model, inputs, training=None, mask=None):
    """Call the model's layers node by node on ``inputs``; the outputs in the model's
    structure."""
    flat = flatten_inputs(model, inputs)
    values = {id(r): v for r, v in zip(flatten(model._graph_inputs), flat, strict=True)}

    def value_of(x):
        return values[id(x)] if isinstance(x, KerasTensor) else x

    for node in model._graph_nodes:
        args = map_structure(value_of, node.args)
        kwargs = map_structure(value_of, node.kwargs)   # `training` reaches it by context
        if training is not None and "training" in kwargs:
            kwargs["training"] = training   # the call's wins over the node's, as in Keras
        out = node.layer(*args, **kwargs)
        for kt, o in zip(node.output_tensors, flatten(out), strict=False):
            values[id(kt)] = o
    return map_structure(value_of, model._graph_outputs)

"""``clone_model``: a new model with the same structure and fresh weights."""
from typing import Any

from finegrad._src.keras.input_layer import Input, InputLayer
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.model import Model
from finegrad._src.keras.nodes import flatten, map_structure
from finegrad._src.keras.sequential import Sequential


def _clone_layer(layer):
    return type(layer).from_config(layer.get_config())


def clone_model(model: Any, input_tensors: Any = None, clone_function: Any = None,
                call_function: Any = None, recursive: Any = False, **kwargs: Any) -> Any:
    """A copy of a Sequential or functional ``model``: each layer rebuilt from its config
    (``clone_function(layer)`` when given), new weights, the same graph. The weights are not
    copied (``new.set_weights(model.get_weights())`` does that).

    Raises:
        ValueError: for a subclassed model (its structure is its Python code), as Keras.
    """
    clone = clone_function or _clone_layer
    if isinstance(model, Sequential):
        layers = [clone(layer) for layer in model.layers]
        if model._stack and isinstance(model._stack[0], InputLayer):
            shape = model._stack[0].batch_shape
            layers.insert(0, InputLayer(batch_shape=shape, dtype=model._stack[0].dtype))
        return Sequential(layers, name=model.name, trainable=model.trainable)
    if getattr(model, "_graph_nodes", None) is None:
        raise ValueError(f"Arguments `clone_function` and `input_tensors` are only supported "
                         f"for Sequential models or Functional models. Received model of "
                         f"type '{type(model).__name__}'")
    if input_tensors is None:
        input_tensors = map_structure(lambda t: Input(batch_shape=t.shape, dtype=t.dtype,
                                                      name=t._keras_history[0].layer.name),
                                      model._graph_inputs)
    values = {id(r): v for r, v in zip(flatten(model._graph_inputs), flatten(input_tensors),
                                       strict=True)}
    clones: dict[int, Any] = {}

    def value_of(x):
        return values[id(x)] if isinstance(x, KerasTensor) else x

    for node in model._graph_nodes:
        layer = clones.get(id(node.layer))
        if layer is None:   # (operations have no state: the same one serves)
            layer = clones[id(node.layer)] = clone(node.layer) \
                if isinstance(node.layer, Layer) else node.layer
        out = layer(*map_structure(value_of, node.args), **map_structure(value_of, node.kwargs))
        for kt, o in zip(node.output_tensors, flatten(out), strict=False):
            values[id(kt)] = o
    return Model(input_tensors, map_structure(value_of, model._graph_outputs),
                 name=model.name, trainable=model.trainable)

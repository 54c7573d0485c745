"""Sequential: a model made of layers applied one after the other.

As in Keras 3, a Sequential whose input shape is known (an `InputLayer` or ``Input`` first,
or a first layer given ``input_shape=``) is built at once as a functional model; otherwise it
is built on its first call (or `build`), from the shape of what it is called on.
"""

from __future__ import annotations

from typing import Any

from finegrad._src.keras import functional, model_config
from finegrad._src.keras.input_layer import InputLayer
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.model import Functional, Model
from finegrad._src.api.scopes import name_scope


class Sequential(Model):
    """A linear stack of layers.

    Args:
        layers: the layers, in order (more can be added with `add`).
        trainable: whether the layers' weights are trained.
        name: the model's name.

    >>> import finegrad as tf
    >>> class Scale(tf.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 3. * x
    >>> model = tf.keras.Sequential([tf.keras.Input((2,)), Scale(), Scale()])
    >>> model(tf.ones((1, 2))).numpy(), len(model.layers)
    (array([[9., 9.]], dtype=float32), 2)
    """

    _untracked = Layer._untracked | {"_functional"}
    _keras_functional = False

    def __init__(self, layers: Any = None, trainable: Any = True, name: Any = None) -> None:
        super().__init__(trainable=trainable, name=name)
        self._functional = None
        self._stack: list = []
        for layer in layers or ():
            self.add(layer, rebuild=False)
        if self._stack:
            self._maybe_rebuild()

    def add(self, layer: Any, rebuild: Any = True) -> Any:
        """Append a layer (or the `InputLayer` of an ``Input`` tensor)."""
        if isinstance(layer, KerasTensor) and layer._keras_history is not None and \
                isinstance(layer._keras_history[0].layer, InputLayer):
            layer = layer._keras_history[0].layer
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential "
                             f"model. Received: {layer} (of type {type(layer)})")
        if any(other.name == layer.name for other in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique "
                             f"names. Name '{layer.name}' is already the name of a layer in "
                             f"this model. Update the `name` argument to pass a unique name.")
        if isinstance(layer, InputLayer) and self._stack and \
                isinstance(self._stack[0], InputLayer):
            raise ValueError(f"Sequential model '{self.name}' has already been configured to "
                             f"use input shape {self._stack[0].batch_shape}. You cannot add "
                             f"a different Input layer to it.")
        if not self._stack and not isinstance(layer, InputLayer) and \
                getattr(layer, "_input_shape_arg", None) is not None:
            self._stack.append(InputLayer(shape=layer._input_shape_arg,
                                          batch_size=layer._batch_size_arg))
        self._stack.append(layer)
        self._unbuild()
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild: Any = True) -> Any:
        """Remove the last layer and return it."""
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        self._unbuild()
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _unbuild(self):
        self.__dict__.update(built=False, _locked=False, _functional=None, _graph_nodes=None)

    def _maybe_rebuild(self):
        if isinstance(self._stack[0], InputLayer) and len(self._stack) > 1:
            self.build(self._stack[0].batch_shape)

    @property
    def layers(self) -> Any:
        """The layers added (without the input layer)."""
        stack = self._stack
        return list(stack[1:] if stack and isinstance(stack[0], InputLayer) else stack)

    def build(self, input_shape: Any = None) -> Any:
        """Build every layer for inputs of ``input_shape``, as a functional model."""
        if not self._stack:
            raise ValueError(f"Sequential model {self.name} cannot be built because it has no "
                             f"layers. Call `model.add(layer)`.")
        if input_shape is None or not all(n is None or isinstance(n, int)
                                           for n in input_shape):
            return
        input_shape = tuple(input_shape)
        if isinstance(self._stack[0], InputLayer):
            if self._stack[0].batch_shape != input_shape:
                raise ValueError(f"Sequential model '{self.name}' has already been configured "
                                 f"to use input shape {self._stack[0].batch_shape}. You cannot "
                                 f"build it with input_shape {input_shape}")
        else:
            dtype = self._stack[0].compute_dtype
            self._stack.insert(0, InputLayer(batch_shape=input_shape, dtype=dtype))
        x = self._stack[0].output
        with name_scope(self.name):    # Keras's weight paths: "sequential/dense/kernel"
            for layer in self._stack[1:]:
                x = layer(x)
        graph = Functional(inputs=self._stack[0].output, outputs=x)
        self.__dict__["_functional"] = graph
        self._graph_layers = graph._graph_layers
        self._graph_operations = graph._graph_operations
        self.__dict__.update(_graph_nodes=graph._graph_nodes, _graph_inputs=graph._graph_inputs,
                             _graph_outputs=graph._graph_outputs, built=True, _locked=True)

    def _maybe_build(self, args, kwargs):
        if self.built:
            return
        first = args[0] if args else None
        shape = getattr(first, "shape", None)
        if shape is not None and not isinstance(first, (list, tuple, dict)):
            self.build((None,) + tuple(shape)[1:])   # any batch size, as fit builds it
        self.__dict__["built"] = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if self._graph_nodes is not None:
            return functional.run_graph(self, inputs, training=training, mask=mask)
        for layer in self.layers:     # not built as a graph (e.g. nested inputs)
            kwargs = {"training": training} if training is not None else {}
            inputs = layer(inputs, **kwargs)
        return inputs

    def get_config(self) -> Any:
        return model_config.sequential_config(self)

    def get_build_config(self) -> Any:
        """``{"input_shape": batch shape}`` once built (None before)."""
        if self._graph_nodes is None:
            return None
        return {"input_shape": list(self._stack[0].batch_shape)}

    def build_from_config(self, config: Any) -> None:
        shape = (config or {}).get("input_shape")
        if shape is not None and not self.built:
            self.build(tuple(shape))

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None) -> Any:
        """A new Sequential from `get_config`'s dict (built for ``build_input_shape`` when
        the config has one)."""
        layers = [model_config.deserialize_layer(c, custom_objects) for c in config["layers"]]
        model = cls(layers, name=config.get("name"), trainable=config.get("trainable", True))
        shape = config.get("build_input_shape")
        if shape is not None and not model.built:
            model.build(tuple(shape))
        return model

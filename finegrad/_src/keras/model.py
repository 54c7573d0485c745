"""Model: a layer that trains (`Trainer`), saves its weights and prints its summary.

Three ways to make one, as in Keras 3: subclass it and write ``call``; give it symbolic
``inputs`` and ``outputs`` (the functional API; `functional` runs the graph); or stack layers
in a `Sequential`.
"""

from __future__ import annotations

from typing import Any

import json
import re
import warnings

from finegrad._src import nest
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.graph.tracing.function import function
from finegrad._src.keras import (calibration, export, functional, model_config,
                                 model_files, quantizers, saving, summary)
from finegrad._src.keras.layer import _as_shape as as_shape, _shape_of as input_shape_of
from finegrad._src.keras.object_serialization import json_default, serialize_keras_object
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.nodes import flatten, map_structure, trace_call
from finegrad._src.keras.trainer import Trainer


def _functional_args(args, kwargs):
    inputs = kwargs.pop("inputs", args[0] if args else None)
    outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
    return inputs, outputs


def _picked(layer, filters):
    """Keras's layer filter: a regex searched in the name, a list of them, or a callable."""
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(p, layer.name) for p in filters)
    return bool(filters(layer))


class Model(Trainer, Layer):
    """A trainable stack of layers: ``compile``, ``fit``, ``evaluate``, ``predict``,
    ``save_weights``, ``summary``.

    ``Model(inputs, outputs)`` builds a functional model from `Input` tensors; a subclass
    defines its layers in ``__init__`` and its computation in ``call``.

    >>> import finegrad as tf
    >>> inputs = tf.keras.Input(shape=(3,))
    >>> class Double(tf.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 2. * x
    >>> model = tf.keras.Model(inputs, Double()(inputs))
    >>> model(tf.ones((1, 3))).numpy()
    array([[2., 2., 2.]], dtype=float32)
    """

    _keras_functional = True   # (a Sequential is not a Functional in Keras)

    def __new__(cls, *args, **kwargs):
        if cls is Model and (len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs):
            return Layer.__new__(Functional, *args, **kwargs)
        return Layer.__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs, outputs = _functional_args(args, kwargs)
        if (inputs is None) != (outputs is None):
            raise ValueError("Model: give both `inputs` and `outputs` (the functional API), "
                             "or neither (a subclassed model)")
        Layer.__init__(self, trainable=kwargs.pop("trainable", True),
                       name=kwargs.pop("name", None), dtype=kwargs.pop("dtype", None),
                       **kwargs)
        Trainer.__init__(self)
        self._graph_nodes = None
        if inputs is not None:
            self._init_graph(inputs, outputs)

    def _init_graph(self, inputs, outputs):
        if isinstance(inputs, dict) and not all(isinstance(k, str) for k in inputs):
            raise ValueError("Model: the keys of a dict of inputs must be strings")
        nodes, operations = functional.build_graph(inputs, outputs, type(self).__name__)
        self.__dict__["_graph_nodes"] = nodes
        self._graph_operations = operations
        self._graph_layers = [op for op in operations if isinstance(op, Layer)]
        self._graph_inputs = inputs if not isinstance(inputs, tuple) else list(inputs)
        self._graph_outputs = outputs if not isinstance(outputs, tuple) else list(outputs)
        self.built = True
        self.__dict__["_locked"] = True

    # --- structure -----------------------------------------------------------------------------

    @property
    def layers(self) -> Any:
        """The model's layers (a functional model's input layers included)."""
        if self._graph_nodes is not None:
            return list(self._graph_layers)
        return self._layers

    @property
    def inputs(self) -> Any:
        return flatten(self._graph_inputs) if self._graph_nodes is not None else None

    @property
    def outputs(self) -> Any:
        return flatten(self._graph_outputs) if self._graph_nodes is not None else None

    @property
    def input(self) -> Any:
        return self._graph_inputs if self._graph_nodes is not None else None

    @property
    def output(self) -> Any:
        return self._graph_outputs if self._graph_nodes is not None else None

    @property
    def input_shape(self) -> Any:
        return map_structure(lambda t: t.shape, self._graph_inputs)

    @property
    def output_shape(self) -> Any:
        return map_structure(lambda t: t.shape, self._graph_outputs)

    def get_layer(self, name: Any = None, index: Any = None) -> Any:
        """The layer named ``name``, or at position ``index`` of `layers`."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model "
                                 f"only has {len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[layer.name for layer in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    # --- calling -------------------------------------------------------------------------------

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if self._graph_nodes is None:
            raise NotImplementedError(f"Model {type(self).__name__} does not have a `call()` "
                                      f"method implemented.")
        return functional.run_graph(self, inputs, training=training, mask=mask)

    def build(self, input_shape: Any = None) -> Any:
        """Build a subclassed model's layers by calling it on symbolic inputs of
        ``input_shape`` (the batch size None)."""
        if self.built:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        inputs = map_structure(lambda s: KerasTensor.placeholder(s, self.input_dtype
                                                                 if "float" in self.input_dtype
                                                                 else "float32"),
                               input_shape, tuple_shapes=True)
        self.__dict__["built"] = True
        try:
            trace_call(self, (inputs,), {}, self._call_eagerly)
        except Exception as e:
            self.__dict__["built"] = False
            raise ValueError(f"You cannot build your model by calling `build()` if your "
                             f"`call()` method cannot run on symbolic inputs of shape "
                             f"{input_shape}: {e}") from e

    def _maybe_build(self, args, kwargs):
        if self.built:
            return
        if type(self).build is Model.build:   # sub-layers build as the call reaches them
            first = args[0] if args else next(iter(kwargs.values()), None)
            self.__dict__["_build_config_shapes"] = map_structure(input_shape_of, first,
                                                           tuple_shapes=True)
            self.__dict__["built"] = True
            return
        super()._maybe_build(args, kwargs)

    def get_build_config(self) -> Any:
        """Keras's ``{"input_shape": None}`` for a functional model (built from its Inputs when
        made), a subclassed model's first call's input shapes otherwise."""
        if self._graph_nodes is not None:
            return {"input_shape": None}
        return super().get_build_config()

    def build_from_config(self, config: Any) -> None:
        """Build the model for ``config["input_shape"]`` (a subclassed model by a symbolic
        call, as `build`); a functional model is built already."""
        shape = (config or {}).get("input_shape")
        if shape is None or self.built:
            return
        shape = as_shape(shape)
        self.build(shape)
        self.__dict__["_build_config_shapes"] = shape

    # --- weights and summary -------------------------------------------------------------------

    def quantize(self, mode: Any = None, config: Any = None, filters: Any = None,
                 **kwargs: Any) -> None:
        """Quantize every layer that can be (`Dense`, `EinsumDense`, `Embedding`) in
        ``"int8"``, ``"int4"`` or ``"float8"`` (or as a ``keras.quantizers`` config says, its
        custom quantizers included), as Keras's ``Model.quantize``; ``"gptq"`` and ``"awq"``
        (with their `GPTQConfig` / `AWQConfig`) then calibrate the layers block by block on
        the config's dataset (`calibration`). ``filters`` (a regex on layer names, a list of
        them, or a callable on the layer) picks the layers. A layer without the mode is
        skipped with a warning; the traced steps are made again.

        Raises:
            ValueError: for an unknown mode or config, bad filters, when no layer could be
                quantized, or (GPTQ, AWQ) without a structure, a dataset or a tokenizer.
        """
        where = f"{type(self).__name__}.quantize"
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"{where}: Unrecognized keyword arguments passed to "
                             f"{type(self).__name__}: {kwargs}")
        if filters is not None and not isinstance(filters, (str, list, tuple)) \
                and not callable(filters):
            raise ValueError(f"{where}: The `filters` argument must be a regex string, a list "
                             f"of regex strings, or a callable. Received: {type(filters)}")
        config = quantizers.resolve_config(mode, config, where)
        done = 0
        for layer in self._flatten_layers(include_self=False):
            if not _picked(layer, filters) or not hasattr(layer, "quantize") or \
                    list(layer._flatten_layers(include_self=False)):
                continue
            try:
                layer.quantize(config.mode, type_check=type_check, config=config)
                done += 1
            except NotImplementedError as e:
                warnings.warn(str(e), stacklevel=2)
        if not done:
            raise ValueError(f"{where}: could not quantize any layer with mode="
                             f"{config.mode!r}; Dense, EinsumDense and Embedding support it")
        if config.mode in ("gptq", "awq"):
            calibration.calibrate(self, config, lambda layer: _picked(layer, filters))
        self.train_function = self.test_function = self.predict_function = None

    def save_weights(self, filepath: Any, overwrite: Any = True) -> Any:
        """Save every weight to ``filepath``: Keras 3's ``.weights.h5`` layout (needs h5py)
        or finegrad's ``.npz`` layout (NumPy only), chosen by the file's suffix."""
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath: Any, skip_mismatch: Any = False, **kwargs: Any) -> Any:
        """Load weights saved by `save_weights` (or by Keras 3 in ``.weights.h5``)."""
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def save(self, filepath: Any, overwrite: Any = True, zipped: Any = None,
             **kwargs: Any) -> Any:
        """Save the whole model (config, weights, compile config and optimizer state) as Keras
        3's ``.keras`` archive, which Keras 3 loads too (`keras.saving.save_model`)."""
        model_files.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def _default_save_signature(self) -> Any:
        """For ``tf.saved_model.save(model, ...)``: the serving signature Keras 3 on
        TensorFlow exports (``serving_default``: the model called on ``inputs``, a structure
        for a model of several inputs, whose flat inputs TensorFlow names ``inputs``,
        ``inputs_1``, ... in the structure's order, a dict's by sorted key); None for a model
        whose input shapes are unknown."""
        if self._graph_nodes is not None:
            specs = map_structure(lambda t: TensorSpec(t.shape, t.dtype), self._graph_inputs)
        else:
            shape = self.__dict__.get("_build_config_shapes")
            specs = TensorSpec(shape, self.input_dtype) if isinstance(shape, tuple) and all(
                d is None or isinstance(d, int) for d in shape) else None
        if specs is None:
            return None
        if isinstance(specs, (list, tuple)) and len(specs) == 1:
            specs = specs[0]
        flat = [TensorSpec(s.shape, s.dtype, name="inputs" if i == 0 else f"inputs_{i}")
                for i, s in enumerate(nest.flatten(specs))]

        @function(input_signature=flat)
        def serving_default(*inputs):   # flat, as TensorFlow's signature takes them
            return self(nest.pack_sequence_as(specs, list(inputs)))
        return serving_default

    def export(self, filepath: Any, format: str = "tf_saved_model", verbose: Any = None,
               input_signature: Any = None, **kwargs: Any) -> None:
        """Write an inference artifact (Keras 3's ``model.export``): the endpoint ``serve``
        and the signatures ``serve`` and ``serving_default``, as a finegrad SavedModel that
        `finegrad.saved_model.load` reads (see `finegrad._src.keras.export`).

        Raises:
            NotImplementedError: for the formats ``onnx``, ``openvino`` and ``litert``.
            ValueError: for another format, or a model not built.
        """
        export.export_model(self, filepath, format=format, verbose=verbose,
                            input_signature=input_signature, **kwargs)

    def to_json(self, **kwargs: Any) -> str:
        """The model's config as Keras 3's JSON (`keras.models.model_from_json` reads it)."""
        return json.dumps(serialize_keras_object(self), default=json_default, **kwargs)

    def summary(self, line_length: Any = None, positions: Any = None, print_fn: Any = None,
                expand_nested: Any = False, show_trainable: Any = False,
                layer_range: Any = None) -> Any:
        """Print the layers, their output shapes and parameter counts, as Keras does."""
        summary.print_summary(self, line_length=line_length, positions=positions,
                              print_fn=print_fn, expand_nested=expand_nested,
                              show_trainable=show_trainable, layer_range=layer_range)

    def get_config(self) -> Any:
        """Keras 3's config: a functional model's layers and connections (`model_config`),
        or a subclassed model's constructor arguments."""
        if self._graph_nodes is not None:
            return model_config.functional_config(self)
        return self._config(automatic=type(self).get_config is Model.get_config)

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None) -> Any:
        """A new model from `get_config`'s dict (a functional model's graph rebuilt with new
        layers)."""
        if "layers" in config and "input_layers" in config:
            inputs, outputs = model_config.rebuild_graph(config, custom_objects)
            kind = Model if cls in (Model, Functional) else cls
            return kind(inputs=inputs, outputs=outputs, name=config.get("name"),
                        trainable=config.get("trainable", True))
        return super().from_config(config)


class Functional(Model):
    """A model defined by symbolic inputs and outputs (what ``Model(inputs, outputs)``
    makes)."""

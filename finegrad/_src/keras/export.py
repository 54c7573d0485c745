"""``Model.export``: a finegrad.keras model as an inference artifact, Keras 3's
``model.export(filepath, format="tf_saved_model")`` (its ``ExportArchive`` defaults).

The artifact is a finegrad SavedModel (`finegrad.saved_model.load` reads it; TensorFlow's
``saved_model.pb`` is not written). As Keras's, its root has the endpoint ``serve`` (the model
called on its inputs, in inference mode), the signatures ``serve`` and ``serving_default``
(the same function: keyword arguments named after the model's `Input`s, a dict of outputs
``output_0``, ``output_1``... or the model's own output keys), and the model's
``variables``, ``trainable_variables`` and ``non_trainable_variables``. The endpoint of a
model of several inputs takes their structure as Keras's does (``serve([a, b])``), or the
same tensors as separate arguments (``serve(a, b)``).
"""
from __future__ import annotations

from typing import Any

from finegrad._src import nest
from finegrad._src.api.module import Module
from finegrad._src.graph.saved_model import save as saved_model
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.graph.tracing.function import function
from finegrad._src.keras.nodes import map_structure

_OTHER_FORMATS = ("onnx", "openvino", "litert")


def input_specs(model: Any, input_signature: Any = None) -> Any:
    """The structure of `TensorSpec`s the model is exported for: ``input_signature``, else the
    model's `Input`s (each named as its Input, the batch size open), else the shape of its
    first call (a subclassed model: its argument named ``args_0``, as TensorFlow names it)."""
    if input_signature is not None:
        specs = input_signature
        if isinstance(specs, (list, tuple)) and len(specs) == 1:
            specs = specs[0]
        return map_structure(lambda s: TensorSpec(getattr(s, "shape", s), getattr(
            s, "dtype", "float32"), name=getattr(s, "name", None)), specs, tuple_shapes=True)
    if model._graph_nodes is not None:
        specs = map_structure(lambda t: TensorSpec((None,) + tuple(t.shape)[1:], t.dtype,
                                                   name=t.name), model._graph_inputs)
        return specs[0] if isinstance(specs, (list, tuple)) and len(specs) == 1 else specs
    shape = model.__dict__.get("_build_config_shapes")
    if not (model.built and isinstance(shape, tuple)):
        raise ValueError("The model provided has never called. It must be called at least "
                         "once before export.")
    return TensorSpec((None,) + tuple(shape)[1:], model.input_dtype, name="args_0")


def serving_function(model: Any, specs: Any) -> Any:
    """The model called on ``specs``' structure, as a function of its flat inputs."""
    flat = [TensorSpec(s.shape, s.dtype, name=s.name or f"inputs_{i}")
            for i, s in enumerate(nest.flatten(specs))]

    @function(input_signature=flat)
    def serve(*inputs):
        return model(nest.pack_sequence_as(specs, list(inputs)), training=False)
    return serve


class _Archive(Module):
    """The artifact's root: the endpoint and the model's variables."""

    def __init__(self, model: Any, serve: Any) -> None:
        super().__init__()
        self.serve = serve
        self.model_variables = list(model.weights)   # (Module's ``variables`` reads them)


def export_model(model: Any, filepath: Any, format: str = "tf_saved_model",
                 verbose: Any = None, input_signature: Any = None, **kwargs: Any) -> None:
    """Write ``model``'s inference artifact to ``filepath`` (see this module)."""
    if format in _OTHER_FORMATS:
        raise NotImplementedError(f"Model.export: format={format!r} is not implemented in "
                                  f"finegrad.keras (it writes 'tf_saved_model', as a finegrad "
                                  f"SavedModel)")
    if format != "tf_saved_model":
        raise ValueError(f"Unrecognized format={format}")
    if not model.built:
        raise ValueError("The model provided has not yet been built. It must be built before "
                         "export.")
    serve = serving_function(model, input_specs(model, input_signature))
    root = _Archive(model, serve)
    saved_model.save(root, filepath, signatures={"serve": serve, "serving_default": serve})
    if verbose is None or verbose:
        names = ", ".join(s.name for s in serve._signature)
        print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n"
              f"* Endpoint 'serve'\n  inputs: {names}")

"""`Input` and `InputLayer`: the symbolic inputs of the functional API."""

from __future__ import annotations

from typing import Any

from finegrad._src.keras import naming
from finegrad._src.keras.dtype_policies import floatx
from finegrad._src.keras.nodes import KerasTensor
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.nodes import Node


class InputLayer(Layer):
    """The layer that makes a functional model's input (`Input` returns its output).

    Args:
        shape: the shape of one example (without the batch size).
        batch_size: a fixed batch size (None: any).
        dtype: the input's dtype (floatx when None).
        sparse: accepted; finegrad has dense tensors only (True is a ValueError).
        batch_shape: the full shape, batch size included (instead of ``shape``).
        input_tensor: a KerasTensor to use as the input.
        optional: accepted, as Keras.
        name: the layer's name.

    >>> import finegrad as tf
    >>> tf.keras.layers.InputLayer(shape=(4,)).output.shape
    (None, 4)
    """

    def __init__(self, shape: Any = None, batch_size: Any = None, dtype: Any = None,
                 sparse: Any = None, batch_shape: Any = None, input_tensor: Any = None,
                 optional: Any = False, name: Any = None, **kwargs: Any) -> None:
        if "input_shape" in kwargs:    # Keras 2's keyword
            shape = kwargs.pop("input_shape")
        kwargs.pop("ragged", None)     # (in Keras's config; finegrad has no ragged tensors)
        if sparse:
            raise ValueError("InputLayer: sparse inputs are not supported by finegrad.keras")
        name = naming.auto_name("InputLayer") if name is None else name
        super().__init__(name=name, dtype=dtype, **kwargs)
        if input_tensor is not None:
            if not isinstance(input_tensor, KerasTensor):
                raise ValueError(f"InputLayer: argument `input_tensor` must be a KerasTensor. "
                                 f"Received invalid type: input_tensor={input_tensor} (of "
                                 f"type {type(input_tensor)})")
            batch_shape = input_tensor.shape
        elif batch_shape is None:
            if shape is None:
                raise ValueError("InputLayer: you must pass a `shape` argument.")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size,) + shape
        self._batch_shape = tuple(batch_shape)
        self._input_dtype = dtype or floatx()
        self.optional = optional
        t = input_tensor or KerasTensor.placeholder(self._batch_shape, self._input_dtype,
                                                    name=name)
        node = Node(self, (), {}, t)
        t._keras_history = (node, 0)
        self._inbound_nodes.append(node)
        self.built = True

    @property
    def batch_shape(self) -> Any:
        return self._batch_shape

    @property
    def dtype(self) -> Any:
        return self._input_dtype

    def call(self) -> Any:
        return None

    def get_config(self) -> Any:
        return {"batch_shape": list(self._batch_shape), "dtype": self._input_dtype,
                "sparse": False, "ragged": False, "name": self.name, "optional": self.optional}


def Input(shape: Any = None, batch_size: Any = None, dtype: Any = None,
          sparse: Any = None, batch_shape: Any = None, name: Any = None, tensor: Any = None,
          optional: Any = False) -> Any:
    """A symbolic input of a functional model: ``Input(shape=(784,))`` stands for a batch of
    784-vectors (the batch size None).

    Args:
        shape: the shape of one example, without the batch size.
        batch_size: a fixed batch size (None: any).
        dtype: the dtype (floatx, float32 by default).
        sparse: accepted (True is a ValueError: finegrad has dense tensors only).
        batch_shape: the full shape, batch size included.
        name: the input's name (``input_layer``, ``input_layer_1``... when None).
        tensor: an existing KerasTensor to wrap.
        optional: accepted, as Keras.

    Returns:
        A `KerasTensor`.

    >>> import finegrad as tf
    >>> x = tf.keras.Input(shape=(28, 28), batch_size=32)
    >>> x.shape
    (32, 28, 28)
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       batch_shape=batch_shape, name=name, input_tensor=tensor,
                       optional=optional)
    return layer.output

"""KerasTensor: the handle of a symbolic tensor of the functional API.

The functional API traces with finegrad's graph machinery, as ``finegrad.function`` does
for an input_signature: `Input` adds an argument to the session's functional graph (a
`GraphBuilder` with shape polymorphism on), its ``None`` sizes symbolic; a layer called on
symbolic tensors runs its ``call`` under that builder, so each output's shape (open sizes
included) comes from the primitives' shape rules. A `KerasTensor` wraps one traced tensor and
remembers which layer call made it (``_keras_history``); a layer receives the traced tensor
itself, so every finegrad op works inside ``call``. Operators on KerasTensors (``x + y``,
``x[:, 0]``) become operation nodes, as in Keras 3.
"""
import numpy as np

from finegrad._src import dtypes
from finegrad._src.graph.builder import GraphBuilder
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor

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

    def __init__(self, tensor, builder, name=None):
        self._tensor = tensor
        self._builder = builder
        self.name = name
        self._keras_history = None
        self._keras_mask = None

    @classmethod
    def placeholder(cls, shape, dtype, name=None):
        """A new argument of the functional graph with ``shape`` (None: any size)."""
        builder = functional_builder()
        dt = dtypes.as_dtype(dtype)
        example = tuple(_EXAMPLE_SIZE if n is None else int(n) for n in shape)
        t = Tensor(np.zeros(example, dt._np) if example else dt._np.type(0))
        builder.add_arg(t, dynamic=tuple(i for i, n in enumerate(shape) if n is None))
        return cls(t, builder, name)

    @property
    def shape(self):
        return tuple(self._builder.static_shape(self._tensor).as_list())

    @property
    def dtype(self):
        return self._tensor.dtype.name

    @property
    def ndim(self):
        return len(self.shape)

    def get_shape(self):
        return TensorShape(self.shape)

    def __repr__(self):
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, "
                f"ragged=False, name={self.name}>")

    def __array__(self, dtype=None, copy=None):
        raise ValueError(_NOT_A_VALUE)

    def numpy(self):
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

    __hash__ = object.__hash__


_NOT_A_VALUE = ("A KerasTensor is symbolic: it's a placeholder for a shape and a dtype. It "
                "doesn't have any actual numerical value. You cannot convert it to a NumPy "
                "array or pass it to a finegrad function directly; use it in Keras layers (a "
                "`Lambda` layer or a custom layer wraps other functions).")


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic tensor of the functional API.

    >>> import finegrad as tf
    >>> from finegrad._src.keras.keras_tensor import is_keras_tensor
    >>> is_keras_tensor(tf.keras.Input((2,))), is_keras_tensor(tf.ones(2))
    (True, False)
    """
    return isinstance(x, KerasTensor)

"""`finegrad.ops` on Keras 3's symbolic tensors: a call with a ``KerasTensor`` argument (the
functional API, ``keras.Input``) becomes a ``keras.Operation`` in the model's graph, whose
``call`` runs the same finegrad.ops function on the backend Keras runs on, and whose output
shape and dtype Keras infers by running that call on placeholder values
(``keras.Operation.compute_output_spec``). Imported only when a KerasTensor is seen."""
import keras

from finegrad._src import backends as _backends

_FRAMEWORKS = {"jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}


def keras_backend_name():
    """The finegrad.ops backend of the installed Keras (ValueError for Keras's numpy backend,
    whose arrays have no gradients)."""
    name = keras.backend.backend()
    if name not in _FRAMEWORKS:
        raise ValueError(f"finegrad.ops: Keras runs on its {name!r} backend, which finegrad.ops "
                         f"does not follow; set KERAS_BACKEND to jax, torch or tensorflow")
    return _FRAMEWORKS[name]


class FinegradOperation(keras.Operation):
    """One call of a finegrad.ops function (or of an ``ops.custom_gradient`` function) in a
    Keras functional graph."""

    def __init__(self, fn, label):
        super().__init__()
        self.fn = fn

    def call(self, *args, **kwargs):
        with _backends.scope(keras_backend_name()):
            return self.fn(*args, **kwargs)


def run(fn, label, args, kwargs):
    """``fn(*args, **kwargs)`` as a node of Keras's graph (its inputs include KerasTensors)."""
    return FinegradOperation(fn, label)(*args, **kwargs)


class Symbolic:
    """The stand-in backend for calls with KerasTensor arguments: ``ops.add(kt, 1.0)`` is
    ``run`` of the active Keras backend's ``add``."""

    name = "keras"
    framework = "keras"
    run = staticmethod(run)

    def __getattr__(self, name):
        def op(*args, **kwargs):
            def on_keras_backend(*a, **k):
                return getattr(_backends.current(), name)(*a, **k)
            return run(on_keras_backend, name, args, kwargs)
        op.__name__ = name
        return op

    @staticmethod
    def static_shape(x):
        return tuple(x.shape)

    @staticmethod
    def dtype_name(x):
        return x.dtype

    @staticmethod
    def is_tensor(x):
        return True

    @staticmethod
    def convert_to_tensor(x, dtype=None):
        return x if dtype is None else keras.ops.cast(x, dtype)

    @staticmethod
    def convert_to_numpy(x):
        raise ValueError("finegrad.ops.convert_to_numpy: a KerasTensor is symbolic (a "
                         "functional model's placeholder) and has no value yet")


SYMBOLIC = Symbolic()


def is_symbolic(x):
    return isinstance(x, keras.KerasTensor)

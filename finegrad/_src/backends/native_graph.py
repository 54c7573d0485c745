"""`finegrad.ops` on finegrad.keras's symbolic tensors: a call with a finegrad ``KerasTensor``
argument (``finegrad.keras.Input``) becomes an `Operation` node of the functional graph, as
Keras 3's ops do on its KerasTensors. The node's function is the same ops call on the finegrad
backend (finegrad.keras runs on finegrad's engine); its output's shape and dtype come from
tracing that call, and the model runs it again on real tensors."""
from finegrad._src import backends
from finegrad._src.keras.nodes import Operation


def run(fn, label, args, kwargs):
    """``fn(*args, **kwargs)`` as a node of the functional graph (its inputs include
    KerasTensors)."""
    return Operation(fn, label)(*args, **kwargs)


class NativeSymbolic:
    """The stand-in backend for calls with finegrad KerasTensor arguments: ``ops.add(kt, 1.0)``
    records a node that runs the finegrad backend's ``add``."""

    name = "finegrad-keras"
    framework = "finegrad"
    run = staticmethod(run)

    def __getattr__(self, name):
        def op(*args, **kwargs):
            def on_finegrad(*a, **k):
                with backends.scope("finegrad"):
                    return getattr(backends.current(), name)(*a, **k)
            return run(on_finegrad, name, args, kwargs)
        op.__name__ = name
        return op


SYMBOLIC = NativeSymbolic()

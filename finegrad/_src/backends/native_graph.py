"""`finegrad.ops` on finegrad.keras's symbolic tensors: a call with a finegrad ``KerasTensor``
argument (``finegrad.keras.Input``) becomes an `Operation` node of the functional graph, as
Keras 3's ops do on its KerasTensors. The node's function is the same ops call on the finegrad
backend (finegrad.keras runs on finegrad's engine); its output's shape and dtype come from
tracing that call, and the model runs it again on real tensors. A call Keras makes an
operation class for (`operation_classes`) is split as Keras splits it, so the model's config
saves it as Keras does."""
from finegrad._src import backends
from finegrad._src.backends.keras_signatures import PARAMETERS
from finegrad._src.keras import operation_classes
from finegrad._src.keras.nodes import Operation


def run(fn, label, args, kwargs):
    """``fn(*args, **kwargs)`` as a node of the functional graph (its inputs include
    KerasTensors)."""
    return Operation(fn, label)(*args, **kwargs)


def _by_name(name, args, kwargs):
    """The call's arguments by Keras's parameter names, and the variadic rest (None when
    they do not bind)."""
    spec = operation_classes.KERAS_OPS.get(name)
    params = PARAMETERS.get(name, ())
    variadic = spec is not None and any(p.startswith("*") for p in spec.call)
    if spec is None or (len(args) > len(params) and not variadic):
        return None
    by_name = dict(zip(params, args, strict=False))   # the rest: variadic
    if set(by_name) & set(kwargs):
        return None
    return {**by_name, **kwargs}, tuple(args[len(params):])


def record(name, args, kwargs, on_finegrad):
    """The node of the ops call ``name``: one Keras can save when Keras has a class for it."""
    bound = _by_name(name, args, kwargs)
    made = bound and operation_classes.record(name, *bound)
    if made:
        op, op_args, op_kwargs = made
        return op(*op_args, **op_kwargs)
    return run(on_finegrad, name, args, kwargs)


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
            return record(name, args, kwargs, on_finegrad)
        op.__name__ = name
        return op


SYMBOLIC = NativeSymbolic()

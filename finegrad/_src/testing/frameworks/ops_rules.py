"""Rules written with `keras.ops` (Keras 3's ``ops.custom_gradient`` on its JAX, PyTorch or
TensorFlow backend) or `finegrad.ops` (``finegrad.ops.custom_gradient`` on any of its
backends): found from the callable, run on the backend's own tensors through that
framework's own autodiff (the JAX, torch, TensorFlow evaluators, or finegrad's tape).

Keras's backend is fixed for a process (``KERAS_BACKEND``); a `finegrad.ops` function runs on
the backend named by ``backend=`` (``--backend``), by default the active one
(``finegrad.ops.backend()``), inside ``finegrad.ops.backend_scope``.
"""
import functools
import sys
import types

# a finegrad.ops backend -> the framework whose autodiff runs it
_FRAMEWORK_OF = {"finegrad": "finegrad", "jax": "jax", "torch": "torch",
                 "tensorflow": "tensorflow"}


def keras_backend():
    """The backend the installed Keras runs on (importing Keras), as a framework name."""
    import keras
    name = keras.config.backend()
    if name not in ("jax", "torch", "tensorflow"):
        raise ValueError(f"finegrad.testing.sweep: Keras runs on the {name!r} backend; "
                         f"rules can be checked on jax, torch or tensorflow")
    return name


def is_ops_rule(fn):
    """Whether ``fn`` is a `finegrad.ops.custom_gradient` function."""
    return callable(getattr(fn, "_finegrad_ops_rule", None))


def is_keras_rule(fn):
    """Whether ``fn`` is a `keras.ops.custom_gradient` function (of any Keras backend).

    On Keras's TensorFlow backend ``keras.ops.custom_gradient`` is ``tf.custom_gradient``
    itself, so such a rule is known by what it is written with: a TensorFlow custom
    gradient whose function uses Keras (``keras.ops`` names), with Keras on tensorflow."""
    if (type(fn).__module__ or "").startswith("keras.") or \
            (getattr(fn, "__module__", None) or "").startswith("keras.src.backend"):
        return True
    keras = sys.modules.get("keras")
    inner = getattr(fn, "__wrapped__", None)
    if keras is None or not (type(fn).__module__ or "").startswith("tensorflow") or \
            not isinstance(inner, types.FunctionType):
        return False
    try:
        on_tf = keras.config.backend() == "tensorflow"
    except AttributeError:     # not Keras 3
        return False
    return on_tf and _uses_keras(inner)


def _uses_keras(fn):
    """Whether the names ``fn``'s code (its nested functions included) reads are Keras's:
    a module or a function of the ``keras`` package, as a global or a closure variable."""
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:     # an empty cell
            continue
    codes, names = [fn.__code__], set()
    while codes:
        code = codes.pop()
        names.update(code.co_names, code.co_freevars)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    for name in names & scope.keys():
        obj = scope[name]
        owner = obj.__name__ if isinstance(obj, types.ModuleType) else \
            getattr(obj, "__module__", None)
        if isinstance(owner, str) and owner.split(".")[0] == "keras":
            return True
    return False



def user_function(fn):
    """The function the user wrote under a `keras.ops` / `finegrad.ops` ``custom_gradient``
    (for its name and its parameters), else ``fn``."""
    inner = getattr(fn, "_finegrad_ops_rule", None)
    if callable(inner):
        return inner
    if not is_keras_rule(fn):
        return fn
    if callable(getattr(fn, "forward_fn", None)):          # Keras on torch
        return fn.forward_fn
    for _ in range(4):    # Keras on jax: wrapper -> jax.custom_gradient's custom_vjp -> fn
        inner = getattr(fn, "__wrapped__", None) or next(
            (c.cell_contents for c in getattr(fn, "__closure__", None) or ()
             if callable(c.cell_contents)), None)
        if inner is None:
            return fn
        fn = inner
        if not _framework_internal(fn):
            return fn
    return fn


def _framework_internal(fn):
    module = getattr(fn, "__module__", None) or type(fn).__module__ or ""
    return module.split(".")[0] in ("keras", "jax") or "<locals>" in getattr(
        fn, "__qualname__", "<locals>")


def label(fn, framework=None, backend=None):
    """How a report names what ``fn`` runs on: "keras.ops on jax", "finegrad.ops on torch",
    or None (the framework's name does)."""
    if framework == "keras" or backend is None and is_keras_rule(fn):
        return f"keras.ops on {keras_backend()}"
    if backend is not None or is_ops_rule(fn):
        from finegrad._src import backends
        return f"finegrad.ops on {backend or backends.current_name()}"
    return None


def resolve(fn, framework=None, backend=None):
    """``(callable, framework)``: what to evaluate and whose autodiff runs it.

    ``framework`` "keras" means Keras's backend. ``backend`` (a `finegrad.ops` backend
    name) runs ``fn`` inside ``finegrad.ops.backend_scope(backend)``; a
    `finegrad.ops.custom_gradient` function without it runs on the active backend.
    """
    if framework == "keras" or framework is None and backend is None and is_keras_rule(fn):
        return fn, keras_backend()
    if backend is None and is_ops_rule(fn):
        from finegrad._src import backends
        backend = backends.current_name()
    if backend is None:
        return fn, framework
    if backend not in _FRAMEWORK_OF:
        raise ValueError(f"finegrad.testing.sweep: backend must be one of "
                         f"{tuple(_FRAMEWORK_OF)}, got {backend!r}")
    if framework is not None and framework != _FRAMEWORK_OF[backend]:
        raise ValueError(f"finegrad.testing.sweep: framework {framework!r} does not match "
                         f"backend {backend!r} (its tensors are {_FRAMEWORK_OF[backend]}'s)")
    return on_backend(fn, backend), _FRAMEWORK_OF[backend]


def on_backend(fn, backend):
    """``fn`` called inside ``finegrad.ops.backend_scope(backend)``."""
    from finegrad._src import backends
    backends.scope(backend)     # loads it now: a missing framework is an ImportError here

    @functools.wraps(user_function(fn))
    def scoped(*args):
        with backends.scope(backend):
            return fn(*args)
    # finegrad.ops.custom_gradient compiles to tf.custom_gradient on tensorflow
    scoped._tf_custom_gradient = is_ops_rule(fn) and backend == "tensorflow"
    return scoped


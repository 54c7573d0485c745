"""Differentiation on any backend: `custom_gradient` compiled to each framework's own
mechanism, and `grad` / `value_and_grad` by each framework's own reverse mode."""

import functools as _functools
from typing import Any

from finegrad._src import backends as _backends
from finegrad._src.ad import functional as _functional


def custom_gradient(f: Any = None, *, forward: Any = "none", jvp: Any = None) -> Any:
    """Decorator: define the gradient of ``f`` yourself, on any backend.

    ``f(*args, **kwargs)`` returns ``(y, grad)``; the decorated function returns ``y``. ``grad``
    may be written in any of three forms: ``grad(*upstreams)`` (one upstream gradient per
    element of ``y`` when ``y`` is a list or tuple, else one shaped like ``y``; TensorFlow's
    contract), ``grad(upstream)`` (Keras on JAX and TensorFlow) or ``grad(*args, upstream)``
    with ``upstream`` keyword-only (Keras on PyTorch: ``args`` are ``f``'s arguments). It
    returns one gradient per argument (None where there is none), as
    `finegrad.custom_gradient` reads it, checked for count, shape and dtype on every backend.

    The backend is the one active at each call (the function is compiled once per backend),
    so one decorated function runs on every backend.

    Forward mode: the finegrad and torch backends transpose ``grad`` (it is linear in the
    upstream gradient). On JAX the default is a ``jax.custom_vjp`` (reverse mode only);
    ``forward="transpose"`` opts in to a ``jax.custom_jvp`` whose JVP is the
    ``jax.linear_transpose`` of ``grad``, correct only for rules linear in the upstream (a
    rule JAX cannot transpose is a TypeError saying so). An explicit forward rule
    ``jvp(primals, tangents)`` (flat lists of the input tensors and their tangents -> the
    output tangents, structured like ``y``) is used on the finegrad and torch backends; JAX and
    TensorFlow cannot pair it with a custom reverse rule, so there it is a ValueError at the
    first call naming the backend and the alternative.

    Raises:
        ValueError: when ``grad`` returns the wrong number, structure or shape of gradients
            (naming the function and the parameter).
        TypeError: when a gradient has the wrong dtype or type.

    >>> from finegrad import ops
    >>> @ops.custom_gradient
    ... def triple(x):
    ...     return x * 3.0, lambda upstream: ops.clip(upstream, -1.0, 1.0)
    >>> ops.convert_to_numpy(ops.grad(lambda v: ops.sum(triple(v)))(ops.ones((2,))))
    array([1., 1.], dtype=float32)
    """
    if f is None:
        return _functools.partial(custom_gradient, forward=forward, jvp=jvp)
    _check_forward(forward)
    per_backend: dict[str, Any] = {}

    @_functools.wraps(f)
    def decorated(*args, **kwargs):
        symbolic = _symbolic(args)
        if symbolic is None and kwargs:
            symbolic = _symbolic(kwargs.values())
        if symbolic is not None:
            # a functional model's placeholder: a node of its graph (finegrad.keras's or Keras's)
            return _backends.symbolic(symbolic).run(decorated, f.__name__, args, kwargs)
        backend = _backends.current()
        on_backend = per_backend.get(backend.name)
        if on_backend is None:
            on_backend = per_backend[backend.name] = backend.custom_gradient(f, forward, jvp)
        return on_backend(*args, **kwargs)

    # no __wrapped__: tf.function, given the decorated function as an argument, calls what
    # __wrapped__ names instead (the undecorated f, which returns (y, grad))
    del decorated.__wrapped__
    decorated._finegrad_ops_rule = f  # type: ignore[attr-defined]  # for testing.sweep
    return decorated


def _check_forward(forward):
    if forward not in ("none", "transpose"):
        raise ValueError(
            f"finegrad.ops.custom_gradient: forward must be 'none' or 'transpose', got {forward!r}"
        )


def _symbolic(values):
    """The first value (or element of a list or tuple value) that is a symbolic tensor (of
    finegrad.keras or of Keras), else None."""
    for v in values:
        if type(v).__name__ == "KerasTensor":
            return v
        if type(v) in (list, tuple):
            for e in v:
                if type(e).__name__ == "KerasTensor":
                    return e
    return None


def value_and_grad(f: Any, argnums: Any = 0) -> Any:
    """``f`` -> a function returning ``(f(*args), gradient)`` for a scalar-valued ``f``, on
    the active backend (``argnums`` an int or a tuple of ints, as in ``jax.value_and_grad``).

    The same rules on every backend (JAX's, Keras having none): a gradient the function does
    not depend on, or that a custom rule gave as None, is zeros; the differentiated arguments
    must be floating point (an integer argument is a TypeError, as in ``jax.grad``); ``f`` must
    return a scalar (anything else is a TypeError naming its shape, never an implicit sum).

    >>> from finegrad import ops
    >>> value, g = ops.value_and_grad(lambda x: ops.sum(x * x))(ops.convert_to_tensor([1., 2.]))
    >>> g.numpy()
    array([2., 4.], dtype=float32)
    """
    return _value_and_grad(f, argnums, "finegrad.ops.value_and_grad")


def _value_and_grad(f, argnums, fn):
    """`value_and_grad`, its errors naming ``fn`` (the public function the user called)."""
    backend = _backends.current()
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def scalar_f(*args, **kwargs):
        y = f(*args, **kwargs)
        _functional.check_scalar(y if backend.is_tensor(y) else backend.convert_to_tensor(y),
                                 f"{fn} ({backend.name} backend)")
        return y
    differentiate = backend.value_and_grad(scalar_f, argnums)

    def value_and_grad_f(*args, **kwargs):
        _functional.check_argnums(nums, args, fn)
        args = list(args)
        for i in nums:
            args[i] = _differentiable(backend, args[i], i)
        return differentiate(*args, **kwargs)
    return value_and_grad_f


def _differentiable(backend, x, i):
    t = x if backend.is_tensor(x) else backend.convert_to_tensor(x)
    if not backend.dtype_name(t).startswith(("float", "bfloat", "complex")):
        raise TypeError(f"finegrad.ops.value_and_grad ({backend.name} backend): argument {i} "
                        f"is {backend.dtype_name(t)}; gradients are taken with respect to "
                        f"floating point arguments only (cast it with ops.cast(x, "
                        f"'float32'))")
    return t


def grad(f: Any, argnums: Any = 0) -> Any:
    """``f`` -> a function returning the gradient of the scalar-valued ``f`` (see
    ``value_and_grad``).

    >>> from finegrad import ops
    >>> ops.grad(lambda x: ops.sum(ops.square(x)))(ops.convert_to_tensor([3.])).numpy()
    array([6.], dtype=float32)
    """
    value_and_grad_f = _value_and_grad(f, argnums, "finegrad.ops.grad")

    def grad_f(*args, **kwargs):
        return value_and_grad_f(*args, **kwargs)[1]

    return grad_f

"""Keras 3's `keras.ops` on four backends: finegrad (the default), JAX, PyTorch, TensorFlow.

Each function is a thin dispatch to the active backend and returns that framework's own
tensor, so results go straight into ``jax.grad``/``jax.jit``/``jax.vmap``,
``torch.autograd``/``torch.func``, ``tf.GradientTape``/``tf.function``. The backend is the
innermost ``backend_scope`` of the thread, else ``set_backend``'s, else the
``FINEGRAD_BACKEND`` environment variable, else ``"finegrad"``. Importing this module imports
no framework; a framework is imported when its backend is first selected.

``custom_gradient`` compiles to each framework's own mechanism (``jax.custom_vjp``,
``torch.autograd.Function``, ``tf.custom_gradient``; finegrad's ``custom_gradient`` on the
finegrad backend) and accepts one grad signature everywhere: ``grad(*upstreams)``, and
Keras's ``grad(upstream)`` and ``grad(*args, upstream=...)``.

>>> from finegrad import ops
>>> @ops.custom_gradient
... def log1pexp(x):
...     e = ops.exp(x)
...     def grad(upstream):
...         return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
...     return ops.log(1 + e), grad
>>> ops.grad(log1pexp)(ops.convert_to_tensor(100.)).numpy()
np.float32(1.0)
"""

import functools as _functools

from finegrad._src import backends as _backends
from finegrad._src.ad import functional as _functional

from typing import Any as _Any

# a tensor's framework, from the top-level package of its type's module
_ROOTS = {"finegrad": "finegrad", "jax": "jax", "jaxlib": "jax", "torch": "torch",
          "tensorflow": "tensorflow"}


def _on(*xs):
    """The active backend, after checking that no argument is another framework's tensor."""
    backend = _backends.current()
    for x in xs:
        root = _ROOTS.get(type(x).__module__.partition(".")[0])
        if root is not None and root != backend.framework:
            _mixed(backend, xs)
    return backend


def _mixed(backend, xs):
    kinds = {_ROOTS.get(type(x).__module__.partition(".")[0]) for x in xs} - {None}
    kinds.discard(backend.framework)
    raise TypeError(f"finegrad.ops: a {sorted(kinds)[0]} tensor was passed to the "
                    f"{backend.name!r} backend, whose tensors are {backend.framework}'s; "
                    f"convert it with ops.convert_to_numpy, or select its backend with "
                    f"ops.set_backend / ops.backend_scope")


# --- choosing the backend ---------------------------------------------------------------------

def backend() -> str:
    """The name of the active backend of this thread: finegrad, jax, torch or tensorflow.

    >>> from finegrad import ops
    >>> ops.backend()
    'finegrad'
    """
    return _backends.current_name()


def set_backend(name: str) -> None:
    """Select the backend of every thread (outside ``backend_scope`` blocks).

    Raises:
        ValueError: for an unknown name.
        ImportError: when the backend's framework is not installed (naming the extra).
    """
    _backends.set_default(name)


def backend_scope(name: str) -> _Any:
    """A context manager: inside it, this thread's ops calls run on backend ``name``.

    >>> from finegrad import ops
    >>> with ops.backend_scope("finegrad"):
    ...     ops.backend()
    'finegrad'
    """
    return _backends.scope(name)


# --- differentiation --------------------------------------------------------------------------

def custom_gradient(f: _Any = None, *, forward: _Any = "none", jvp: _Any = None) -> _Any:
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
    upstream gradient; a rule that is not, found by running it at two scales of the upstream
    at the first forward-mode use, is a TypeError naming the function, never a made-up
    tangent). On JAX the default is a ``jax.custom_vjp`` (reverse mode only);
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
    """
    if f is None:
        return _functools.partial(custom_gradient, forward=forward, jvp=jvp)
    if forward not in ("none", "transpose"):
        raise ValueError(f"finegrad.ops.custom_gradient: forward must be 'none' or "
                         f"'transpose', got {forward!r}")
    per_backend: dict = {}

    @_functools.wraps(f)
    def decorated(*args, **kwargs):
        backend = _backends.current()
        on_backend = per_backend.get(backend.name)
        if on_backend is None:
            on_backend = per_backend[backend.name] = backend.custom_gradient(f, forward,
                                                                               jvp)
        return on_backend(*args, **kwargs)
    # no __wrapped__: tf.function, given the decorated function as an argument, calls what
    # __wrapped__ names instead (the undecorated f, which returns (y, grad))
    del decorated.__wrapped__
    return decorated


def value_and_grad(f: _Any, argnums: int | tuple[int, ...] = 0) -> _Any:
    """``f`` -> a function returning ``(f(*args), gradient)`` for a scalar-valued ``f``, on
    the active backend (``argnums`` an int or a tuple of ints, as in ``jax.value_and_grad``).

    >>> from finegrad import ops
    >>> value, g = ops.value_and_grad(lambda x: ops.sum(x * x))(ops.convert_to_tensor([1., 2.]))
    >>> g.numpy()
    array([2., 4.], dtype=float32)
    """
    return _checked_value_and_grad(f, argnums, "finegrad.ops.value_and_grad")


def _checked_value_and_grad(f, argnums, fn):
    """The backend's value_and_grad, with JAX's checks of ``argnums`` and of a scalar output
    on every backend (never the gradient of a non-scalar's sum)."""
    value_and_grad_f = _backends.current().value_and_grad(f, argnums)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def checked(*args, **kwargs):
        _functional.check_argnums(nums, args, fn)
        value, g = value_and_grad_f(*args, **kwargs)
        _functional.check_scalar(value, fn)
        return value, g
    return checked


def grad(f: _Any, argnums: int | tuple[int, ...] = 0) -> _Any:
    """``f`` -> a function returning the gradient of the scalar-valued ``f`` (see
    ``value_and_grad``).

    >>> from finegrad import ops
    >>> ops.grad(lambda x: ops.sum(ops.square(x)))(ops.convert_to_tensor([3.])).numpy()
    array([6.], dtype=float32)
    """
    value_and_grad_f = _checked_value_and_grad(f, argnums, "finegrad.ops.grad")

    def grad_f(*args, **kwargs):
        return value_and_grad_f(*args, **kwargs)[1]
    return grad_f


# --- tensors ----------------------------------------------------------------------------------

def convert_to_tensor(x: _Any, dtype: _Any = None) -> _Any:
    """``x`` (a number, nested list, NumPy array or tensor) as the backend's tensor; Python
    floats become float32."""
    return _on(x).convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x: _Any) -> _Any:
    """The value of tensor ``x`` as a NumPy array."""
    return _on(x).convert_to_numpy(x)


def cast(x: _Any, dtype: _Any) -> _Any:
    """``x`` converted to ``dtype`` (a name such as ``"float32"``)."""
    return _on(x).cast(x, dtype)


def shape(x: _Any) -> _Any:
    """The shape of ``x`` as a tuple (None for sizes unknown while tracing)."""
    return _on(x).static_shape(x)


def zeros(shape: _Any, dtype: _Any = "float32") -> _Any:
    """A tensor of zeros of ``shape``."""
    return _backends.current().zeros(shape, dtype)


def ones(shape: _Any, dtype: _Any = "float32") -> _Any:
    """A tensor of ones of ``shape``."""
    return _backends.current().ones(shape, dtype)


def reshape(x: _Any, newshape: _Any) -> _Any:
    """``x`` with shape ``newshape`` (one size may be -1)."""
    return _on(x).reshape(x, newshape)


def transpose(x: _Any, axes: _Any = None) -> _Any:
    """``x`` with its axes permuted by ``axes`` (reversed when None)."""
    return _on(x).transpose(x, axes)


def expand_dims(x: _Any, axis: _Any) -> _Any:
    """``x`` with a new axis of length 1 at ``axis``."""
    return _on(x).expand_dims(x, axis)


def squeeze(x: _Any, axis: _Any = None) -> _Any:
    """``x`` without its axes of length 1 (or only ``axis``)."""
    return _on(x).squeeze(x, axis)


def concatenate(xs: _Any, axis: int = 0) -> _Any:
    """The tensors ``xs`` joined along the existing ``axis``."""
    return _on(*xs).concatenate(list(xs), axis)


def stack(x: _Any, axis: _Any = 0) -> _Any:
    """The tensors ``x`` joined along a new ``axis``."""
    return _on(*x).stack(list(x), axis)


def where(condition: _Any, x1: _Any, x2: _Any) -> _Any:
    """Elementwise ``x1`` where ``condition`` holds, else ``x2`` (broadcasting)."""
    return _on(condition, x1, x2).where(condition, x1, x2)


def clip(x: _Any, x_min: _Any, x_max: _Any) -> _Any:
    """``x`` limited to ``[x_min, x_max]``."""
    return _on(x, x_min, x_max).clip(x, x_min, x_max)


def einsum(subscripts: _Any, *operands: _Any) -> _Any:
    """Einstein summation of ``operands`` as ``subscripts`` says (e.g. ``"ij,jk->ik"``)."""
    return _on(*operands).einsum(subscripts, *operands)


def softmax(x: _Any, axis: int = -1) -> _Any:
    """e**x normalised to sum to 1 along ``axis``."""
    return _on(x).softmax(x, axis)


def log_softmax(x: _Any, axis: int = -1) -> _Any:
    """log(softmax(x)) along ``axis``, computed stably."""
    return _on(x).log_softmax(x, axis)


# --- elementwise, binary and reductions -------------------------------------------------------

def abs(x: _Any) -> _Any:
    """Elementwise absolute value."""
    return _on(x).abs(x)


def exp(x: _Any) -> _Any:
    """Elementwise e**x."""
    return _on(x).exp(x)


def log(x: _Any) -> _Any:
    """Elementwise natural logarithm."""
    return _on(x).log(x)


def log1p(x: _Any) -> _Any:
    """Elementwise log(1 + x)."""
    return _on(x).log1p(x)


def expm1(x: _Any) -> _Any:
    """Elementwise e**x - 1."""
    return _on(x).expm1(x)


def sqrt(x: _Any) -> _Any:
    """Elementwise square root."""
    return _on(x).sqrt(x)


def square(x: _Any) -> _Any:
    """Elementwise x**2."""
    return _on(x).square(x)


def sin(x: _Any) -> _Any:
    """Elementwise sine."""
    return _on(x).sin(x)


def cos(x: _Any) -> _Any:
    """Elementwise cosine."""
    return _on(x).cos(x)


def tan(x: _Any) -> _Any:
    """Elementwise tangent."""
    return _on(x).tan(x)


def tanh(x: _Any) -> _Any:
    """Elementwise hyperbolic tangent."""
    return _on(x).tanh(x)


def sign(x: _Any) -> _Any:
    """Elementwise sign (-1, 0 or 1)."""
    return _on(x).sign(x)


def negative(x: _Any) -> _Any:
    """Elementwise -x."""
    return _on(x).negative(x)


def floor(x: _Any) -> _Any:
    """Elementwise floor."""
    return _on(x).floor(x)


def sigmoid(x: _Any) -> _Any:
    """Elementwise logistic sigmoid 1 / (1 + e**-x)."""
    return _on(x).sigmoid(x)


def softplus(x: _Any) -> _Any:
    """Elementwise log(1 + e**x)."""
    return _on(x).softplus(x)


def relu(x: _Any) -> _Any:
    """Elementwise max(x, 0)."""
    return _on(x).relu(x)


def stop_gradient(x: _Any) -> _Any:
    """``x``, through which no gradient flows."""
    return _on(x).stop_gradient(x)


def add(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 + x2 (broadcasting)."""
    return _on(x1, x2).add(x1, x2)


def subtract(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 - x2 (broadcasting)."""
    return _on(x1, x2).subtract(x1, x2)


def multiply(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 * x2 (broadcasting)."""
    return _on(x1, x2).multiply(x1, x2)


def divide(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 / x2 (broadcasting)."""
    return _on(x1, x2).divide(x1, x2)


def power(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 ** x2 (broadcasting)."""
    return _on(x1, x2).power(x1, x2)


def maximum(x1: _Any, x2: _Any) -> _Any:
    """Elementwise maximum (broadcasting)."""
    return _on(x1, x2).maximum(x1, x2)


def minimum(x1: _Any, x2: _Any) -> _Any:
    """Elementwise minimum (broadcasting)."""
    return _on(x1, x2).minimum(x1, x2)


def equal(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 == x2 (boolean)."""
    return _on(x1, x2).equal(x1, x2)


def not_equal(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 != x2 (boolean)."""
    return _on(x1, x2).not_equal(x1, x2)


def less(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 < x2 (boolean)."""
    return _on(x1, x2).less(x1, x2)


def less_equal(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 <= x2 (boolean)."""
    return _on(x1, x2).less_equal(x1, x2)


def greater(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 > x2 (boolean)."""
    return _on(x1, x2).greater(x1, x2)


def greater_equal(x1: _Any, x2: _Any) -> _Any:
    """Elementwise x1 >= x2 (boolean)."""
    return _on(x1, x2).greater_equal(x1, x2)


def matmul(x1: _Any, x2: _Any) -> _Any:
    """Matrix product of x1 and x2 (batched over leading axes)."""
    return _on(x1, x2).matmul(x1, x2)


def sum(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Sum over ``axis`` (all axes when None)."""
    return _on(x).sum(x, axis=axis, keepdims=keepdims)


def mean(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Mean over ``axis`` (all axes when None)."""
    return _on(x).mean(x, axis=axis, keepdims=keepdims)


def max(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Maximum over ``axis`` (all axes when None)."""
    return _on(x).max(x, axis=axis, keepdims=keepdims)


def min(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Minimum over ``axis`` (all axes when None)."""
    return _on(x).min(x, axis=axis, keepdims=keepdims)


def prod(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Product over ``axis`` (all axes when None)."""
    return _on(x).prod(x, axis=axis, keepdims=keepdims)


def logsumexp(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """log(sum(exp(x))) over ``axis``, computed stably."""
    return _on(x).logsumexp(x, axis=axis, keepdims=keepdims)

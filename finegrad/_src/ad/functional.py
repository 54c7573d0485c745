"""Functional transformations on top of the recorders: vjp, jvp, grad, value_and_grad, hessian.

These are JAX-style entry points (TensorFlow has none); `finegrad.testing` is built on them.
"""

from __future__ import annotations

from finegrad._src.tracebacks import api_boundary
from finegrad._src import nest
from finegrad._src.ad.forward import ForwardAccumulator
from finegrad._src.ad.tape import GradientTape
from finegrad._src.ops.array.gather import dense_cotangent
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


def _as_tensors(xs):
    return [x if type(x) is Tensor else convert_to_tensor(x) for x in xs]


@api_boundary
def vjp(f: Any, *primals: Any) -> Any:
    """``(f(*primals), vjp_fn)``; ``vjp_fn(ct)`` returns one cotangent per primal.

    >>> import finegrad as fg
    >>> y, vjp_fn = fg.vjp(lambda x: x * x, fg.constant(3.))
    >>> vjp_fn(fg.constant(1.))[0].numpy()
    np.float32(6.0)
    """
    xs = _as_tensors(primals)
    tape = GradientTape(persistent=True)
    with tape:
        tape.watch(xs)
        out = f(*xs)

    def vjp_fn(ct):
        return tuple(map(dense_cotangent, tape.gradient(out, xs, output_gradients=ct)))
    return out, vjp_fn


@api_boundary
def jvp(f: Any, primals: Any, tangents: Any) -> Any:
    """``(f(*primals), J v)`` in forward mode.

    >>> import finegrad as fg
    >>> y, t = fg.jvp(lambda x: x * x, [fg.constant(3.)], [fg.constant(1.)])
    >>> t.numpy()
    np.float32(6.0)
    """
    xs = _as_tensors(primals)
    ts = [convert_to_tensor(t, dtype_hint=x.dtype) for x, t in zip(xs, tangents, strict=True)]
    with ForwardAccumulator(xs, ts) as acc:
        out = f(*xs)
    tan = acc.jvp(out)
    tan = nest.map_structure(lambda o_t: o_t, tan)
    return out, _fill_zero(out, tan)


def _fill_zero(out, tan):
    from finegrad._src.ops.array.structural import zeros_like
    flat_o, flat_t = nest.flatten(out), nest.flatten(tan)
    return nest.pack_sequence_as(out, [zeros_like(o) if t is None else t
                                       for o, t in zip(flat_o, flat_t, strict=True)])


def value_and_grad(f: Any, argnums: Any = 0) -> Any:
    """``f`` -> a function returning ``(f(*args), gradient)`` for scalar-valued ``f``.

    >>> import finegrad as fg
    >>> fg.value_and_grad(lambda x: x ** 2)(fg.constant(3.))[1].numpy()
    np.float32(6.0)
    """
    return _value_and_grad(f, argnums, "finegrad.value_and_grad")


def check_argnums(nums, args, fn):
    """JAX's TypeError for an ``argnums`` beyond the positional arguments given."""
    if nums and max(nums) >= len(args):
        raise TypeError(f"{fn}: differentiating with respect to argnums={max(nums)} requires "
                        f"at least {max(nums) + 1} positional arguments to be passed by the "
                        f"caller, but got only {len(args)} positional arguments")


def check_scalar(out, fn):
    """JAX's rule (and torch.func's): a gradient of a function whose output is not a scalar
    is an error, never the gradient of its sum."""
    shape = getattr(out, "shape", None)
    if shape is None or len(tuple(shape)) != 0:
        what = f"shape {tuple(shape)}" if shape is not None else type(out).__name__
        raise TypeError(f"{fn}: the gradient is only defined for functions with a scalar "
                        f"output, and f returned {what}; reduce it (e.g. with reduce_sum), or "
                        f"use GradientTape.jacobian or a VJP for a non-scalar output")


def _value_and_grad(f, argnums, fn):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def wrapped(*args):
        check_argnums(nums, args, fn)
        xs = list(args)
        for i in nums:
            xs[i] = convert_to_tensor(xs[i])
        with GradientTape() as tape:
            tape.watch([xs[i] for i in nums])
            out = f(*xs)
        check_scalar(out, fn)
        g = tape.gradient(out, [xs[i] for i in nums], unconnected_gradients="zero")
        g = [dense_cotangent(gi) for gi in g]
        return out, g[0] if single else tuple(g)
    return wrapped


def grad(f: Any, argnums: int | tuple[int, ...] = 0) -> Any:
    """The gradient function of a scalar-valued ``f`` (JAX's ``grad``).

    >>> import finegrad as fg
    >>> fg.grad(fg.sin)(fg.constant(0.)).numpy()
    np.float32(1.0)
    """
    vg = _value_and_grad(f, argnums, "finegrad.grad")

    def wrapped(*args):
        return vg(*args)[1]
    return wrapped


def hessian_vector_product(f: Any, x: TensorLike, v: Any) -> Tensor:
    """H v of scalar ``f`` at ``x``, forward over reverse.

    >>> import finegrad as fg
    >>> fg.hessian_vector_product(lambda x: fg.reduce_sum(x ** 3), fg.constant([1., 2.]),
    ...                           fg.constant([1., 0.])).numpy()
    array([6., 0.], dtype=float32)
    """
    x = convert_to_tensor(x)
    v = convert_to_tensor(v, dtype_hint=x.dtype)
    with ForwardAccumulator(x, v) as acc:
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        check_scalar(y, "finegrad.hessian_vector_product")
        g = dense_cotangent(tape.gradient(y, x))
    return acc.jvp(g, unconnected_gradients="zero")


def jacfwd(f: Any, argnums: int | tuple[int, ...] = 0) -> Any:
    """The Jacobian of ``f`` by forward mode, one JVP per input element (JAX's ``jacfwd``).

    Shape ``f(x).shape + x.shape``. Works through `custom_gradient` functions (their JVP
    transposes ``grad_fn``).

    >>> import finegrad as fg
    >>> fg.jacfwd(lambda x: x * x)(fg.constant([1., 2.])).numpy()
    array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    import numpy as np

    def wrapped(*args):
        xs = list(args)
        x = convert_to_tensor(xs[argnums])
        n = int(np.prod(x._value.shape, dtype=np.int64))
        cols = []
        out = None
        for j in range(n):
            e = np.zeros(n, x._value.dtype)
            e[j] = 1
            tangent = Tensor(e.reshape(x._value.shape))
            xs[argnums] = x
            with ForwardAccumulator(x, tangent) as acc:
                out = f(*xs)
            t = acc.jvp(out, unconnected_gradients="zero")
            cols.append(np.asarray(t._value))
        if out is None:
            raise ValueError("finegrad.jacfwd: the input has no elements")
        jac = np.stack(cols, axis=-1).reshape(out._value.shape + x._value.shape)
        return Tensor(jac)
    return wrapped


def jacrev(f: Any, argnums: int | tuple[int, ...] = 0) -> Any:
    """The Jacobian of ``f`` by reverse mode, in one vectorized pass where the rules allow
    (`GradientTape.jacobian`; JAX's ``jacrev``).

    >>> import finegrad as fg
    >>> fg.jacrev(lambda x: x * x)(fg.constant([1., 2.])).numpy()
    array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    def wrapped(*args):
        xs = list(args)
        xs[argnums] = convert_to_tensor(xs[argnums])
        with GradientTape() as tape:
            tape.watch(xs[argnums])
            out = f(*xs)
        return tape.jacobian(out, xs[argnums], unconnected_gradients="zero")
    return wrapped

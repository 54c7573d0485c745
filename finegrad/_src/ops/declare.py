"""How a primitive is declared from a few facts about it.

`unary`: a float-only elementwise primitive of one input from its derivative ``d(x, out)``
written with finegrad ops (the JVP is ``x_dot * d``, the VJP ``ct * conj(d)``); `float_only`:
the TypeError those primitives raise for a non-float input. `def_partials`: the JVP and VJP
of an elementwise primitive of several inputs from its partial derivatives, the VJP undoing
broadcasting; `sum_tangents`: the sum of tangent terms, None (a symbolic zero) skipped.
Every family declares its elementwise primitives through these.
"""

from __future__ import annotations

import sys

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import broadcast_as, unbroadcast
from finegrad._src.ops.math.complex_numbers import conj_if_complex, no_order

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike
    from collections.abc import Callable
    from finegrad._src.tensor import Tensor


def float_only(name, x, real=False):
    """TypeError naming ``finegrad.<name>`` unless NumPy value ``x`` is floating (or complex,
    unless ``real``: ops that need an order, as TensorFlow has no complex kernel for them)."""
    if real and x.dtype.kind == "c":
        no_order(name, x)
    if x.dtype.kind not in "fc":
        got = "string" if x.dtype.kind == "O" else np.dtype(x.dtype).name
        raise TypeError(f"finegrad.{name}: expected a floating tensor, got {got}; cast it "
                        f"first, e.g. finegrad.cast(x, finegrad.float32)")


def unary(name: Any, impl: Any, deriv: Any, doc: Any, scale: Any = None, features: Any = False,
          real: Any = False, numexpr: Any = None,
          lower: Any = None, ints: bool = False) -> tuple[Primitive, Callable[..., Tensor]]:
    """Declare a float-only unary primitive whose derivative is ``deriv(x, out)``.

    ``scale(g, x, out)``, when given, computes ``g * deriv`` in fewer passes (e.g. ``g / x``
    for log, one pass instead of two over large arrays). ``features``: the public function's
    argument is named ``features``, as TensorFlow names it for activations (else ``x``).
    ``real``: complex inputs refused. ``numexpr``: the kernel's numexpr spelling (see
    `core.Primitive`). ``lower``: its XLA lowering (``lower_jax`` of `core.Primitive`; by
    default the JAX function of the ufunc's name, for a ufunc ``impl``). ``ints``: signed
    and unsigned integer inputs accepted too (TensorFlow has integer kernels for the op),
    giving their own dtype; integer tensors get no gradient (None), as in TensorFlow.
    """
    kinds = ("f" if real else "fc") + ("iu" if ints else "")
    scalars = dtypes.FLOAT_SCALARS if real else dtypes.INEXACT_SCALARS   # (see dtypes)
    # a plain ufunc is also the kernel of compiled graphs; every impl here returns new arrays
    prim = Primitive(name, batch_rule=True, kernel=impl if isinstance(impl, np.ufunc) else None,
                     elementwise=True, fresh=True, numexpr=numexpr,
                     lower_jax=lower if lower is not None or not isinstance(impl, np.ufunc)
                     else impl.__name__)
    if scale is None:
        def scale(g, x, out):
            return g * deriv(x, out)

    @prim.def_impl
    def _impl(x):
        if type(x) not in scalars and x.dtype.kind not in kinds:
            float_only(name, x, real)
        return impl(x)

    @prim.def_jvp
    def _jvp(primals, tangents, *, out):
        return scale(tangents[0], primals[0], out)

    @prim.def_vjp
    def _vjp(ct, x, *, out, needs, batch):
        # each derivative has real coefficients, so conj(d(x, out)) = d(conj x, conj out)
        if x._value.dtype.kind == "c":
            x, out = conj_if_complex(x), conj_if_complex(out)
        return (scale(ct, x, out),)

    if features:
        def op(features: TensorLike, name: str | None = None) -> Tensor:
            return bind(prim, features)
    else:
        def op(x: TensorLike, name: str | None = None) -> Tensor:  # type: ignore[misc]
            return bind(prim, x)

    op.__name__ = op.__qualname__ = name
    op.__module__ = sys._getframe(1).f_globals["__name__"]   # the module that declares it
    accepted = "float and integer inputs" if ints else "float inputs only"
    op.__doc__ = doc + f"\n\n    Primitive ``{name}``; {accepted} (TypeError otherwise).\n"
    return prim, op


def lowered_in_float64(name):
    """A ``lower_jax`` that computes the JAX function ``name`` (e.g. ``"lax.erf"``) in
    float64 and rounds back to the input's dtype, as the ``impl`` of the special functions
    does (their NumPy kernels are float64)."""
    def lower(*xs):
        import jax
        import jax.numpy as jnp
        import jax.scipy.special
        fn = jax
        for part in name.split("."):
            fn = getattr(fn, part)
        dtype = jnp.result_type(*xs)
        return fn(*(x.astype(jnp.float64) for x in xs)).astype(dtype)
    lower.__name__ = f"{name.rsplit('.', 1)[-1]}_in_float64"
    return lower


def sum_tangents(terms, out):
    """Add the tangent terms that are not None (symbolic zeros); broadcast to ``out``'s shape."""
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    if out is None:
        return total
    if total is None:
        return 0 * out
    return broadcast_as(total, out)


def def_partials(prim):
    """Decorator: declare the JVP and VJP of ``prim``, an elementwise primitive of real
    inputs, from its partial derivatives, ``partials(*inputs, out=out, **params)``: one
    ``d out / d input`` per input (broadcastable to ``out``), or None for an input with no
    derivative (an order, a parameter). The JVP sums tangent times partial; the VJP is the
    cotangent times each partial, unbroadcast to its input."""
    def declare(partials):
        @prim.def_jvp
        def _jvp(primals, tangents, *, out, **params):
            ds = partials(*primals, out=out, **params)
            return sum_tangents([None if t is None or d is None else t * d
                                  for t, d in zip(tangents, ds, strict=True)], out)

        @prim.def_vjp
        def _vjp(ct, *ins, out, needs, batch, **params):
            ds = partials(*ins, out=out, **params)
            return tuple(unbroadcast(ct * d, x, batch) if need and d is not None else None
                         for d, x, need in zip(ds, ins, needs, strict=True))
        return partials
    return declare

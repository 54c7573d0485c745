"""The regularized incomplete gamma functions ``tf.math.igamma`` (P) and ``tf.math.igammac``
(Q = 1 - P) as one primitive ``igamma(a, x, order, upper)``: the ``order``-th derivative in
``a`` of P (of Q with ``upper``), float64 kernels in `ops.special.igamma_kernels`.

Its rules stay inside the family, so every order works (TensorFlow stops at the first in
``a``: its ``IgammaGradA`` has no gradient): the derivative in ``a`` is the same primitive
one order up, and the derivative in ``x`` of ``d^k P / da^k`` is ``d^k p / da^k`` for the
density ``p = exp(L)``, ``L = (a - 1) log x - x - lgamma(a)``, written with finegrad ops by the
complete Bell polynomials of ``L' = log x - digamma(a)``, ``L^(j) = -polygamma(j - 1, a)``.
The random gamma ops differentiate their samples with it (`gamma_sample_grad`), through the
``scaled`` form ``(d^k P / da^k) / p``, computed in float64 by the kernel without forming
``p`` (which underflows, in float32 soon, where the ratio is moderate).
"""

from __future__ import annotations

import math

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.special import igamma_kernels
from finegrad._src.ops.declare import def_partials, float_only
from finegrad._src.ops.array.structural import convert_to_tensor, ones_like, reduce_sum, zeros_like
from finegrad._src.ops.math.elementwise import exp, log, where
from finegrad._src.ops.special.error_and_gamma import digamma, lgamma, polygamma, xlogy

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

igamma_p = Primitive("igamma", batch_rule=True, elementwise=True, fresh=True)


def _check(fn, a, x):
    for v in (a, x):
        if np.dtype(v.dtype).kind != "f":
            float_only(fn, v, real=True)
    if a.dtype != x.dtype:
        raise TypeError(f"finegrad.{fn}: a and x must have the same dtype, got "
                        f"{np.dtype(a.dtype).name} and {np.dtype(x.dtype).name}")


@igamma_p.def_impl
def _igamma_impl(a, x, *, order, upper, scaled=False):
    _check("math.igammac" if upper else "math.igamma", a, x)
    out = igamma_kernels.igamma(a, x, order, upper, scaled)
    return out.astype(np.result_type(a, x))[()]


@igamma_p.def_lowering
def _igamma_lower(a, x, *, order, upper, scaled=False):
    # XLA's igamma/igammac and d/da of P (scaled by the density: minus XLA's
    # random_gamma_grad, the implicit gradient of gamma samples), in float64 as the impl;
    # higher orders in a and the scaled order 0 decline (host callback)
    import jax.numpy as jnp
    from jax import lax
    if order > 1 or (scaled and order == 0):
        return NotImplemented
    dtype = jnp.result_type(a, x)
    a, x = jnp.broadcast_arrays(a.astype(jnp.float64), x.astype(jnp.float64))
    # the kernel's edges (JAX's differ at a = 0 and a = inf): nan outside a > 0, x >= 0;
    # P = 0 at x = 0 and at a = inf (x finite), P = 1 at x = inf; 0 for the derivative
    valid = (a > 0) & (x >= 0)
    edge = valid & ((x == 0) | jnp.isinf(x) | jnp.isinf(a))
    p_edge = jnp.where((x == 0) | (jnp.isinf(a) & ~jnp.isinf(x)), 0.0, 1.0)
    safe_a, safe_x = jnp.where(edge, 1.0, a), jnp.where(edge, 1.0, x)
    if order == 0:
        out = lax.igammac(safe_a, safe_x) if upper else lax.igamma(safe_a, safe_x)
        at_edge = 1.0 - p_edge if upper else p_edge
    else:
        out = -lax.random_gamma_grad(safe_a, safe_x) if scaled else \
            lax.igamma_grad_a(safe_a, safe_x)
        out, at_edge = -out if upper else out, jnp.zeros_like(p_edge)
    return jnp.where(edge, at_edge, jnp.where(valid, out, np.nan)).astype(dtype)


def igamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise regularized lower incomplete gamma function
    ``P(a, x) = 1 / Gamma(a) int_0^x t^(a-1) e^-t dt`` (``a > 0``, ``x >= 0``; nan
    elsewhere, as TensorFlow), with broadcasting. Differentiable in ``x`` and in ``a`` (to
    any order; TensorFlow's gradient in ``a`` is first order only). Primitive ``igamma``.

    >>> import finegrad as fg
    >>> round(float(fg.math.igamma(fg.constant(1., fg.float64), 2.)), 12)  # 1 - e^-2
    0.864664716763
    """
    return bind(igamma_p, a, x, order=0, upper=False)


def igammac(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``,
    computed directly (accurate where P is close to 1); see `igamma`. Primitive ``igamma``.

    >>> import finegrad as fg
    >>> float(fg.math.igammac(fg.constant(1., fg.float64), 50.))  # e^-50
    1.9287498479639...e-22
    """
    return bind(igamma_p, a, x, order=0, upper=True)


def _density(a, x):
    return exp(xlogy(a - 1, x) - x - lgamma(a))


def _bell(a, x, order):
    """``(d^order p / da^order) / p`` for the gamma density ``p``: the complete Bell
    polynomial ``B_order(L', ..., L^(order))`` of ``L = log p`` (None for order 0: one)."""
    dl = [log(x) - digamma(a)] + [-polygamma(float(j - 1), a) for j in range(2, order + 1)]
    bell = [None]   # B_0 = 1
    for n in range(order):
        terms = [math.comb(n, i) * (dl[i] if bell[n - i] is None else bell[n - i] * dl[i])
                 for i in range(n + 1)]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        bell.append(total)
    return bell[order]


@def_partials(igamma_p)
def _partials(a, x, *, out, order, upper, scaled=False):
    """``d out / d a`` and ``d out / d x`` of ``igamma(a, x, order, upper, scaled)``. Scaled
    (``out = D / p`` for the unscaled ``D``): ``D' / p - out * p' / p`` in each argument."""
    da = bind(igamma_p, a, x, order=order + 1, upper=upper, scaled=scaled)
    bell = _bell(a, x, order)
    if not scaled:
        dx = _density(a, x) if bell is None else _density(a, x) * bell
        return da, (-dx if upper else dx)
    da = da - out * (log(x) - digamma(a))
    dx = 1.0 if bell is None else bell
    return da, (-dx if upper else dx) - out * ((a - 1) / x - 1)


def gamma_sample_grad(alpha, sample):
    """``d sample / d alpha`` of a Gamma(alpha, 1) sample held at its CDF value (implicit
    reparameterization): ``-(dP/dalpha)(alpha, x) / p(alpha, x)``, TensorFlow's
    ``random_gamma_grad``; differentiable again in both arguments."""
    positive = sample > 0    # a sample of exactly 0 gets 0, as TensorFlow's kernel gives
    safe = where(positive, sample, ones_like(sample))
    grad = -bind(igamma_p, alpha, safe, order=1, upper=False, scaled=True)
    return where(positive, grad, zeros_like(grad))


def lbeta(x: TensorLike, name: str | None = None) -> Tensor:
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``, TensorFlow's
    formula (differentiable through lgamma, to any order).

    >>> import finegrad as fg
    >>> round(float(fg.math.lbeta(fg.constant([1., 2.], fg.float64))), 12)   # log(1/2)
    -0.69314718056
    """
    x = convert_to_tensor(x)
    if len(x.shape) == 0:
        raise ValueError("finegrad.math.lbeta: x must have rank >= 1 (the last axis is "
                         "reduced), got a scalar")
    return reduce_sum(lgamma(x), -1) - lgamma(reduce_sum(x, -1))

"""``tf.random.gamma``, ``tf.random.stateless_gamma`` and ``tf.random.stateless_poisson``.

Gamma samples are differentiable in ``alpha`` and ``beta`` as in TensorFlow: a sample of
``Gamma(alpha, 1)`` is held at its CDF value (implicit reparameterization, Figurnov et al.
2018), so ``d sample / d alpha = -(dP/dalpha) / p`` (`igamma.gamma_sample_grad`, which
differentiates again: TensorFlow's stops at the first order); ``beta`` enters as
``max(tiny, sample / beta)``, recorded ops, as in TensorFlow. Eagerly and in a
`finegrad.function`, the values follow TensorFlow's distributions and seeding rules, not its
bit streams (NumPy's gamma and Poisson samplers on a Philox stream); in a TF1 graph they are
TensorFlow's (`tf_kernels`, TensorFlow's kernel on its stream).
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.random import philox, tf_kernels
from finegrad._src.ops.random import streams as rs
from finegrad._src.ops.math.arithmetic import maximum
from finegrad._src.ops.array.structural import broadcast_to, convert_to_tensor, unbroadcast
from finegrad._src.ops.special.igamma import gamma_sample_grad
from finegrad._src.ops.random.sampling import _FLOATS, _dtype, _seed, _shape

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import DTypeLike


def _gamma_draw(rng, alpha, shape, dtype):
    """Standard gamma samples of shape ``shape`` for concentrations ``alpha`` (broadcast to
    ``shape``'s trailing axes), drawn in float64 and rounded to ``dtype``."""
    a = np.broadcast_to(np.asarray(alpha, np.float64), shape)
    with np.errstate(invalid="ignore"):
        out = rng.standard_gamma(np.where(a > 0, a, 1.0))
    return np.where(a > 0, out, np.nan).astype(dtype)[()]


random_gamma_p = Primitive("random_gamma", fresh=True, stateful=True, batch_rule=True,
                           shape_rule=lambda alpha, *, stream, shape: tuple(shape) + tuple(alpha))


@random_gamma_p.def_impl
def _random_gamma_impl(alpha, *, stream, shape):
    """``shape + alpha.shape`` samples of Gamma(alpha, 1) (TensorFlow's layout)."""
    full = tuple(shape) + np.shape(alpha)
    own = getattr(stream, "per_output", None)
    if own is not None:     # a TF1 graph's kernel stream: TensorFlow's values
        return own("gamma", alpha, shape, np.asarray(alpha).dtype)
    return _gamma_draw(stream.generator(), alpha, full, np.asarray(alpha).dtype)


stateless_gamma_p = Primitive("stateless_gamma", fresh=True, unify=False, batch_rule=True,
                              shape_rule=lambda alpha, seed, *, shape: tuple(shape))


@stateless_gamma_p.def_impl
def _stateless_gamma_impl(alpha, seed, *, shape):
    """``shape`` samples of Gamma(alpha, 1), ``alpha`` broadcast to the trailing axes:
    TensorFlow's values (its kernel on the seed's Philox stream)."""
    return _stateless_per_output(tf_kernels.gamma, alpha, seed, shape,
                                 np.asarray(alpha).dtype)


def _stateless_per_output(kernel, params, seed, shape, dtype):
    """TensorFlow's StatelessRandomGamma or StatelessRandomPoisson: the stateful kernel's
    draws (256 blocks reserved per output) from the seed's key and counter, ``params``
    over the trailing axes of ``shape``."""
    shape = tuple(shape)
    p = np.asarray(params)
    lead = len(shape) - p.ndim
    p = np.broadcast_to(p, shape[lead:])
    n = int(np.prod(shape[:lead], dtype=np.int64))
    if n == 0 or p.size == 0:
        return np.zeros(shape, dtype)[()]
    out = kernel(philox.key_counter(seed), p, n, dtype)
    return np.asarray(out).astype(dtype).reshape(shape)[()]


def _gamma_jvp(primals, tangents, *, out, **params):
    alpha_dot = tangents[0]
    if alpha_dot is None:
        return 0 * out
    return alpha_dot * gamma_sample_grad(primals[0], out)   # alpha: out's trailing axes


def _gamma_vjp(ct, alpha, *rest, out, needs, batch, **params):
    """VJP of a gamma draw: ``ct * dsample/dalpha`` summed over the sample axes."""
    grad = unbroadcast(ct * gamma_sample_grad(alpha, out), alpha, batch) if needs[0] else None
    return (grad,) + (None,) * len(rest)


for _prim in (random_gamma_p, stateless_gamma_p):
    _prim.def_jvp(_gamma_jvp)
    _prim.def_vjp(_gamma_vjp)


def _params(alpha, beta, dtype, fn):
    dt = _dtype(dtype, fn, _FLOATS)
    a = convert_to_tensor(alpha, dt)
    b = convert_to_tensor(1.0 if beta is None else beta, dt)
    if a.dtype != dt or b.dtype != dt:
        raise TypeError(f"{fn}: alpha and beta must be {dt.name} (the dtype), got "
                        f"{a.dtype.name} and {b.dtype.name}")
    try:
        shape = np.broadcast_shapes(tuple(a._value.shape), tuple(b._value.shape))
    except ValueError:
        raise ValueError(f"{fn}: alpha and beta must broadcast together, got shapes "
                         f"{tuple(a._value.shape)} and {tuple(b._value.shape)}") from None
    return dt, a, b, shape


def _scaled(raw, beta, dt):
    """TensorFlow's ``max(tiny, raw / beta)``: a sample never reaches 0."""
    return maximum(np.finfo(dt._np).tiny, raw / beta)


def gamma(shape: Any, alpha: Any, beta: Any = None, dtype: DTypeLike = dtypes.float32,
          seed: Any = None, name: str | None = None) -> Tensor:
    """Gamma samples with concentration ``alpha`` and rate ``beta`` (default 1): shape
    ``shape + broadcast(alpha, beta).shape``. Differentiable in ``alpha`` and ``beta``
    (implicit reparameterization, TensorFlow's gradient; to any order here).

    >>> import finegrad as fg
    >>> alpha = fg.constant([0.5, 3.0])
    >>> with fg.GradientTape() as tape:
    ...     tape.watch(alpha)
    ...     x = fg.random.gamma([1000], alpha, seed=1)
    ...     mean = fg.reduce_mean(x)
    >>> x.shape, tape.gradient(mean, alpha).shape
    (TensorShape([1000, 2]), TensorShape([2]))
    """
    fn = "finegrad.random.gamma"
    dt, a, b, bshape = _params(alpha, beta, dtype, fn)
    raw = bind(random_gamma_p, broadcast_to(a, bshape), stream=rs.op_stream(seed, fn),
               shape=_shape(shape, fn))
    return _scaled(raw, b, dt)


def stateless_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                    dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Gamma samples of shape ``shape`` that depend only on ``seed`` (a pair of ints);
    ``alpha`` and ``beta`` broadcast to ``shape``'s trailing axes. Differentiable in both as
    `gamma` (not TensorFlow's values: the same distribution from another stream).

    >>> import finegrad as fg
    >>> x = fg.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[1.0, 4.0])
    >>> bool(fg.reduce_all(fg.equal(x, fg.random.stateless_gamma([3, 2], [1, 2], [1.0, 4.0]))))
    True
    """
    fn = "finegrad.random.stateless_gamma"
    dt, a, b, bshape = _params(alpha, beta, dtype, fn)
    shape = _shape(shape, fn)
    _check_trailing(shape, bshape, fn, "alpha and beta")
    raw = bind(stateless_gamma_p, broadcast_to(a, bshape), _seed(seed, fn), shape=shape)
    return _scaled(raw, b, dt)


def _check_trailing(shape, pshape, fn, what):
    try:
        ok = np.broadcast_shapes(tuple(shape), tuple(pshape)) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{fn}: {what} (shape {tuple(pshape)}) must broadcast to shape "
                         f"{tuple(shape)}")


stateless_poisson_p = def_nondiff(Primitive("stateless_poisson", fresh=True, unify=False,
                                            shape_rule=lambda lam, seed, *, shape, dtype:
                                            tuple(shape)))


@stateless_poisson_p.def_impl
def _stateless_poisson_impl(lam, seed, *, shape, dtype):
    """TensorFlow's values (its kernel on the seed's Philox stream)."""
    return _stateless_per_output(tf_kernels.poisson, np.asarray(lam, np.float64), seed, shape,
                                 dtype)


def stateless_poisson(shape: Any, seed: Any, lam: Any, dtype: DTypeLike = dtypes.int32,
                      name: str | None = None) -> Tensor:
    """Poisson counts of shape ``shape`` with rates ``lam`` (broadcast to ``shape``'s
    trailing axes) that depend only on ``seed``; no gradient (as in TensorFlow).

    >>> import finegrad as fg
    >>> fg.random.stateless_poisson([2, 3], seed=[4, 5], lam=[0., 0., 0.]).numpy()
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    fn = "finegrad.random.stateless_poisson"
    dt = _dtype(dtype, fn, _FLOATS + ("int32", "int64"))
    rates = convert_to_tensor(lam)
    if not rates.dtype.is_floating:
        raise TypeError(f"{fn}: lam must be floating, got {rates.dtype.name}")
    shape = _shape(shape, fn)
    _check_trailing(shape, rates._value.shape, fn, "lam")
    return bind(stateless_poisson_p, rates, _seed(seed, fn), shape=shape, dtype=dt._np)

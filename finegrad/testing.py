"""Numerical gradient checking, public so users can test their own rules.

`check_gradients(f, args)` compares finegrad's derivatives of ``f`` with central finite
differences in float64, along one random direction (no full Jacobian), in forward and reverse
mode, and recursively at second order:

- forward:  ``jvp(f, x, v)`` against ``(f(x + eps v) - f(x - eps v)) / 2 eps``;
- reverse:  with a random cotangent ``u``, ``<u, numeric J v>`` against ``<vjp(u), v>``;
- order 2:  the same checks on ``x -> jvp(f, x, v)`` and on ``x -> vjp(f, x)(u)``.

A failure raises AssertionError naming the function, mode, order and both numbers.
"""
import numpy as np

from finegrad._src import nest
from finegrad._src.ad.functional import jvp, vjp
from finegrad._src.tensor import Tensor, convert_to_tensor

__all__ = ["check_gradients", "numerical_jvp"]


def _f64(x):
    t = convert_to_tensor(x)
    if t.dtype.is_floating and t._value.dtype != np.float64:
        t = Tensor(np.asarray(t._value, np.float64)[()] if t.ndim == 0 else
                   np.asarray(t._value, np.float64))
    return t


def _flat_out(out):
    return [o for o in nest.flatten(out)]


def _vdot(a, b):
    return float(sum(np.vdot(np.asarray(x, np.float64), np.asarray(y, np.float64))
                     for x, y in zip(a, b, strict=True)))


def numerical_jvp(f, args, tangents, eps=1e-6):
    """Central-difference J v of ``f`` at ``args`` along ``tangents`` (lists of arrays)."""
    plus = [Tensor(np.asarray(a._value) + eps * t) for a, t in zip(args, tangents, strict=True)]
    minus = [Tensor(np.asarray(a._value) - eps * t) for a, t in zip(args, tangents, strict=True)]
    fp = [np.asarray(o._value, np.float64) for o in _flat_out(f(*plus))]
    fm = [np.asarray(o._value, np.float64) for o in _flat_out(f(*minus))]
    return [(p - m) / (2 * eps) for p, m in zip(fp, fm, strict=True)]


def _close(a, b, atol, rtol):
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def _fmt(f):
    return getattr(f, "__qualname__", getattr(f, "__name__", repr(f)))


def check_gradients(f, args, order=2, modes=("fwd", "rev"), eps=1e-6, atol=1e-5, rtol=1e-4,
                    seed=0):
    """Check finegrad's derivatives of ``f`` against finite differences (float64).

    Args:
        f: a function of tensors returning a tensor or a nested structure of tensors.
        args: the point: a list of tensors, arrays or numbers (cast to float64).
        order: 1 or 2 (2 also checks the derivatives of the derivatives).
        modes: any of "fwd" (JVP) and "rev" (VJP).
        eps, atol, rtol: finite-difference step and tolerances.
        seed: for the random direction and cotangent.

    Raises:
        AssertionError: naming the function, mode, order and both numbers.

    >>> import finegrad as fg
    >>> fg.testing.check_gradients(lambda x: fg.sin(x) * x, [fg.constant([0.3, 1.2])])
    """
    args = [_f64(a) for a in args]
    diff = [i for i, a in enumerate(args) if a.dtype.is_floating]
    _check(f, args, diff, order, tuple(modes), eps, atol, rtol, np.random.default_rng(seed), 1)


def _check(f, args, diff, order, modes, eps, atol, rtol, rng, level):
    vs = [rng.standard_normal(np.shape(args[i]._value)) for i in diff]

    def f_diff(*xs):
        full = list(args)
        for i, x in zip(diff, xs, strict=True):
            full[i] = x
        return f(*full)

    xs = [args[i] for i in diff]
    num = numerical_jvp(f_diff, xs, vs, eps)
    us = [rng.standard_normal(n.shape) for n in num]
    name = _fmt(f)
    vts = [Tensor(np.asarray(v)) for v in vs]
    if "fwd" in modes:
        out, tan = jvp(f_diff, xs, vts)
        got = [np.asarray(t._value, np.float64) for t in _flat_out(tan)]
        a, b = _vdot(us, got), _vdot(us, num)
        if not _close(a, b, atol, rtol):
            raise AssertionError(f"check_gradients: {name}: forward mode, order {level}: "
                                 f"<u, jvp> = {a!r} but finite differences give {b!r}")
    if "rev" in modes:
        out, vjp_fn = vjp(f_diff, *xs)
        flat = _flat_out(out)
        cts = [Tensor(np.asarray(u, o._value.dtype)) for u, o in zip(us, flat, strict=True)]
        ct = nest.pack_sequence_as(out, cts) if nest.is_nested(out) else cts[0]
        g = vjp_fn(ct)
        got = [np.zeros(np.shape(x._value)) if gi is None else np.asarray(gi._value, np.float64)
               for gi, x in zip(g, xs, strict=True)]
        a, b = _vdot(got, vs), _vdot(us, num)
        if not _close(a, b, atol, rtol):
            raise AssertionError(f"check_gradients: {name}: reverse mode, order {level}: "
                                 f"<vjp(u), v> = {a!r} but finite differences give {b!r}")
    if order > 1:
        if "fwd" in modes:
            def f_jvp(*xs_):
                return jvp(f_diff, xs_, vts)[1]
            f_jvp.__qualname__ = f"jvp({name})"
            _check(f_jvp, xs, list(range(len(xs))), order - 1, modes, eps, atol * 10, rtol * 10,
                   rng, level + 1)
        if "rev" in modes:
            def f_vjp(*xs_):
                o, fn = vjp(f_diff, *xs_)
                fl = _flat_out(o)
                c = [Tensor(np.asarray(u, x._value.dtype)) for u, x in zip(us, fl, strict=True)]
                res = fn(nest.pack_sequence_as(o, c) if nest.is_nested(o) else c[0])
                return [r if r is not None else Tensor(np.zeros(np.shape(x._value)))
                        for r, x in zip(res, xs_, strict=True)]
            f_vjp.__qualname__ = f"vjp({name})"
            _check(f_vjp, xs, list(range(len(xs))), order - 1, modes, eps, atol * 10, rtol * 10,
                   rng, level + 1)

"""Numerical gradient checking, public so users can test their own rules.

`check_gradients(f, args)` compares finegrad's derivatives of ``f`` with central finite
differences in float64, along one random direction (no full Jacobian), in forward and reverse
mode, and recursively at second order:

- forward:  ``jvp(f, x, v)`` against ``(f(x + eps v) - f(x - eps v)) / 2 eps``;
- reverse:  with a random cotangent ``u``, ``<u, numeric J v>`` against ``<vjp(u), v>``;
- order 2:  the same checks on ``x -> jvp(f, x, v)`` and on ``x -> vjp(f, x)(u)``.

A failure raises AssertionError naming the function, mode, order and both numbers.

Complex inputs and outputs are checked in TensorFlow's convention (a cotangent of ``x + iy``
is ``dL/dx + i dL/dy``): directions and cotangents are then complex, and the pairings are the
real inner product ``Re(sum(conj(a) * b))``, for which the VJP is the adjoint of the JVP.
"""

import functools as _functools

import numpy as _np

from finegrad._src import nest as _nest
from finegrad._src.ad import linearity as _linearity
from finegrad._src.ad.functional import jvp as _jvp
from finegrad._src.ad.functional import vjp as _vjp
from finegrad._src.testing.comparison import compare as _compare
from finegrad._src.ops.array.gather import dense_cotangent as _dense_cotangent
from finegrad._src.ops.array.structural import convert_to_tensor as _convert_to_tensor
from finegrad._src.tensor import Tensor as _Tensor

from typing import Any as _Any

__all__ = ["CustomGradientReport", "InputReport", "check_custom_gradient", "check_gradients",
           "numerical_jvp"]


def _f64(x):
    t = _convert_to_tensor(x)
    if t.dtype.is_differentiable and t._value.dtype not in (_np.float64, _np.complex128):
        t = _Tensor(_wide(t._value)[()] if t.ndim == 0 else _wide(t._value))
    return t


def _wide(v):
    """``v`` as a float64 array, or complex128 when it is complex."""
    v = _np.asarray(v)
    return v.astype(_np.complex128 if v.dtype.kind == "c" else _np.float64)


def _direction(rng, like):
    """A standard normal array shaped like ``like``, complex when ``like`` is complex."""
    shape = _np.shape(like)
    if _np.asarray(like).dtype.kind == "c":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return rng.standard_normal(shape)


def _flat_out(out):
    return [o for o in _nest.flatten(out)]


def _vdot(a, b):
    """The real inner product ``Re(sum(conj(a) * b))`` over lists of arrays."""
    return float(sum(_np.vdot(_wide(x), _wide(y)).real for x, y in zip(a, b, strict=True)))


def numerical_jvp(f: _Any, args: _Any, tangents: _Any, eps: float = 1e-6) -> _Any:
    """Central-difference J v of ``f`` at ``args`` along ``tangents`` (lists of arrays).

    >>> import numpy as np, finegrad as fg
    >>> [round(float(v), 6) for v in fg.testing.numerical_jvp(
    ...     lambda x: x * x, [fg.constant(3., fg.float64)], [np.float64(1.)])[0].ravel()]
    [6.0]
    """
    plus = [_Tensor(_np.asarray(a._value) + eps * t) for a, t in zip(args, tangents, strict=True)]
    minus = [_Tensor(_np.asarray(a._value) - eps * t) for a, t in zip(args, tangents, strict=True)]
    fp = [_wide(o._value) for o in _flat_out(f(*plus))]
    fm = [_wide(o._value) for o in _flat_out(f(*minus))]
    return [(p - m) / (2 * eps) for p, m in zip(fp, fm, strict=True)]


def _perturbed(f, xs, k, eps):
    """For each element j of input ``k``: (j, the step e, f's outputs at x + e and x - e)."""
    base = _np.asarray(xs[k]._value, _np.float64)
    for j in range(base.size):
        e = _np.zeros(base.size)
        e[j] = eps
        e = e.reshape(base.shape)
        xp, xm = list(xs), list(xs)
        xp[k], xm[k] = _Tensor(base + e), _Tensor(base - e)
        yield (j, e, [_wide(o._value) for o in _flat_out(f(*xp))],
               [_wide(o._value) for o in _flat_out(f(*xm))])


def _worst_element(f, xs, us, got, eps):
    """For a failed reverse check: the input element whose gradient is furthest off."""
    worst = None
    for k, x in enumerate(xs):
        if x._value.size > 10000 or x._value.dtype.kind == "c":   # real elements only
            continue
        base = _np.asarray(x._value, _np.float64)
        for j, _, fp, fm in _perturbed(f, xs, k, eps):
            fd = (_vdot(us, fp) - _vdot(us, fm)) / (2 * eps)
            g = float(_np.asarray(got[k]).flat[j])
            if worst is None or abs(g - fd) > worst[0]:
                idx = tuple(int(i) for i in _np.unravel_index(j, base.shape)) if base.shape else ()
                worst = (abs(g - fd), k, idx, g, fd)
    if worst is None:
        return ""
    _, k, idx, g, fd = worst
    return (f"; worst element: input {k} at index {idx}: gradient {g!r}, finite differences "
            f"{fd!r}")


def _close(a, b, atol, rtol):
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def _fmt(f):
    return getattr(f, "__qualname__", getattr(f, "__name__", repr(f)))


def check_gradients(f: _Any, args: _Any, order: int = 2, modes: _Any = ("fwd", "rev"),
                    eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-4,
                    seed: int = 0) -> None:
    """Check finegrad's derivatives of ``f`` against finite differences (float64).

    Args:
        f: a function of tensors returning a tensor or a nested structure of tensors.
        args: the point: a list of tensors, arrays or numbers (cast to float64, or to
            complex128 for complex ones, checked in TensorFlow's convention).
        order: 1 or 2 (2 also checks the derivatives of the derivatives).
        modes: any of "fwd" (JVP) and "rev" (VJP).
        eps, atol, rtol: finite-difference step and tolerances.
        seed: for the random direction and cotangent.

    Raises:
        AssertionError: naming the function, mode, order and both numbers.

    >>> import finegrad as fg
    >>> fg.testing.check_gradients(lambda x: fg.sin(x) * x, [fg.constant([0.3, 1.2])])
    >>> fg.testing.check_gradients(lambda z: fg.exp(z) * fg.math.conj(z), [fg.constant([1 + 2j])])
    """
    args = [_f64(a) for a in args]
    diff = [i for i, a in enumerate(args) if a.dtype.is_differentiable]
    _check(f, args, diff, order, tuple(modes), eps, atol, rtol, _np.random.default_rng(seed), 1)


def _check(f, args, diff, order, modes, eps, atol, rtol, rng, level):
    vs = [_direction(rng, args[i]._value) for i in diff]

    def f_diff(*xs):
        full = list(args)
        for i, x in zip(diff, xs, strict=True):
            full[i] = x
        return f(*full)

    xs = [args[i] for i in diff]
    num = numerical_jvp(f_diff, xs, vs, eps)
    us = [_direction(rng, n) for n in num]
    name = _fmt(f)
    vts = [_Tensor(_np.asarray(v)) for v in vs]
    if "fwd" in modes:
        out, tan = _jvp(f_diff, xs, vts)
        got = [_wide(t._value) for t in _flat_out(tan)]
        a, b = _vdot(us, got), _vdot(us, num)
        if not _close(a, b, atol, rtol):
            raise AssertionError(f"check_gradients: {name}: forward mode, order {level}: "
                                 f"<u, jvp> = {a!r} but finite differences give {b!r}")
    if "rev" in modes:
        out, vjp_fn = _vjp(f_diff, *xs)
        flat = _flat_out(out)
        cts = [_Tensor(_np.asarray(u, o._value.dtype)) for u, o in zip(us, flat, strict=True)]
        ct = _nest.pack_sequence_as(out, cts) if _nest.is_nested(out) else cts[0]
        g = vjp_fn(ct)
        got = [_np.zeros(_np.shape(x._value)) if gi is None else _wide(gi._value)
               for gi, x in zip(g, xs, strict=True)]
        a, b = _vdot(got, vs), _vdot(us, num)
        if not _close(a, b, atol, rtol):
            raise AssertionError(f"check_gradients: {name}: reverse mode, order {level}: "
                                 f"<vjp(u), v> = {a!r} but finite differences give {b!r}"
                                 + _worst_element(f_diff, xs, us, got, eps))
    if order > 1:
        n = len(xs)
        if "fwd" in modes:
            # x, v -> jvp(f, x, v): the tangent is an input too, so the rules the JVP emits
            # are themselves checked even where the JVP does not depend on x (linear ops)
            def f_jvp(*xv):
                return _jvp(f_diff, xv[:n], xv[n:])[1]
            f_jvp.__qualname__ = f"jvp({name})"
            _check(f_jvp, xs + vts, list(range(2 * n)), order - 1, modes, eps, atol * 10,
                   rtol * 10, rng, level + 1)
        if "rev" in modes:
            uts = [_Tensor(_np.asarray(u)) for u in us]

            def f_vjp(*xu):
                xs_, us_ = xu[:n], xu[n:]
                o, fn = _vjp(f_diff, *xs_)
                res = fn(_nest.pack_sequence_as(o, list(us_)) if _nest.is_nested(o) else us_[0])
                return [r if r is not None else _Tensor(_np.zeros(_np.shape(x._value)))
                        for r, x in zip(res, xs_, strict=True)]
            f_vjp.__qualname__ = f"vjp({name})"
            _check(f_vjp, xs + uts, list(range(n + len(uts))), order - 1, modes, eps,
                   atol * 10, rtol * 10, rng, level + 1)


# --- checking a custom gradient ---------------------------------------------------------------

class InputReport:
    """How one input's custom gradient compares with finite differences and plain autodiff."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.max_error_fd = 0.0         # |custom - finite differences|, worst element
        self.where_fd = None            # index of that element
        self.max_error_autodiff = 0.0   # |custom - plain autodiff| where both are finite
        self.where_autodiff = None
        self.plain_nonfinite: list = []   # indices where plain autodiff is nan/inf, custom finite
        self.custom_nonfinite: list = []  # indices where the custom gradient is nan/inf
        # the element where the rule is relatively worst: its index, the rule's and the
        # finite differences' values there (each a VJP element for the random cotangent,
        # so their ratio does not depend on it), and |rule - expected| / |expected|
        self.worst_at = None
        self.worst_got = self.worst_expected = self.worst_relative = 0.0
        self.ok = True

    def __repr__(self):
        return (f"InputReport({self.name!r}, ok={self.ok}, max_error_fd={self.max_error_fd:.3g}"
                f" at {self.where_fd}, max_error_autodiff={self.max_error_autodiff:.3g})")


class CustomGradientReport:
    """The result of `check_custom_gradient`: ``ok``, per-input details, and a printable text.

    >>> import finegrad as fg
    >>> @fg.custom_gradient
    ... def double(x):
    ...     return x * 2., lambda dy: dy * 2.
    >>> r = fg.testing.check_custom_gradient(double, [fg.constant([1., 2.])])
    >>> r.ok, r.inputs["x"].max_error_fd < 1e-6
    (True, True)
    >>> print(str(r).splitlines()[0])
    check_custom_gradient(double): ok
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.inputs: dict = {}
        self.forward_error = 0.0
        self.forward_ok = True
        self.second_order: dict = {}   # mode -> None (ok) or the failure message
        self.notes: list = []

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.inputs.values()) and self.forward_ok and \
            all(v is None for v in self.second_order.values())

    def __bool__(self):
        return self.ok

    def __str__(self):
        lines = [f"check_custom_gradient({self.name}): {'ok' if self.ok else 'MISMATCH'}"]
        for r in self.inputs.values():
            if r.worst_at is not None:
                lines.append(f"  {r.name}: worst element {r.worst_at}: rule {r.worst_got:.6g} vs "
                             f"finite differences {r.worst_expected:.6g} (relative error "
                             f"{r.worst_relative:.3g})")
            lines.append(f"  {r.name}: custom vs finite differences: max error "
                         f"{r.max_error_fd:.3g} at {r.where_fd} ({'ok' if r.ok else 'MISMATCH'})")
            lines.append(f"  {r.name}: custom vs plain autodiff: max difference "
                         f"{r.max_error_autodiff:.3g} at {r.where_autodiff}")
            if r.plain_nonfinite:
                lines.append(f"  {r.name}: plain autodiff is nan/inf at {r.plain_nonfinite[:5]} "
                             f"where the custom rule is finite")
            if r.custom_nonfinite:
                lines.append(f"  {r.name}: the custom gradient is nan/inf at "
                             f"{r.custom_nonfinite[:5]}")
        if isinstance(self.forward_error, str):
            lines.append(f"  forward mode (jvp): {self.forward_error}")
        else:
            lines.append(f"  forward mode (jvp) vs finite differences: max error "
                         f"{self.forward_error:.3g} ({'ok' if self.forward_ok else 'MISMATCH'})")
        for mode, msg in self.second_order.items():
            lines.append(f"  second order, {mode}: {'ok' if msg is None else msg}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    __repr__ = __str__


def _index(flat_i, shape):
    return tuple(int(i) for i in _np.unravel_index(flat_i, shape)) if shape else ()


def check_custom_gradient(h: _Any, args: _Any, order: int = 2, eps: float = 1e-6,
                          atol: float = 1e-5, rtol: float = 1e-4, seed: int = 0,
                          strict: bool = False) -> _Any:
    """Compare a `custom_gradient` function's rule with finite differences and plain autodiff.

    For a random output cotangent ``u`` and direction ``v`` (float64 copies of ``args``):

    - reverse: the custom VJP against central finite differences of ``<u, h(x)>`` element by
      element, and against the autodiff of ``h``'s forward computation (which ignores
      ``grad_fn``), reporting where the plain autodiff is nan/inf and the custom rule is not;
    - forward: the custom JVP (``grad_fn`` transposed, or the explicit forward rule) against
      finite differences along ``v``;
    - order 2: `check_gradients` on ``x -> vjp(u)``, i.e. the custom rule's own derivatives.

    Finite differences that are not finite (e.g. at a kink or overflow) are skipped.

    Args:
        h: a function decorated with `finegrad.custom_gradient`.
        args: positional arguments; the floating tensors among them are checked.
        strict: raise AssertionError (with the report) instead of returning a failing one.

    Returns:
        A `CustomGradientReport` (``report.ok``, ``report.inputs[name]``, printable).

    >>> import finegrad as fg
    >>> @fg.custom_gradient
    ... def log1pexp(x):
    ...     e = fg.exp(x)
    ...     return fg.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    >>> report = fg.testing.check_custom_gradient(log1pexp, [fg.constant([0., 2.])])
    >>> report.ok
    True
    """
    from finegrad._src.ad.custom import _CustomGradient, _param_names
    if not isinstance(h, _CustomGradient):
        raise TypeError(f"finegrad.testing.check_custom_gradient: expected a function decorated "
                        f"with finegrad.custom_gradient, got {type(h).__name__}")
    args = [_f64(a) if _is_num(a) else a for a in args]
    diff = [i for i, a in enumerate(args) if isinstance(a, _Tensor) and a.dtype.is_floating]
    names = _param_names(h._f, len(args))
    ck = _CustomCheck(h, args, diff, _np.random.default_rng(seed), eps, atol, rtol, seed)
    report = CustomGradientReport(ck.name)
    custom = ck.vjp_values(h)
    with _np.errstate(all="ignore"):
        plain = ck.vjp_values(h.forward_without_rule)
    for k, i in enumerate(diff):
        report.inputs[names[i]] = ck.input_report(names[i], k, custom[k],
                                                  None if plain is None else plain[k])
    report.forward_error, report.forward_ok = ck.forward()
    if order >= 2:
        report.second_order = ck.second_order()
    if strict and not report.ok:
        raise AssertionError(str(report))
    return report


class _CustomCheck:
    """What `check_custom_gradient` compares, at one point: the function ``h`` called with
    ``args`` where the floating inputs (positions ``diff``) are replaced, a random output
    cotangent ``us`` and a random input direction ``vs``."""

    def __init__(self, h, args, diff, rng, eps, atol, rtol, seed):
        self.h, self.args, self.diff, self.name = h, args, diff, _fmt(h)
        self.eps, self.atol, self.rtol, self.seed = eps, atol, rtol, seed
        self.xs = [args[i] for i in diff]
        y0 = [_np.asarray(getattr(o, "_value", o), _np.float64) for o in
               _flat_out(self.call(h, self.xs))]
        self.us = [rng.standard_normal(o.shape) for o in y0]
        self.vs = [rng.standard_normal(_np.shape(x._value)) for x in self.xs]

    def call(self, fn, xs):
        full = list(self.args)
        for i, x in zip(self.diff, xs, strict=True):
            full[i] = x
        return fn(*full)

    def vjp_tensors(self, fn, xs, unconnected="none"):
        """``<us, fn(xs)>``'s gradient with respect to ``xs``, as tensors (recordable)."""
        from finegrad._src.ad.tape import GradientTape
        with GradientTape() as tape:
            tape.watch(xs)
            out = [o if isinstance(o, _Tensor) else _Tensor(_np.asarray(o))
                   for o in _flat_out(self.call(fn, xs))]
            cts = [_Tensor(_np.asarray(u, o._value.dtype)) for u, o in zip(self.us, out,
                                                                          strict=True)]
        grads = tape.gradient(out, xs, output_gradients=cts, unconnected_gradients=unconnected)
        return [_dense_cotangent(g) for g in grads]

    def vjp_values(self, fn):
        """The VJP as float64 arrays; None when ``fn`` returns no tensors (a NumPy black box:
        nothing to differentiate without the rule)."""
        if not any(isinstance(o, _Tensor) for o in _flat_out(self.call(fn, self.xs))):
            return None
        g = self.vjp_tensors(fn, self.xs)
        return [_np.zeros(_np.shape(x._value)) if gi is None
                else _np.asarray(gi._value, _np.float64) for gi, x in zip(g, self.xs, strict=True)]

    def input_report(self, name, k, c, p):
        """Input ``k``'s custom VJP ``c`` against finite differences and plain autodiff ``p``."""
        h, xs, eps = self.h, self.xs, self.eps
        r = InputReport(name)
        base = _np.asarray(xs[k]._value, _np.float64)
        fd = _np.full(base.shape, _np.nan)
        with _np.errstate(all="ignore"):
            for j, e, fp, fm in _perturbed(lambda *a: self.call(h, a), xs, k, eps):
                fd.flat[j] = _fd_element(self.us, fp, fm, eps, _functools.partial(
                    _depends, h, self.call, xs, k, e / eps))
        cmp = _compare(c, fd, p)
        bad = cmp.bad(self.atol, self.rtol)
        if cmp.error.size:
            j = int(_np.argmax(cmp.error))
            r.max_error_fd, r.where_fd = float(cmp.error.flat[j]), _index(j, base.shape)
            _relative_worst(r, cmp, base.shape)
            j = int(_np.argmax(cmp.reference_difference))
            r.max_error_autodiff = float(cmp.reference_difference.flat[j])
            r.where_autodiff = _index(j, base.shape)
        r.plain_nonfinite = [_index(j, base.shape) for j in _np.flatnonzero(cmp.reference_breaks)]
        r.custom_nonfinite = [_index(j, base.shape) for j in _np.flatnonzero(~cmp.got_finite)]
        r.ok = not bad.any() and not (cmp.expected_finite & ~cmp.got_finite).any()
        return r

    def forward(self):
        """The custom JVP along ``vs`` against finite differences: (max error, ok)."""
        from finegrad._src.ad.forward import ForwardAccumulator
        try:
            with ForwardAccumulator(self.xs, [_Tensor(v) for v in self.vs]) as acc:
                out = _flat_out(self.call(self.h, self.xs))
            tans = [acc.jvp(o) for o in out]
        except _linearity.NotLinearError:   # no forward mode: the check fails
            return _np.inf, False
        except TypeError as e:      # a NumPy rule: forward mode cannot be had, nor passed
            return f"not available in finegrad: {e}", True
        got = [_np.zeros(o._value.shape) if t is None else _np.asarray(t._value, _np.float64)
               for t, o in zip(tans, out, strict=True)]
        with _np.errstate(all="ignore"):
            num = numerical_jvp(lambda *a: self.call(self.h, a), self.xs, self.vs, self.eps)
        errs = [_np.where(_np.isfinite(n) & _np.isfinite(g), _np.abs(g - n), 0.0)
                for g, n in zip(got, num, strict=True)]
        error = max((float(e.max()) if e.size else 0.0) for e in errs)
        ok = all(not (e > self.atol + self.rtol * _np.abs(_np.nan_to_num(n))).any()
                 for e, n in zip(errs, num, strict=True))
        return error, ok

    def second_order(self):
        """`check_gradients` on the custom VJP itself, per mode: None or the failure."""
        def custom_vjp(*xs_):
            return self.vjp_tensors(self.h, list(xs_), unconnected="zero")
        custom_vjp.__qualname__ = f"vjp({self.name})"
        results = {}
        for mode in ("rev", "fwd"):
            try:
                check_gradients(custom_vjp, self.xs, order=1, modes=(mode,), eps=self.eps,
                                atol=self.atol * 10, rtol=self.rtol * 10, seed=self.seed)
                results[mode] = None
            except (AssertionError, _linearity.NotLinearError) as e:
                results[mode] = str(e)
            except TypeError as e:  # a NumPy rule: nothing differentiates it
                results[mode] = f"not available in finegrad: {e}"
        return results


def _relative_worst(r, cmp, shape):
    """Fill ``r.worst_*`` with the element of largest relative error (relative to
    |expected|, but never to less than 1/1000 of the largest |expected|)."""
    exp = _np.where(cmp.expected_finite, _np.abs(cmp.expected), 0.0)
    top = float(exp.max()) if exp.size else 0.0
    rel = cmp.error / _np.maximum(exp, max(1e-3 * top, 1e-300))
    j = int(_np.argmax(rel))
    r.worst_at, r.worst_relative = _index(j, shape), float(rel.flat[j])
    r.worst_got, r.worst_expected = float(cmp.got.flat[j]), float(cmp.expected.flat[j])


def _fd_element(us, fp, fm, eps, depends):
    """One element of the finite-difference VJP, sum_i u_i (f_i(x+e) - f_i(x-e)) / 2 eps.

    An output that is not finite at x +- e makes the difference unknowable, but only if it
    depends on this input element: ``depends()`` gives, per output, where a JVP along e is
    nonzero. Others contribute 0, so one overflowing output does not hide the errors of all
    the others.
    """
    total = 0.0
    dep = None
    for i, (u, p, m) in enumerate(zip(us, fp, fm, strict=True)):
        d = p - m
        bad = ~(_np.isfinite(p) & _np.isfinite(m))
        if bad.any():
            if dep is None:
                dep = depends()
            if (bad & dep[i]).any():
                return _np.nan
            d = _np.where(bad, 0.0, d)
        total += float(_np.sum(u * d))
    return total / (2 * eps)


def _depends(h, call, xs, k, direction):
    """Per output: where the custom rule's JVP along ``direction`` (input ``k``) is not 0, or
    the plain autodiff's is finite and not 0 (the plain one alone would say "depends"
    wherever it computes 0 * inf = nan)."""
    custom = _jvp_nonzero(h, call, xs, k, direction)
    plain = _jvp_nonzero(h.forward_without_rule, call, xs, k, direction, finite_only=True)
    return [a | b for a, b in zip(custom, plain, strict=True)]


def _jvp_nonzero(fn, call, xs, k, direction, finite_only=False):
    tans = [_Tensor(_np.zeros(_np.shape(x._value))) for x in xs]
    tans[k] = _Tensor(_np.asarray(direction, _np.float64))
    try:
        return _jvp_nonzero_at(fn, call, xs, tans, finite_only)
    except _linearity.NotLinearError:   # a rule not linear in dy: assume it depends
        return [_np.ones(_np.shape(o._value), bool) for o in _flat_out(call(fn, list(xs)))]


def _jvp_nonzero_at(fn, call, xs, tans, finite_only):
    from finegrad._src.ad.forward import ForwardAccumulator
    with _np.errstate(all="ignore"):
        with ForwardAccumulator(list(xs), tans) as acc:
            out = _flat_out(call(fn, list(xs)))
        res = []
        for o in out:
            t = acc.jvp(o)
            tv = _np.zeros(o._value.shape) if t is None else _np.asarray(t._value, _np.float64)
            res.append((tv != 0) & _np.isfinite(tv) if finite_only else tv != 0)
    return res


def _is_num(a):
    return isinstance(a, (_Tensor, _np.ndarray, _np.generic, float, int)) and \
        not isinstance(a, bool)

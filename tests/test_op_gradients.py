"""Every differentiable primitive against finite differences, plus values and subgradients.

1. `test_gradients`: each row of `op_specs.SPECS` times each of its shapes, through
   `finegrad.testing.check_gradients` at the row's order (2 unless it has a kink) in both
   modes, with float64 inputs drawn from the row's domains by a seeded RNG. The test also
   checks that the primitives the row claims to cover really ran.
2. `test_every_primitive_is_covered`: the guard; a registered primitive must be covered by a
   row, or be listed in `NONDIFF` or `INTERNAL`.
3. Forward values against NumPy/SciPy reference math, extreme inputs included; the IEEE
   nan/inf the math produces are kept.
4. Subgradients at kinks, each with the choice TensorFlow makes.
"""
import contextlib
import pathlib
import subprocess
import sys
import zlib

import numpy as np
import pytest
import scipy.special

import finegrad as fg
from finegrad._src import core, nest
from finegrad.testing import check_gradients

from op_specs import INTERNAL, NONDIFF, SPECS


# ---- 1. the table ---------------------------------------------------------------------------

class _SeenPrimitives(core.Recorder):
    """Records the name of every primitive bound while it is active (outermost)."""

    def __init__(self):
        self.names = set()

    def record(self, prim, ins, params, out):
        self.names.add(prim.name)


@contextlib.contextmanager
def _seen_primitives():
    seen = _SeenPrimitives()
    core.push_recorder(seen)
    try:
        yield seen.names
    finally:
        core.pop_recorder(seen)


def _case_id(spec, shapes):
    return f"{spec.label}-" + "&".join(str(tuple(s)).replace(" ", "") for s in shapes)


CASES = [(spec, shapes) for spec in SPECS for shapes in spec.cases()]


@pytest.mark.parametrize("spec, shapes", CASES, ids=[_case_id(s, sh) for s, sh in CASES])
def test_gradients(spec, shapes):
    case = _case_id(spec, shapes)
    args = spec.make_args(shapes, seed=zlib.crc32(case.encode()))

    def f(*xs):
        return spec(*xs)
    f.__qualname__ = case

    with _seen_primitives() as seen:
        check_gradients(f, args, order=spec.order, modes=("fwd", "rev"))
    missing = set(spec.primitives) - seen
    assert not missing, f"{case}: the row claims {sorted(missing)} but they never ran"


def _ones_like_out(out):
    cts = [fg.ones_like(o) for o in nest.flatten(out)]
    return nest.pack_sequence_as(out, cts) if nest.is_nested(out) else cts[0]


@pytest.mark.parametrize("spec", SPECS, ids=[s.label for s in SPECS])
def test_float32_rules_stay_float32(spec):
    """The rules build no float64 constants: float32 in, float32 derivatives out (order 2)."""
    shapes = spec.cases()[-1]
    args = [fg.constant(a.astype(np.float32)) for a in spec.make_args(shapes)]
    ones = [fg.ones_like(a) for a in args]

    def grads(*xs):
        out, vjp_fn = fg.vjp(spec, *xs)
        return [g for g in vjp_fn(_ones_like_out(out)) if g is not None]

    out, vjp_fn = fg.vjp(grads, *args)
    derivs = list(vjp_fn(_ones_like_out(out))) + [fg.jvp(spec, args, ones)[1],
                                                  fg.jvp(grads, args, ones)[1]]
    dtypes = {t.dtype for t in nest.flatten(derivs) if t is not None}
    assert dtypes == {fg.float32}, f"{spec.label}: derivatives of dtypes {dtypes}"


def test_einsum_repeated_subscript_is_forward_only():
    """A documented limit: 'ii->i' differentiates in forward mode, not in reverse."""
    x = np.arange(9.).reshape(3, 3) / 4
    check_gradients(lambda x: fg.einsum("ii->i", x), [x], modes=("fwd",))
    check_gradients(lambda x: fg.einsum("ii", x), [x], modes=("fwd",))
    _, t = fg.jvp(lambda x: fg.einsum("ii", x), [_f64(x)], [_f64(np.ones((3, 3)))])
    assert t.numpy() == 3.0
    with pytest.raises(NotImplementedError, match="repeated subscript"):
        fg.grad(lambda x: fg.einsum("ii", x))(_f64(x))


def test_rows_have_valid_settings():
    labels = [_case_id(s, sh) for s, sh in CASES]
    assert len(labels) == len(set(labels)), "two cases share an id"
    for spec in SPECS:
        assert spec.order in (1, 2), spec.label
        for shapes in spec.cases():
            assert len(shapes) == spec.nargs, spec.label


# ---- 2. the guard ---------------------------------------------------------------------------

def _registered_primitives():
    """The primitives finegrad itself registers (a fresh process: tests may register more)."""
    code = ("import finegrad\nfrom finegrad._src.core import primitives\n"
            "print('\\n'.join(sorted(primitives())))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=pathlib.Path(__file__).resolve().parents[1])
    return set(res.stdout.split())


def test_every_primitive_is_covered():
    registered = _registered_primitives()
    assert "exp" in registered and "matmul" in registered
    covered = {p for spec in SPECS for p in spec.primitives}
    uncovered = registered - covered - set(NONDIFF) - set(INTERNAL)
    assert not uncovered, (f"primitives in no op_specs row and not in NONDIFF or INTERNAL: "
                           f"{sorted(uncovered)}")
    stale = (set(NONDIFF) | set(INTERNAL) | covered) - registered
    assert not stale, f"op_specs names primitives that do not exist: {sorted(stale)}"
    prims = core.primitives()
    for name in NONDIFF:
        assert prims[name].nondiff, f"{name} is in NONDIFF but has gradient rules"
    for name in registered - set(NONDIFF):
        p = prims[name]
        assert not p.nondiff, f"{name} is declared nondiff but is not in NONDIFF"
        assert p.vjp is not None, f"{name} has no VJP rule"
        if name != "custom_gradient":  # forward mode may transpose the user's VJP instead
            assert p.jvp is not None, f"{name} has no JVP rule"
    for name, reason in INTERNAL.items():
        assert reason, name


def test_internal_primitives_are_reached_at_second_order():
    # cast is checked exactly elsewhere; while_grad only inside traces; the gamma samplers'
    # draws are not differentiable by finite differences; py_function only first order (see
    # INTERNAL)
    exempt = ("cast", "while_grad", "random_gamma", "stateless_gamma", "py_function",
              "py_function_vjp", "adjust_contrast", "adjust_saturation", "adjust_hue")
    reached = {name: False for name in INTERNAL if name not in exempt}
    for spec in SPECS:
        names = set(spec.primitives) & set(reached)
        if names and spec.order == 2:
            reached.update(dict.fromkeys(names, True))
    assert all(reached.values()), f"no second-order row reaches {reached}"


def test_nondiff_primitives_give_no_gradient():
    x = fg.constant([0.5, -1.5, 2.5], fg.float64)
    fns = [lambda x: fg.cast(fg.less(x, 1.), fg.float64) * x,
           lambda x: fg.floor(x) * 1., lambda x: fg.math.ceil(x), lambda x: fg.round(x),
           lambda x: fg.math.floordiv(x, 2.), lambda x: fg.stop_gradient(x)]
    for fn in fns[1:]:
        assert fg.grad(lambda x, fn=fn: fg.reduce_sum(fn(x)))(x).numpy().tolist() == [0., 0., 0.]
    # comparisons: the mask is a constant, the gradient is the mask itself
    assert fg.grad(lambda x: fg.reduce_sum(fns[0](x)))(x).numpy().tolist() == [1., 1., 0.]


# ---- cast: float64 -> float32 loses what finite differences need, so exact checks -------------

def test_cast_gradient():
    x = fg.constant([0.5, -1.25, 3.0], fg.float64)  # exact in float32
    g = fg.grad(lambda x: fg.reduce_sum(fg.square(fg.cast(x, fg.float32))))(x)
    assert g.dtype == fg.float64
    np.testing.assert_array_equal(g.numpy(), [1.0, -2.5, 6.0])
    _, t = fg.jvp(lambda x: fg.cast(x, fg.float32), [x], [fg.constant([1., 2., -4.], fg.float64)])
    assert t.dtype == fg.float32
    np.testing.assert_array_equal(t.numpy(), np.float32([1., 2., -4.]))
    # second order through cast in both directions: d2/dx2 sum(x^3) = 6x
    hvp = fg.hessian_vector_product(
        lambda x: fg.reduce_sum(fg.cast(fg.cast(x, fg.float32) ** 3, fg.float64)), x,
        fg.constant([1., 1., 1.], fg.float64))
    np.testing.assert_array_equal(hvp.numpy(), [3.0, -7.5, 18.0])
    # a quadratic: central differences are exact up to float32 rounding, so a coarse step works
    check_gradients(lambda x: fg.cast(fg.square(fg.cast(x, fg.float32)), fg.float64),
                    [np.array([0.3, -1.1, 0.7])], eps=1e-2, atol=1e-3, rtol=1e-3)
    # integers get no gradient
    assert fg.grad(lambda x: fg.reduce_sum(fg.cast(fg.cast(x, fg.int32), fg.float64)))(x) \
        .numpy().tolist() == [0., 0., 0.]


# ---- 3. values against reference math ------------------------------------------------------

EXTREME = np.array([1e4, -1e4, 0., 1., -1., 30., -30., 710., -745., np.inf, -np.inf, np.nan])


def _f64(x):
    return fg.constant(np.asarray(x, np.float64))


@pytest.mark.parametrize("fn, ref", [
    (fg.sigmoid, scipy.special.expit),
    (fg.math.softplus, lambda x: np.logaddexp(0., x)),
    (fg.exp, np.exp), (fg.math.expm1, np.expm1), (fg.tanh, np.tanh),
    (fg.math.log1p, np.log1p), (fg.math.log, np.log), (fg.sqrt, np.sqrt),
    (fg.math.reciprocal, lambda x: 1 / x), (fg.nn.relu, lambda x: np.maximum(x, 0.)),
    (fg.abs, np.abs), (fg.sign, np.sign), (fg.math.atan, np.arctan),
], ids=lambda v: getattr(v, "__name__", ""))
def test_unary_values(fn, ref):
    with np.errstate(all="ignore"):
        want = ref(EXTREME)
    got = fn(_f64(EXTREME)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)


def test_ieee_specials_are_kept():
    with np.errstate(all="ignore"):
        assert fg.exp(_f64(1e4)).numpy() == np.inf
        assert fg.math.log(_f64(0.)).numpy() == -np.inf
        assert np.isnan(fg.math.log(_f64(-1.)).numpy())
        assert np.isnan(fg.sqrt(_f64(-1.)).numpy())
        assert fg.math.reciprocal(_f64(0.)).numpy() == np.inf
        assert np.isnan(fg.divide(_f64(0.), _f64(0.)).numpy())
        assert fg.divide(_f64(-1.), _f64(0.)).numpy() == -np.inf
        assert np.isnan(fg.multiply(_f64(0.), _f64(np.inf)).numpy())
        assert np.isnan(fg.math.sinh(_f64(np.nan)).numpy())
    # float32 by default: the extremes saturate exactly instead of overflowing to nan
    assert fg.sigmoid(fg.constant([1e4, -1e4])).numpy().tolist() == [1.0, 0.0]
    assert fg.math.softplus(fg.constant(1e4)).numpy() == np.float32(1e4)


_ROWS = np.array([[1e4, 1e4, 0.], [-1e4, 0., 1e4], [0., 0., 0.], [-1e4, -1e4, -1e4],
                  [1., 2., 3.], [-745., -745., 0.]])
_SPECIAL_ROWS = np.array([[np.inf, 0., 1.], [-np.inf, -np.inf, -np.inf], [np.nan, 0., 1.],
                          [-np.inf, 0., 1.]])


@pytest.mark.parametrize("rows", [_ROWS, _SPECIAL_ROWS], ids=["finite", "inf-nan"])
def test_logsumexp_values(rows):
    with np.errstate(all="ignore"):
        for axis in (-1, 0, None):
            for keepdims in (False, True):
                want = scipy.special.logsumexp(rows, axis=axis, keepdims=keepdims)
                got = fg.reduce_logsumexp(_f64(rows), axis=axis, keepdims=keepdims).numpy()
                assert got.shape == np.shape(want)
                np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("rows", [_ROWS, _SPECIAL_ROWS], ids=["finite", "inf-nan"])
def test_softmax_values(rows):
    with np.errstate(all="ignore"):
        for axis in (-1, 0):
            np.testing.assert_allclose(fg.nn.softmax(_f64(rows), axis=axis).numpy(),
                                       scipy.special.softmax(rows, axis=axis), rtol=1e-14,
                                       atol=1e-300, equal_nan=True)
            got = fg.nn.log_softmax(_f64(rows), axis=axis).numpy()
            want = scipy.special.log_softmax(rows, axis=axis)
            # a slice holding +inf: x - max is nan there and the whole slice is nan (SciPy
            # shifts by 0 instead and keeps -inf beside the nan); either way nothing is hidden
            plus_inf = np.any(rows == np.inf, axis=axis, keepdims=True) & np.ones_like(rows,
                                                                                      bool)
            assert np.isnan(got[plus_inf]).all()
            np.testing.assert_allclose(got[~plus_inf], want[~plus_inf], rtol=1e-14, atol=0,
                                       equal_nan=True)


def test_softmax_extreme_values_exact():
    np.testing.assert_array_equal(fg.nn.softmax(_f64([1e4, 0., -1e4])).numpy(), [1., 0., 0.])
    np.testing.assert_array_equal(fg.nn.log_softmax(_f64([1e4, 0., -1e4])).numpy(),
                                  [0., -1e4, -2e4])
    np.testing.assert_array_equal(fg.nn.softmax(_f64([1e4, 1e4])).numpy(), [.5, .5])


def test_cross_entropy_values():
    logits = np.array([[1e4, 0., -1e4], [1., 2., 3.], [0., 0., 0.]])
    labels = np.array([[0.2, 0.3, 0.5], [1., 0., 0.], [0., 0., 1.]])
    want = -np.sum(labels * scipy.special.log_softmax(logits, axis=-1), axis=-1)
    got = fg.nn.softmax_cross_entropy_with_logits(_f64(labels), _f64(logits)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14)
    ids = np.array([2, 0, 1])
    want = -scipy.special.log_softmax(logits, axis=-1)[np.arange(3), ids]
    got = fg.nn.sparse_softmax_cross_entropy_with_logits(ids, _f64(logits)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_array_equal(got[0], 2e4)


def test_sigmoid_cross_entropy_values():
    x = np.array([1e4, -1e4, 0., 1., -1., 30., -30.])
    z = np.array([1., 1., .5, 0., .3, 0., 1.])
    got = fg.nn.sigmoid_cross_entropy_with_logits(_f64(z), _f64(x)).numpy()
    # TensorFlow's formula, in NumPy, and the plain definition where it is accurate
    np.testing.assert_allclose(got, np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))),
                               rtol=1e-15)
    plain = -z * np.log(scipy.special.expit(x)) - (1 - z) * np.log1p(-scipy.special.expit(x))
    np.testing.assert_allclose(got[2:5], plain[2:5], rtol=1e-12)
    np.testing.assert_array_equal(got[:2], [0., 1e4])


def test_norm_and_l2_loss_values():
    x = np.array([[3., -4., 0.], [1e-200, 2., -2.]])
    for ord_, axis in [("euclidean", None), ("euclidean", -1), (1, None), (np.inf, -1),
                       (3, -1), ("fro", (0, 1))]:
        want = np.linalg.norm(x.reshape(-1) if axis is None else x,
                              ord=None if ord_ in ("euclidean", "fro") else ord_,
                              axis=None if axis is None else axis)
        np.testing.assert_allclose(fg.norm(_f64(x), ord=ord_, axis=axis).numpy(), want,
                                   rtol=1e-14)
    assert fg.nn.l2_loss(_f64(x)).numpy() == 16.5


# ---- 4. subgradients at kinks ------------------------------------------------------------

def _grads(fn, *xs):
    """Reverse-mode gradient of sum(fn) and, per input, the forward-mode tangent along ones."""
    xs = [_f64(x) for x in xs]
    rev = fg.grad(lambda *a: fg.reduce_sum(fn(*a)), argnums=tuple(range(len(xs))))(*xs)
    fwd = []
    for i in range(len(xs)):
        tans = [fg.ones_like(x) if j == i else fg.zeros_like(x) for j, x in enumerate(xs)]
        fwd.append(fg.jvp(fn, xs, tans)[1].numpy())
    return [g.numpy() for g in rev], fwd


def test_abs_subgradient_at_zero_is_zero():
    rev, fwd = _grads(fg.abs, [-2., 0., 3.])
    np.testing.assert_array_equal(rev[0], [-1., 0., 1.])
    np.testing.assert_array_equal(fwd[0], [-1., 0., 1.])
    # its second derivative is 0 everywhere, 0 included (sign's gradient is 0)
    hvp = fg.hessian_vector_product(lambda x: fg.reduce_sum(fg.abs(x)), _f64([-2., 0., 3.]),
                                    _f64([1., 1., 1.]))
    np.testing.assert_array_equal(hvp.numpy(), [0., 0., 0.])


def test_relu_subgradient_at_zero_is_zero():
    rev, fwd = _grads(fg.nn.relu, [-2., 0., 3.])
    np.testing.assert_array_equal(rev[0], [0., 0., 1.])
    np.testing.assert_array_equal(fwd[0], [0., 0., 1.])


@pytest.mark.parametrize("op", [fg.maximum, fg.minimum], ids=["maximum", "minimum"])
def test_ties_go_to_the_first_argument(op):
    x, y = [1., 2., -1.], [1., 2., -1.]
    rev, fwd = _grads(op, x, y)
    np.testing.assert_array_equal(rev[0], [1., 1., 1.])
    np.testing.assert_array_equal(rev[1], [0., 0., 0.])
    np.testing.assert_array_equal(fwd[0], [1., 1., 1.])
    np.testing.assert_array_equal(fwd[1], [0., 0., 0.])
    # broadcast against a scalar: the scalar gets the gradient only where it strictly wins
    rev, fwd = _grads(op, [0., 1., 2.], 1.)
    wins_y = [0., 0., 1.] if op is fg.minimum else [1., 0., 0.]
    np.testing.assert_array_equal(rev[0], 1 - np.array(wins_y))
    assert rev[1] == sum(wins_y) and fwd[1].tolist() == wins_y
    # away from ties, each gets the gradient where it is the result
    rev, _ = _grads(op, [0., 3.], [1., 2.])
    np.testing.assert_array_equal(rev[0], [0., 1.] if op is fg.maximum else [1., 0.])


def test_clip_by_value_gradient_includes_the_bounds():
    t = [-1., 1., 0.5, 2., -2.]
    lo, hi = [-1.] * 5, [1.] * 5
    rev, fwd = _grads(fg.clip_by_value, t, lo, hi)
    np.testing.assert_array_equal(rev[0], [1., 1., 1., 0., 0.])
    np.testing.assert_array_equal(rev[1], [0., 0., 0., 0., 1.])
    np.testing.assert_array_equal(rev[2], [0., 0., 0., 1., 0.])
    for r, f in zip(rev, fwd, strict=True):
        np.testing.assert_array_equal(r, f)


@pytest.mark.parametrize("op, x, want", [
    (fg.reduce_max, [1., 3., 3.], [0., .5, .5]),
    (fg.reduce_min, [2., 1., 1., 1.], [0., 1 / 3, 1 / 3, 1 / 3]),
    (fg.reduce_max, [4., 4., 4., 4.], [.25, .25, .25, .25]),
], ids=["max", "min", "all-equal"])
def test_reduce_extremum_ties_share_equally(op, x, want):
    rev, fwd = _grads(op, x)
    np.testing.assert_allclose(rev[0], want, rtol=1e-15)
    assert fwd[0] == pytest.approx(1.0)  # the tangent along ones: the mean of ones
    v = _f64(np.arange(len(x), dtype=np.float64))
    _, t = fg.jvp(op, [_f64(x)], [v])
    assert t.numpy() == pytest.approx(float(np.dot(want, np.arange(len(x)))))


def test_reduce_max_ties_along_an_axis():
    x = _f64([[1., 1., 0.], [0., 2., -1.]])
    g = fg.grad(lambda x: fg.reduce_sum(fg.reduce_max(x, axis=1) * _f64([1., 3.])))(x)
    np.testing.assert_array_equal(g.numpy(), [[.5, .5, 0.], [0., 3., 0.]])


def test_gradients_at_points_of_documented_ieee_results():
    # sqrt'(0) is inf, as in TensorFlow
    assert fg.grad(fg.sqrt)(_f64(0.)).numpy() == np.inf
    # the euclidean norm's gradient at 0 is nan (0/0), as in TensorFlow
    assert np.isnan(fg.grad(fg.norm)(_f64([0., 0.])).numpy()).all()
    # reduce_prod is exact with zeros (no division by x)
    np.testing.assert_array_equal(fg.grad(fg.reduce_prod)(_f64([0., 2., 3.])).numpy(),
                                  [6., 0., 0.])
    np.testing.assert_array_equal(fg.grad(fg.reduce_prod)(_f64([0., 2., 0.])).numpy(),
                                  [0., 0., 0.])
    # the stable forms stay finite at the extremes
    np.testing.assert_array_equal(fg.grad(lambda x: fg.reduce_sum(fg.sigmoid(x)))(
        _f64([1e4, -1e4, 0.])).numpy(), [0., 0., .25])
    np.testing.assert_array_equal(fg.grad(lambda x: fg.reduce_sum(fg.math.softplus(x)))(
        _f64([1e4, -1e4, 0.])).numpy(), [1., 0., .5])
    np.testing.assert_array_equal(fg.grad(fg.reduce_logsumexp)(_f64([1e4, 1e4, -1e4])).numpy(),
                                  [.5, .5, 0.])
    np.testing.assert_array_equal(fg.grad(lambda x: fg.reduce_sum(
        fg.nn.sigmoid_cross_entropy_with_logits(_f64([1., 0., .5]), x)))(
        _f64([1e4, -1e4, 0.])).numpy(), [0., 0., 0.])

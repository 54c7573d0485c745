"""Each primitive's XLA lowering (``lower_jax``, through JAX) against its NumPy ``impl``.

The op table's rows run eagerly (value, gradient and second-order gradient, in float32 and
float64) with the ``impl`` of every primitive of `NAMES` wrapped to record its calls:
their inputs, params and outputs. Each recorded call is then replayed through the
primitive's lowering under ``jax.jit`` (float64 with JAX's x64 mode) and must give the
impl's dtype, shape and values within `RTOL`. Non-differentiable primitives the table does
not reach, and documented edge values (NaN, infinities, signed zeros, ties), have cases of
their own below (the ``_*_cases`` generators). `test_compiled_edge_cases_without_callbacks`
runs those through ``function(jit_compile=True)`` itself.
"""
import contextlib
import importlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import finegrad as fg   # noqa: E402
import finegrad.image  # noqa: E402
import finegrad.signal  # noqa: E402
from finegrad._src import core, nest   # noqa: E402

from op_specs import SPECS   # noqa: E402

#: XLA's own transcendental approximations and summation orders: a few ulps of the result,
#: relative to the scale of the compared values
RTOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-11}
#: decompositions and solvers reassociate more (LAPACK blocking vs XLA's): a little more room
RTOL_LINALG = {np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-9}
LINALG = {"cholesky", "eigh", "inv", "det", "log_abs_det", "pinv", "lu", "expm",
          "matrix_solve", "triangular_solve", "svd", "qr", "eig"}


def resolve(low):
    """``lower_jax`` as a callable (a string names a function of jax.numpy, or of the
    submodule its dotted prefix names)."""
    if callable(low):
        return low
    mod, _, attr = low.rpartition(".")
    return getattr(importlib.import_module("jax.numpy" if not mod else
                                           "jax." + mod if mod != "lax" else "jax.lax"), attr)


@contextlib.contextmanager
def x64():
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


# ---- recording the impl calls of the op table -----------------------------------------------

def _key(prim, args, params):
    shapes = tuple((np.shape(a), np.asarray(a).dtype.str) for a in args)
    return prim.name, shapes, repr(sorted(params.items()))


@contextlib.contextmanager
def recording(prims, calls):
    """Wrap each primitive's impl to append ``(prim, args, params, out)`` to ``calls``
    (one call per primitive, shapes, dtypes and params)."""
    seen, saved = set(), {p: p.impl for p in prims}

    def wrap(prim, impl):
        def recorded(*args, **params):
            out = impl(*args, **params)
            params = {k: v for k, v in params.items() if k != "out"}   # executor's buffer
            key = _key(prim, args, params)
            if key not in seen:
                seen.add(key)
                copy = lambda v: np.array(v, copy=True)   # noqa: E731
                calls.append((prim, [copy(a) for a in args], params,
                              tuple(map(copy, out)) if prim.multiple_results else copy(out)))
            return out
        return recorded
    for p in prims:
        p.impl = wrap(p, p.impl)
    try:
        yield
    finally:
        for p, impl in saved.items():
            p.impl = impl


def _second_order(spec):
    def f(*xs):
        with fg.GradientTape() as outer:
            outer.watch(list(xs))
            with fg.GradientTape() as tape:
                tape.watch(list(xs))
                leaves = [o for o in nest.flatten(spec(*xs)) if o.dtype.is_floating]
                loss = fg.add_n([fg.reduce_sum(o * o * 0.5 + o) for o in leaves])
            grads = [g for g in tape.gradient(loss, list(xs)) if g is not None]
            total = fg.add_n([fg.reduce_sum(fg.convert_to_tensor(g) ** 2) for g in grads]) \
                if grads else None
        if total is not None:
            outer.gradient(total, list(xs))
        return leaves
    return f


def _table_calls():
    calls = []
    with recording([core.primitives()[n] for n in NAMES], calls):
        for spec in SPECS:
            for dtype in (np.float32, np.float64):
                shapes = spec.cases()[-1]
                args = [fg.constant(np.asarray(a, dtype)) for a in spec.make_args(shapes, 7)]
                try:
                    _second_order(spec)(*args)
                except Exception:   # rows without a second order stop early: calls so far
                    pass
    return calls


_CALLS = None


def table_calls():
    global _CALLS
    if _CALLS is None:
        _CALLS = _table_calls()
    return _CALLS


# ---- comparing ------------------------------------------------------------------------------

def run_lowering(prim, args, params):
    """The lowering's result under ``jax.jit`` as NumPy values, or NotImplemented where it
    declines the call (the compiler then calls ``impl`` back)."""
    fn, declined = resolve(prim.lower_jax), []

    def lowered_fn(*a):
        out = fn(*a, **params)
        if out is NotImplemented:
            declined.append(True)
            return ()
        return out
    with x64():
        out = jax.jit(lowered_fn)(*[jax.numpy.asarray(a) for a in args])
    if declined:
        return NotImplemented
    return tuple(np.asarray(o) for o in out) if prim.multiple_results else np.asarray(out)


def assert_close(got, want, name, tol=None):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype}, impl {want.dtype}"
    assert got.shape == want.shape, f"{name}: shape {got.shape}, impl {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=name)
        return
    real = np.dtype(want.real.dtype)
    table = RTOL_LINALG if name in LINALG else RTOL
    rtol = tol if tol is not None else table.get(real, 1e-3)
    finite = np.isfinite(want)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0, where=finite)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True,
                               err_msg=name)
    # the non-finite values must be the same ones (inf of the same sign, nan)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)


#: (primitive, what) whose calls a lowering declines on purpose: the host callback keeps
#: impl's errors, or no JAX function computes them
DECLINES = {("truncatediv", "i"), ("truncatemod", "i"), ("igamma", "order>1 or scaled")}
#: (the scaled order 0 and orders above 1 of igamma: no JAX function computes them)


def _compare(prim, args, params, want):
    got = run_lowering(prim, args, params)
    if got is NotImplemented:
        why = "i" if np.asarray(args[0]).dtype.kind in "iu" else \
            "order>1 or scaled" if params.get("order", 0) > 1 or \
            (params.get("scaled") and params.get("order") == 0) else "unexpected"
        assert (prim.name, why) in DECLINES, f"{prim.name} declined {params}"
        return
    check = SPECIAL.get(prim.name)
    if check is not None:
        check(got, want, args, params)
    elif prim.multiple_results:
        for g, w in zip(got, want, strict=True):
            assert_close(g, w, prim.name)
    else:
        assert_close(got, want, prim.name)


def _ids(calls):
    return [f"{p.name}-{'x'.join(str(np.shape(a)) for a in args)}-{np.asarray(args[0]).dtype}"
            for p, args, _, _ in calls]


def _aligned(got, want, axis):
    """``got`` with each vector along ``axis`` multiplied by the unit phase that best
    matches ``want``'s (eigenvectors and singular vectors are unique up to one)."""
    dot = np.sum(np.conj(got) * want, axis=axis, keepdims=True)
    phase = np.where(np.abs(dot) > 0, dot / np.where(dot == 0, 1, np.abs(dot)), 1)
    return got * phase.astype(got.dtype)


def _check_svd(got, want, args, params):
    (s, u, v), (ws, wu, wv) = got, want
    assert_close(s, ws, "svd")
    k = min(s.shape[-1], u.shape[-1])    # vectors past min(m, n) (full_matrices) are a basis
    assert_close(_aligned(u[..., :k], wu[..., :k], -2), wu[..., :k], "svd")
    assert_close(_aligned(v[..., :k], wv[..., :k], -2), wv[..., :k], "svd")
    a = np.asarray(args[0])
    assert_close((u[..., :k] * s[..., None, :].astype(u.dtype)) @ np.conj(
        np.swapaxes(v[..., :k], -1, -2)), a.astype(u.dtype), "svd")


def _check_eigh(got, want, args, params):
    (e, v), (we, wv) = got, want
    assert_close(e, we, "eigh")
    assert_close(_aligned(v, wv, -2), wv, "eigh")


def _check_qr(got, want, args, params):
    (q, r), (wq, wr) = got, want
    k = min(r.shape[-2], q.shape[-1])
    qa = _aligned(q[..., :k], wq[..., :k], -2)
    assert_close(qa, wq[..., :k], "qr")
    assert_close(q @ r, wq @ wr, "qr")


SPECIAL = {"svd": _check_svd, "eigh": _check_eigh, "qr": _check_qr}


def _extra_cases():
    """Calls the op table does not make: non-differentiable primitives, integer dtypes, and
    documented edge values."""
    nan, inf = np.nan, np.inf
    for d in (np.float32, np.float64):
        e = fg.constant(np.array([[1., nan, -inf, 3.], [-0., 0., inf, -2.], [2., 2., 1., 2.]], d))
        yield [fg.math.argmax(e, 1), fg.math.argmin(e, 1), fg.math.argmax(e, 0),
               fg.argsort(e), fg.argsort(e, direction="DESCENDING"),
               fg.sign(e), fg.abs(e), fg.math.angle(e),
               fg.reduce_max(e, 1), fg.reduce_min(e, 0), fg.reduce_prod(e, 1),
               fg.math.cumsum(e, 1), fg.math.cumprod(e, 0),
               fg.math.cumulative_logsumexp(e, 1),
               fg.math.cumulative_logsumexp(fg.constant(np.array([0., 1000., -1000., 3.], d)))]
        s = fg.constant(np.array([[-inf, -1., 0., 0., 2., nan], [1., 1., 1., 2., 3., 4.]], d))
        v = fg.constant(np.array([[nan, 0., -0., 2., inf], [1., 0., 5., 3.5, -inf]], d))
        yield [fg.searchsorted(s, v), fg.searchsorted(s, v, "right")]
        yield [fg.truncatemod(fg.constant(np.array([7., -7., 5., 0.], d)),
                              fg.constant(np.array([3., 3., -0., 0.], d))),
               fg.truncatediv(fg.constant(np.array([7., -7., 1., 0.], d)),
                              fg.constant(np.array([2., 2., 0., 0.], d))),
               fg.math.atan2(fg.constant(np.array([0., -0., 0., -0., inf, -inf, 1., nan], d)),
                             fg.constant(np.array([0., 0., -0., -0., inf, -inf, -inf, 1.], d))),
               fg.math.nextafter(fg.constant(np.array([1., 0., -0., inf], d)),
                                 fg.constant(np.array([2., -1., 1., 0.], d)))]
    # NaN through the scatters' and the pool's max/min (np.maximum.at propagates it)
    x = fg.constant(np.array([[1., nan], [nan, 2.], [3., 4.]]))
    t, u = fg.constant([1., nan, 3.]), fg.constant([nan, 5., 2.])
    yield [fg.math.segment_max(x, [0, 0, 1]), fg.math.segment_min(x, [0, 0, 1]),
           fg.tensor_scatter_nd_max(t, [[0], [1], [0]], u),
           fg.tensor_scatter_nd_min(t, [[2], [1], [2]], u),
           fg.nn.max_pool2d(fg.constant(np.array([nan, 1., 2., 3.]).reshape(1, 2, 2, 1)), 2, 1,
                            "VALID")]
    ints = fg.constant(np.array([7, -7, 6, -6], np.int32))
    yield [fg.truncatediv(ints, 3), fg.truncatemod(ints, -4),
           fg.math.invert_permutation([3, 0, 2, 1]), fg.abs(ints), fg.sign(ints),
           fg.math.argmax(ints), fg.reduce_max(ints), fg.math.cumsum(ints),
           fg.bitcast(fg.constant([1., 2.]), fg.int32),
           fg.bitcast(fg.constant([1., 2.]), fg.uint8),
           fg.bitcast(fg.constant(np.zeros((2, 4), np.uint8)), fg.float32),
           fg.bitcast(fg.constant([1 + 2j]), fg.float32)]


def _special_cases():
    nan, inf = np.nan, np.inf
    for dt in (np.float32, np.float64):
        def c(v, d=dt):
            return fg.constant(np.array(v, d))
        xs = c([2., 1., 0.5, 3., 2., 4., 3., 1.5, 2.])
        qs = c([1., 2., 1., 0., -1., -2., -2.5, -2.5, 0.5])
        yield [fg.math.zeta(xs, qs)]
        a, b = c([2., 0.5, 1., 0., -1., 2., 3., nan]), c([3., 0.5, 2., 1., 1., 0., 3., 1.])
        x = c([0.5, 0., 1., 0.5, 0.5, 0.5, 1.5, 0.5])
        yield [fg.math.betainc(a, b, x)]
        yield [fg.math.polygamma(c([0., 1., 2., 1.5, -1., 3.]),
                                          c([1., 2., 0.5, 1., 1., -1.5]))]
        ga, gx = c([1., 2., 0.5, 0., -1., 3., inf, 2.]), c([2., 0., inf, 1., 1., 50., 1., nan])
        yield [fg.math.igamma(ga, gx), fg.math.igammac(ga, gx)]
        # d/da and the density-scaled d/da (gamma samples' implicit gradient), on the kernel
        from finegrad._src.ops.special.igamma import igamma_p
        big_a, tiny_x = c([0.1, 0.5, 2., 30., 1e-3, 3., 100.]), c([0.01, 0.3, 2.5, 35., 1e-30,
                                                                  1e-30, 80.])
        yield [core.bind(igamma_p, big_a, tiny_x, order=1, upper=up, scaled=sc)
               for up in (False, True) for sc in (False, True)]
        yield [fg.math.xlogy(c([0., 2., 0., 1.]), c([0., 1., -1., 0.])),
                       fg.math.xlog1py(c([0., 2., 0., 1.]), c([-1., 0., -2., -1.]))]


def _image_cases():
    rng = np.random.default_rng(3)
    img = rng.uniform(-0.2, 1.2, (2, 3, 4, 3))
    img[0, 0, :3] = [[0.5, 0.5, 0.5], [0., 0., 0.], [1., 0., 0.]]   # gray, black, a pure hue
    for d in (np.float16, np.float32):
        x = fg.constant(img.astype(d))
        yield [fg.image.adjust_contrast(x, 1.7), fg.image.adjust_saturation(x, 0.4),
               fg.image.adjust_saturation(x, 3.), fg.image.adjust_hue(x, 0.3),
               fg.image.adjust_hue(x, -0.9)]


def _graph_op_cases():
    """The compiler's graph-only primitives, called directly (their impls take an _Index)."""
    from finegrad._src.graph.compile import graph_ops
    from finegrad._src.ops.array.indexing import _Index
    x = np.arange(24.).reshape(4, 6)
    basic, adv = _Index((slice(1, None, 2), slice(None, None, -2))), _Index((np.array([0, 2, 0]),))
    yield [graph_ops.view_p.impl(x, index=basic),
                   graph_ops.slice_copy_p.impl(x, index=basic),
                   graph_ops.slice_copy_p.impl(x, index=adv),
                   graph_ops.scatter_sum_p.impl(np.ones((2, 3)), np.ones((3, 6)) * 2,
                                                shape=(4, 6), indices=(basic, adv)),
                   graph_ops.scatter_sum_p.impl(np.full((2, 6), -0.), np.ones((2, 6)),
                                                shape=(4, 6), covers=True,
                                                indices=(_Index((slice(0, 2),)),
                                                         _Index((slice(2, 4),))))]


def _extra_calls():
    calls = []
    with recording([core.primitives()[n] for n in NAMES], calls):
        for cases in (_extra_cases, _special_cases, _image_cases, _graph_op_cases):
            for _ in cases():   # each step runs its ops
                pass
    return calls


_EXTRA = None


def extra_calls():
    global _EXTRA
    if _EXTRA is None:
        _EXTRA = _extra_calls()
    return _EXTRA


#: the primitives whose lowerings this module checks (the rest of the table's lowerings:
#: tests/test_xla.py, through the compiler)
NAMES = sorted("""
    bitcast gather gather_transpose strided_slice scatter_add_into_zeros gather_nd scatter_nd
    tensor_scatter_nd_max tensor_scatter_nd_min
    atan2 conj real imag complex angle truncatemod nextafter cumulative_logsumexp
    tanh_grad sigmoid_grad abs sign select reduce_max reduce_min reduce_prod cumsum cumprod
    segment_max segment_min segment_prod argmax argmin argsort searchsorted
    truncatediv zeta betainc polygamma igamma xlogy xlog1py
    cholesky eigh inv det log_abs_det det_sign pinv lu lu_perm expm matmul einsum
    matrix_solve triangular_solve svd qr
    conv2d conv2d_input_grad conv2d_filter_grad max_pool max_pool_scatter max_pool_gather
    avg_pool avg_pool_grad softmax log_softmax fft rfft irfft
    adjust_contrast adjust_saturation adjust_hue
    scatter_sum_into_zeros strided_slice_copy strided_slice_view
""".split())
#: calls replayed per primitive at most
MAX_CALLS = 40


@pytest.mark.parametrize("name", NAMES)
def test_lowering_matches_impl(name):
    assert core.primitives()[name].lower_jax is not None, f"{name} has no lowering"
    calls = [c for c in table_calls() + extra_calls() if c[0].name == name]
    calls = calls[::max(1, len(calls) // MAX_CALLS)]   # spread over the table (jit is slow)
    if not calls:
        pytest.skip(f"no recorded call of {name} (neither the op table nor EXTRA reach it)")
    failures = []
    for prim, args, params, want in calls:
        try:
            _compare(prim, args, params, want)
        except AssertionError as e:
            failures.append(f"{_ids([(prim, args, params, want)])[0]} {params}: {e}")
    assert not failures, "\n".join(failures[:5])


def _edge_program(e, s, v, ints):
    """Non-differentiable and edge-value ops of this module's primitives, in one function."""
    return [fg.math.argmax(e, 1), fg.math.argmin(e, 0), fg.argsort(e),
            fg.argsort(e, direction="DESCENDING"), fg.sign(e), fg.math.angle(e),
            fg.reduce_max(e, 1), fg.reduce_prod(e, 0), fg.math.cumprod(e, 1),
            fg.math.cumulative_logsumexp(e, 1), fg.searchsorted(s, v),
            fg.searchsorted(s, v, "right"), fg.truncatediv(e, 2.), fg.truncatemod(e, 1.5),
            fg.bitcast(e, fg.int32 if e.dtype == fg.float32 else fg.int64),
            fg.math.segment_max(e, [0, 0, 1]), fg.math.segment_prod(e, [0, 1, 1]),
            fg.math.argmax(ints), fg.math.cumsum(ints)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_edge_cases_without_callbacks(dtype):
    """The edge values through function(jit_compile=True): the compiled values equal the
    executor's, and none of these primitives runs as a host callback."""
    nan, inf = np.nan, np.inf
    e = fg.constant(np.array([[1., nan, -inf, 3.], [-0., 0., inf, -2.], [2., 2., 1., 2.]],
                             dtype))
    s = fg.constant(np.array([[-inf, -1., 0., 0., 2., nan], [1., 1., 1., 2., 3., 4.]], dtype))
    v = fg.constant(np.array([[nan, 0., -0., 2., inf], [1., 0., 5., 3.5, -inf]], dtype))
    ints = fg.constant(np.array([7, -7, 6, -6], np.int32))
    args = (e, s, v, ints)
    want = fg.function(_edge_program)(*args)
    compiled = fg.function(_edge_program, jit_compile=True)
    got = compiled(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())   # bitwise, NaN where NaN
        assert g.dtype == w.dtype
    conc = compiled.get_concrete_function(*args)
    entry = conc._xla_function().entry([(a.shape, a._value.dtype) for a in args])
    assert not entry.callbacks, entry.callbacks

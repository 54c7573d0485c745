"""function(jit_compile=True): graphs compiled with XLA through JAX (finegrad/_src/graph/xla/).

Every row of the op table runs, values and gradients, under ``function(jit_compile=True)``
and against the same function traced without it (finegrad's executor), in float32 and
float64. Tolerance `RTOL`, relative to the scale of the values: XLA computes with its own
elementary functions (exp, log, tanh, ... within a few units in the last place of NumPy's,
not bitwise equal), may contract a * b + c into one fused multiply-add, and sums in another
order, and a gradient chains a few dozen such steps. Measured over the whole table on this
branch (where the rows' linalg/nn/gather primitives still ran as host callbacks, bitwise
NumPy): at most 2.3e-7 in float32 (softmax_cross_entropy_with_logits, about 2 ulp) and
1.2e-15 in float64 (lgamma); 1e-5 and 1e-12 leave room for lowered matmuls and reductions,
which add in XLA's order.

The primitives that had no lowering (their nodes ran as host callbacks of their ``impl``)
are collected while the table runs and reported by `test_report_of_host_callbacks`, which
warns with the list (shown in pytest's warnings summary) and prints it (``-s``).
"""
import collections
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest

jax = pytest.importorskip("jax")

from op_specs import SPECS   # noqa: E402
from seed_examples import log1pexp   # noqa: E402

RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}

#: primitive name -> the op-table rows in which it ran as a host callback
FALLBACKS = collections.defaultdict(set)


def _value_and_grads(spec):
    def f(*xs):
        with fg.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            out = spec(*xs)
            leaves = [o for o in nest.flatten(out) if o.dtype.is_floating]
            loss = fg.add_n([fg.reduce_sum(o * o * 0.5 + o) for o in leaves])
        return leaves, tape.gradient(loss, list(xs))
    return f


def _leaves(res):
    return [np.asarray(fg.convert_to_tensor(t).numpy()) for t in nest.flatten(res)
            if t is not None]


def _assert_close(got, want, dtype):
    assert len(got) == len(want)
    tol = RTOL[np.dtype(dtype)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0, where=np.isfinite(w))))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True)


def _callbacks(fn, args):
    conc = fn.get_concrete_function(*args)
    return conc._xla_function().entry([(a.shape, a._value.dtype) for a in args]).callbacks


CASES = [(spec, spec.cases()[-1], dt) for spec in SPECS for dt in (np.float32, np.float64)]


@pytest.mark.parametrize("spec, shapes, dtype", CASES,
                         ids=[f"{s.label}-{np.dtype(d).name}" for s, _, d in CASES])
def test_op_table_compiled_agrees_with_the_executor(spec, shapes, dtype):
    args = [fg.constant(np.asarray(a, dtype)) for a in spec.make_args(shapes, seed=7)]
    fn = _value_and_grads(spec)
    fg.random.set_seed(3)
    want = _leaves(fg.function(fn)(*args))
    compiled = fg.function(fn, jit_compile=True)
    fg.random.set_seed(3)
    got = _leaves(compiled(*args))
    for c in _callbacks(compiled, args):
        FALLBACKS[c.split(" ", 1)[0]].add(spec.label)
    _assert_close(got, want, dtype)


def test_report_of_host_callbacks():
    """Which primitives ran as host callbacks in the op table (no lowering yet); run after
    the table (same file, later)."""
    if not FALLBACKS:
        pytest.skip("the op table did not run in this session")
    lines = [f"{p}: {len(rows)} rows ({', '.join(sorted(rows)[:3])}...)"
             for p, rows in sorted(FALLBACKS.items())]
    report = f"{len(FALLBACKS)} primitives ran as host callbacks:\n" + "\n".join(lines)
    print(report)
    warnings.warn(report, UserWarning, stacklevel=1)


# --- the check: the custom gradient of the TF seed compiled ---------------------------

def test_log1pexp_custom_gradient_compiled_is_exactly_one_at_100_without_callbacks():
    @fg.function(jit_compile=True)
    def grad(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return tape.gradient(y, x)

    x = fg.constant(100.)
    g = grad(x)
    assert g.dtype == fg.float32 and g.numpy() == 1.0
    src = grad.get_concrete_function(x).compiled_source
    assert "host callbacks: none" in src and "callback" not in src.split("\n", 2)[2]
    assert "exp" in src   # the jaxpr is there


# --- compilation cache, sizes, variables, control flow ----------------------------------------

def test_one_compilation_per_signature_and_per_size_of_a_none_dimension():
    @fg.function(jit_compile=True, input_signature=[fg.TensorSpec([None], fg.float32)])
    def f(x):
        return fg.reduce_sum(fg.exp(x)) * fg.cast(fg.shape(x)[0], fg.float32)

    conc = f.get_concrete_function()
    for n in (3, 3, 5, 3, 5):
        x = np.linspace(0., 1., n).astype(np.float32)
        np.testing.assert_allclose(f(x).numpy(), np.exp(x).sum() * n, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    assert conc._xla_function().compilations == 2   # sizes 3 and 5, each once


def test_fixed_signature_second_call_compiles_nothing():
    @fg.function(jit_compile=True)
    def f(x, y):
        return x * y + 1.

    a, b = fg.constant([1., 2.]), fg.constant([3., 4.])
    f(a, b)
    xla_f = f.get_concrete_function(a, b)._xla_function()
    f(b, a)
    assert xla_f.compilations == 1
    f(fg.constant([1., 2., 3.]), fg.constant(2.))   # a new signature: a new trace
    assert xla_f.compilations == 1


def test_variables_are_read_and_assigned_as_in_the_executor():
    v = fg.Variable([1., 2.])
    w = fg.Variable(0.5)

    def step(x):
        v.assign_add(x * w)
        w.assign(w * 2.)
        v[0].assign(v[0] + 100.)
        return v.read_value() + 0.

    plain_v, plain_w = v.numpy(), w.numpy()
    compiled = fg.function(step, jit_compile=True)
    outs = [compiled(fg.constant([1., 1.])).numpy() for _ in range(3)]
    got = (v.numpy(), w.numpy())
    v.assign(plain_v)
    w.assign(plain_w)
    plain = fg.function(step)
    want = [plain(fg.constant([1., 1.])).numpy() for _ in range(3)]
    np.testing.assert_array_equal(np.array(outs), np.array(want))
    np.testing.assert_array_equal(got[0], v.numpy())
    assert got[1] == w.numpy() == 4.


def test_cond_and_while_loop_lower_to_lax_and_carry_assigned_variables():
    counter = fg.Variable(0)

    @fg.function(jit_compile=True)
    def f(x):
        def body(a):
            counter.assign_add(1)
            return (a / 2.,)
        y = fg.cond(x > 0., lambda: x * 3., lambda: -x)
        (r,) = fg.while_loop(lambda a: a > 1., body, (y,), maximum_iterations=10)
        return y, r

    y, r = f(fg.constant(10.))
    assert (y.numpy(), r.numpy(), counter.numpy()) == (30., 0.9375, 5)
    y, r = f(fg.constant(-3.))
    assert (y.numpy(), r.numpy(), counter.numpy()) == (3., 0.75, 7)
    src = f.get_concrete_function(fg.constant(1.)).compiled_source
    assert "host callbacks: none" in src and "cond[" in src and "while[" in src


def test_gradient_of_a_while_loop_compiled_matches_the_closed_form():
    @fg.function(jit_compile=True)
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            (y,) = fg.while_loop(lambda a: a < 100., lambda a: (a * a,), (x,))
        return y, tape.gradient(y, x)

    y, g = f(fg.constant(1.5))   # 1.5 -> 2.25 -> 5.0625 -> 25.6 -> 656.8: x**16
    assert np.isclose(y.numpy(), 1.5 ** 16) and np.isclose(g.numpy(), 16 * 1.5 ** 15)


def test_a_tape_around_a_compiled_function_replays_it():
    f = fg.function(lambda x: fg.reduce_sum(fg.sin(x)), jit_compile=True)
    x = fg.constant([0.5, 1.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos([0.5, 1.]), rtol=1e-6)


# --- host callbacks: random streams, numpy_function, errors -------------------------------------

def test_random_draws_are_bit_identical_to_the_uncompiled_graph():
    def draw(x):
        return fg.random.normal([4]) * x + fg.random.uniform([4])

    fg.random.set_seed(11)
    plain = fg.function(draw)
    want = [plain(fg.constant(2.)).numpy() for _ in range(3)]
    fg.random.set_seed(11)
    compiled = fg.function(draw, jit_compile=True)
    got = [compiled(fg.constant(2.)).numpy() for _ in range(3)]
    np.testing.assert_array_equal(np.array(got), np.array(want))
    assert not np.array_equal(got[0], got[1])   # each call draws anew
    src = compiled.get_concrete_function(fg.constant(2.)).compiled_source
    assert "io_callback(ordered=True)" in src


def test_numpy_function_runs_on_the_host_and_its_error_keeps_its_type():
    def check(a):
        if np.any(a < 0):
            raise ValueError("negative input")
        return np.sort(a)

    @fg.function(jit_compile=True)
    def f(x):
        return fg.numpy_function(check, [x * 2.], fg.float32) + 1.

    np.testing.assert_array_equal(f(fg.constant([3., 1.])).numpy(), [3., 7.])
    with pytest.raises(ValueError, match="negative input"):
        f(fg.constant([-3., 1.]))
    assert "numpy_function" in f.get_concrete_function(fg.constant([3., 1.])).compiled_source


def test_integer_floordiv_by_zero_raises_as_uncompiled():
    f = fg.function(lambda a, b: a // b, jit_compile=True)
    assert f(fg.constant([7, -7]), fg.constant(2)).numpy().tolist() == [3, -4]
    with pytest.raises(fg.errors.InvalidArgumentError, match="division by zero"):
        f(fg.constant([7, -7]), fg.constant(0))


# --- listing, devices, Keras, without JAX ------------------------------------------------------

def test_compiled_hlo_and_source_name_the_device():
    f = fg.function(lambda x: fg.exp(x) + 1., jit_compile=True)
    conc = f.get_concrete_function(fg.constant([1., 2.]))
    assert "stablehlo.exponential" in conc.compiled_hlo()
    assert conc.compiled_source.startswith("# XLA through jax.jit on ")
    with pytest.raises(ValueError, match="compiled_hlo"):
        fg.function(lambda x: x + 1.).get_concrete_function(fg.constant(1.)).compiled_hlo()


def test_device_block_without_that_device_falls_back_to_the_default():
    f = fg.function(lambda x: x * 2., jit_compile=True)
    with fg.device("/GPU:0"):
        y = f(fg.constant([1., 2.]))
    assert y.numpy().tolist() == [2., 4.]
    entry = f.get_concrete_function(fg.constant([1., 2.]))._xla_function()._cache
    devices = {e.device.platform for e in entry.values()}
    assert devices == {jax.devices()[0].platform}


@pytest.mark.skipif(not any(d.platform == "gpu" for d in jax.devices()),
                    reason="no GPU visible to JAX on this machine")
def test_device_gpu_runs_on_the_gpu_and_keeps_variables_there():
    v = fg.Variable(np.zeros(3, np.float32))

    @fg.function(jit_compile=True)
    def f(x):
        v.assign_add(x)
        return fg.reduce_sum(v.read_value())

    with fg.device("/GPU:0"):
        for _ in range(3):
            out = f(fg.constant([1., 2., 3.]))
    assert out.numpy() == 18. and v.numpy().tolist() == [3., 6., 9.]
    xf = f.get_concrete_function(fg.constant([1., 2., 3.]))._xla_function()
    assert {e.device.platform for e in xf._cache.values()} == {"gpu"}


def test_keras_compile_jit_compile_fit_matches_the_executor():
    K, L = fg.keras, fg.keras.layers
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype("f4")
    y = (x @ rng.normal(size=(5, 1)) + 0.1).astype("f4")
    weights, histories = [], []
    for jit in (False, True):
        K.backend.clear_session()
        m = K.Sequential([K.Input((5,)), L.Dense(8, activation="tanh"), L.Dense(1)])
        r = np.random.default_rng(1)
        m.set_weights([r.normal(size=w.shape).astype("f4") * 0.5 for w in m.get_weights()])
        m.compile(K.optimizers.Adam(0.01), "mse", jit_compile=jit, metrics=["mae"])
        histories.append(m.fit(x, y, batch_size=32, epochs=3, shuffle=False,
                               verbose=0).history)
        weights.append(m.get_weights())
    for a, b in zip(*weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(histories[1]["loss"], histories[0]["loss"], rtol=1e-5)
    assert histories[1]["loss"][-1] < histories[1]["loss"][0]


def test_without_jax_it_warns_once_and_runs_the_executor(monkeypatch):
    import sys
    from finegrad._src.graph.xla import executable
    monkeypatch.setitem(sys.modules, "jax", None)   # import jax: ImportError
    monkeypatch.setattr(executable, "_NO_JAX", [])
    f = fg.function(lambda x: x * 3., jit_compile=True)
    with pytest.warns(UserWarning, match=r'pip install "finegrad\[xla\]"'):
        assert f(fg.constant(2.)).numpy() == 6.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(fg.constant(3.)).numpy() == 9.
        assert "def " in f.get_concrete_function(fg.constant(3.)).compiled_source


def test_subnormals_are_flushed_to_zero_on_the_cpu_as_documented():
    """graph/xla/__init__.py: XLA's CPU runtime flushes subnormals (FTZ/DAZ), as JAX and
    TensorFlow with XLA do; the uncompiled graph keeps them (IEEE)."""
    if jax.devices()[0].platform != "cpu":
        pytest.skip("the flush is the CPU runtime's")
    f = fg.function(lambda x: (x * 0.5, fg.math.log(x)), jit_compile=True)
    half, log = f(fg.constant(np.float32(2e-38)))
    assert half.numpy() == 0. and fg.function(lambda x: x * 0.5)(
        fg.constant(np.float32(2e-38))).numpy() == np.float32(1e-38)
    assert np.isfinite(log.numpy())   # 2e-38 is normal: only the product is flushed
    assert f(fg.constant(np.float32(1e-39)))[1].numpy() == -np.inf   # a subnormal input


def test_while_gradient_with_maximum_iterations_lowers_to_a_scan_without_callbacks():
    def f(x, w):
        with fg.GradientTape() as tape:
            tape.watch([x, w])
            y, k = fg.while_loop(lambda a, k: a < 100., lambda a, k: (a * a * w, k + 1),
                                 (x, fg.constant(0)), maximum_iterations=10)
        return y, k, tape.gradient(y, [x, w])

    args = (fg.constant(1.5), fg.constant(1.1))
    compiled = fg.function(f, jit_compile=True)
    got, want = _leaves(compiled(*args)), _leaves(fg.function(f)(*args))
    _assert_close(got, want, np.float32)
    assert got[1] == 4   # four squarings
    src = compiled.get_concrete_function(*args).compiled_source
    assert "host callbacks: none" in src and "scan[" in src


def test_string_values_run_on_the_executor_with_a_warning():
    f = fg.function(lambda s, x: (fg.reverse(s, [0]), x * 2.), jit_compile=True)
    with pytest.warns(UserWarning, match="strings or objects"):
        r, y = f(fg.constant(["ab", "c"]), fg.constant(1.))
    assert r.numpy().tolist() == [b"c", b"ab"] and y.numpy() == 2.

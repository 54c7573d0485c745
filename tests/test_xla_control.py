"""Control flow under ``function(jit_compile=True)``: while loops, conds, switch_case and
case whose branches or bodies assign variables, counted ("range") loops, scan / foldl /
map_fn, their gradients (tapes inside the function, ``gradients``) and forward mode, and
random ops inside compiled loops. Each compiled function is compared with the uncompiled
one (values, gradients, the variables' final values, over two calls: the variables carry
over), and its listing must name no host callback where the lowering is native (the only
one left in an unbounded loop's gradient serves runs past its stored trips)."""
import numpy as np
import pytest

import finegrad as fg

pytest.importorskip("jax")

F64 = fg.float64
PAST_BUFFER = "only for runs past"


def _callbacks(compiled, args):
    src = compiled.get_concrete_function(*args).compiled_source
    return [s for s in src.split("\n") if s.startswith("#   ")]


def _flat(out):
    return [np.asarray(t) for t in fg.nest.flatten(out)]


def _compare(make, init, args, calls=2, rtol=1e-12, stored=False):
    """``make(variables)`` -> a function; compiled and uncompiled, each with its own
    variables (initial values ``init``), give the same values and leave the same values in
    the variables, call after call. Returns the compiled function's values."""
    vs_c = [fg.Variable(v, dtype=F64) for v in init]
    vs_u = [fg.Variable(v, dtype=F64) for v in init]
    compiled = fg.function(make(vs_c), jit_compile=True)
    plain = fg.function(make(vs_u))
    for _ in range(calls):
        got, want = _flat(compiled(*args)), _flat(plain(*args))
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
        np.testing.assert_allclose([v.numpy() for v in vs_c], [v.numpy() for v in vs_u],
                                   rtol=rtol)
    cbs = _callbacks(compiled, args)
    assert all(PAST_BUFFER in s for s in cbs) if stored else cbs == [], cbs
    return got


def _x(v):
    return fg.constant(v, F64)


# --- while_loop whose body assigns variables, and its gradient -------------------------------

def _assigning_loop(limit):
    def make(vs):
        (v,) = vs

        def f(x, w):
            with fg.GradientTape() as tape:
                tape.watch([x, w])

                def body(a, k):
                    v.assign_add(a * w)
                    return fg.sin(a) * w + v * 0.1, k + 1
                y, _ = fg.while_loop(lambda a, k: k < 4, body, (x, fg.constant(0)),
                                     maximum_iterations=limit)
            return y, tape.gradient(y, [x, w]), v.read_value()
        return f
    return make


@pytest.mark.parametrize("limit", [None, 6, 3])
def test_while_body_assigning_a_variable_and_its_gradient_lower_natively(limit):
    _compare(_assigning_loop(limit), [0.5], (_x(0.7), _x(1.3)), stored=limit is None)


def test_while_maximum_iterations_as_a_tensor_with_assignments():
    def make(vs):
        (v,) = vs

        def f(x, m):
            with fg.GradientTape() as tape:
                tape.watch(x)

                def body(a):
                    v.assign_add(1.)
                    return a * v
                y = fg.while_loop(lambda a: a < 1e6, body, [x], maximum_iterations=m)
            return y, tape.gradient(y, x), v.read_value()
        return f
    _compare(make, [1.], (_x(2.), fg.constant(3)), stored=True)


def test_read_after_assign_in_a_trip_is_not_differentiated_through_the_variable():
    """TensorFlow 2.21 (tf.function, values recorded): y = 24.62890625, dy/dx = 20.3125
    (the gradient stops at the assign), v = 8.125."""
    def make(vs):
        (v,) = vs

        def f(x):
            with fg.GradientTape() as tape:
                tape.watch(x)

                def body(a, k):
                    v.assign(a * 2.)
                    return v.read_value() + a * a, k + 1
                y, _ = fg.while_loop(lambda a, k: k < 3, body, (x, fg.constant(0)))
            return y, tape.gradient(y, x), v.read_value()
        return f
    got = _compare(make, [0.], (_x(0.5),), calls=1, stored=True)
    np.testing.assert_allclose(got, [24.62890625, 20.3125, 8.125], rtol=1e-15)


def test_a_condition_that_assigns_runs_once_more_than_the_body():
    """TensorFlow 2.21: a condition counting its runs gives 5 for 4 trips (1 -> 16)."""
    def make(vs):
        (c,) = vs

        def f(x):
            def cond(a):
                c.assign_add(1.)
                return a < 10.
            return fg.while_loop(cond, lambda a: a * 2., [x]), c.read_value()
        return f
    got = _compare(make, [0.], (_x(1.),))
    np.testing.assert_allclose(got, [16., 10.])   # the second call: 5 runs more


def test_range_style_counted_loop_assigning_an_accumulator():
    """``for i in tf.range(n): total += x * i`` as autograph writes it: a while loop on a
    counter below an input ``n``; d total / dx = n (n - 1) / 2 per call."""
    def make(vs):
        (total,) = vs

        def f(x, n):
            with fg.GradientTape() as tape:
                tape.watch(x)

                def body(i, s):
                    total.assign_add(x * fg.cast(i, F64))
                    return i + 1, s + x * fg.cast(i, F64)
                _, s = fg.while_loop(lambda i, s: i < n, body, (fg.constant(0), x * 0.))
            return s, tape.gradient(s, x), total.read_value()
        return f
    got = _compare(make, [0.], (_x(2.), fg.constant(5)), stored=True)
    np.testing.assert_allclose(got, [20., 10., 40.])


def test_tf_gradients_of_an_assigning_loop():
    def make(vs):
        (v,) = vs

        def f(x):
            def body(a, k):
                v.assign_add(a)
                return a * a * 0.5 + 1., k + 1
            y, _ = fg.while_loop(lambda a, k: k < 3, body, (x, fg.constant(0)),
                                 maximum_iterations=3)
            return y, fg.gradients(y, x), v.read_value()
        return f
    _compare(make, [0.], (_x(1.5),))


# --- cond, switch_case and case with assignments in the branches -----------------------------

def _branching(kind):
    def make(vs):
        v, u = vs

        def f(x, i):
            def b0():
                v.assign_add(x)
                return x * x
            def b1():
                u.assign(x * 3.)
                return fg.sin(x) * 2.
            def b2():
                v.assign_sub(1.)
                u.assign_add(x)
                return fg.exp(x)
            with fg.GradientTape() as tape:
                tape.watch(x)
                if kind == "cond":
                    y = fg.cond(i > 0, b0, b1)
                elif kind == "switch_case":
                    y = fg.switch_case(i, [b0, b1, b2])
                else:
                    y = fg.case([(i < 1, b0), (i < 2, b1)], default=b2)
            return y, tape.gradient(y, x), v.read_value(), u.read_value()
        return f
    return make


@pytest.mark.parametrize("kind", ["cond", "switch_case", "case"])
@pytest.mark.parametrize("index", [0, 1, 2, 7])
def test_branches_assigning_variables_and_their_gradients(kind, index):
    _compare(_branching(kind), [1., 2.], (_x(0.8), fg.constant(index)))


def test_case_without_default_keeps_its_run_time_check_on_the_host():
    """No default: TensorFlow raises when no predicate holds, which XLA cannot: the index
    is a host function (listed)."""
    f = fg.function(lambda x: fg.case([(x < 0., lambda: -x), (x > 1., lambda: x)]),
                    jit_compile=True)
    assert f(_x(3.)).numpy() == 3.
    assert any("numpy_function" in s for s in _callbacks(f, (_x(3.),)))
    with pytest.raises(fg.errors.InvalidArgumentError, match="none of the predicates"):
        f(_x(0.5))


# --- forward mode and higher orders ----------------------------------------------------------

def _fwd(kind):
    def make(vs):
        def f(x, w):
            with fg.autodiff.ForwardAccumulator([x, w], [_x(1.), _x(0.5)]) as acc:
                if kind == "while":
                    y, _ = fg.while_loop(lambda a, k: k < 4,
                                         lambda a, k: (fg.sin(a) * w + a, k + 1),
                                         (x, fg.constant(0)))
                elif kind == "while_unbounded_tensor_limit":
                    y = fg.while_loop(lambda a: a < 50., lambda a: a * a * w + 1., [x],
                                      maximum_iterations=fg.constant(6))
                elif kind == "cond":
                    y = fg.cond(x > 0., lambda: fg.sin(x) * w, lambda: x * x)
                elif kind == "switch_case":
                    y = fg.switch_case(fg.constant(1), [lambda: x, lambda: x * w * w])
                else:
                    y = fg.reduce_sum(fg.scan(lambda a, e: a * e + w, fg.stack([x, w, x])))
            return y, acc.jvp(y)
        return f
    return make


@pytest.mark.parametrize("kind", ["while", "while_unbounded_tensor_limit", "cond",
                                  "switch_case", "scan"])
def test_forward_mode_through_control_flow(kind):
    _compare(_fwd(kind), [], (_x(0.7), _x(1.2)))


def test_forward_mode_through_while_matches_finite_differences():
    def f(x):
        with fg.autodiff.ForwardAccumulator(x, _x(1.)) as acc:
            y, _ = fg.while_loop(lambda a, k: k < 4, lambda a, k: (fg.sin(a) * 1.2 + a, k + 1),
                                 (x, fg.constant(0)))
        return y, acc.jvp(y)
    compiled = fg.function(f, jit_compile=True)
    h = 1e-6
    fd = (compiled(_x(0.7 + h))[0].numpy() - compiled(_x(0.7 - h))[0].numpy()) / (2 * h)
    np.testing.assert_allclose(compiled(_x(0.7))[1].numpy(), fd, rtol=1e-8)


def test_gradient_of_a_forward_mode_loop_lowers_natively():
    """Reverse over forward: the JVP is itself a while loop, whose gradient is native."""
    def make(vs):
        def f(x):
            with fg.GradientTape() as tape:
                tape.watch(x)
                with fg.autodiff.ForwardAccumulator(x, _x(1.)) as acc:
                    y, _ = fg.while_loop(lambda a, k: k < 3,
                                         lambda a, k: (fg.sin(a) * a, k + 1),
                                         (x, fg.constant(0)))
                d = acc.jvp(y)
            return y, d, tape.gradient(d, x)
        return f
    _compare(make, [], (_x(0.9),), stored=True)


def _hvp_of_loop(v=None):
    def f(x, w):
        with fg.autodiff.ForwardAccumulator([x, w], [_x(1.), _x(0.3)]) as acc:
            with fg.GradientTape() as tape:
                tape.watch([x, w])

                def body(a, k):
                    if v is not None:
                        v.assign_add(a)
                    return a * a * w + fg.sin(a), k + 1
                y, _ = fg.while_loop(lambda a, k: a < 100., body, (x, fg.constant(0)))
            g = tape.gradient(y, [x, w])
        return y, g, acc.jvp(g)
    return f


def test_forward_over_reverse_without_a_static_maximum_lowers_natively():
    """The JVP of a loop's gradient is the VJP of its JVP loop (Hessians are symmetric):
    first-order nodes, native; against eager nested tapes and finite differences."""
    args = (_x(1.5), _x(1.1))
    compiled = fg.function(_hvp_of_loop(), jit_compile=True)
    got = _flat(compiled(*args))
    np.testing.assert_allclose(got, _flat(_hvp_of_loop()(*args)), rtol=1e-12)
    h = 1e-6
    plus = _flat(compiled(_x(1.5 + h), _x(1.1 + 0.3 * h)))
    minus = _flat(compiled(_x(1.5 - h), _x(1.1 - 0.3 * h)))
    np.testing.assert_allclose(got[3:], (np.array(plus[1:3]) - minus[1:3]) / (2 * h),
                               rtol=1e-6)
    assert all(PAST_BUFFER in s for s in _callbacks(compiled, args))


def test_forward_over_reverse_of_an_assigning_unbounded_loop_falls_back_to_the_host():
    """A loop that assigns variables has no JVP loop (it would assign them again): the
    JVP of its gradient is a second-order while_grad, run on the host (listed)."""
    def make(vs):
        return _hvp_of_loop(vs[0])
    with pytest.raises(AssertionError, match="while_grad \\(node"):
        _compare(make, [0.], (_x(1.5), _x(1.1)), stored=True)


# --- scan, foldl, map_fn ---------------------------------------------------------------------

def test_scan_foldl_map_fn_and_their_gradients():
    def make(vs):
        (v,) = vs

        def f(x):
            with fg.GradientTape() as tape:
                tape.watch(x)

                def step(a, e):
                    v.assign_add(e)
                    return a * e + 1.
                y = fg.scan(step, x, initializer=_x(0.5))
                z = fg.foldl(lambda a, e: a * e, x)
                m = fg.map_fn(lambda e: fg.sin(e) * v, x)
                s = fg.reduce_sum(y) + z + fg.reduce_sum(m)
            return s, tape.gradient(s, x), v.read_value()
        return f
    _compare(make, [0.], (fg.constant([1., 2., 3.], F64),))


def test_scan_over_an_open_axis_is_one_native_loop_with_its_gradient():
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            s = fg.reduce_sum(fg.scan(lambda a, e: a * e + 1., x))
        return s, tape.gradient(s, x)
    sig = [fg.TensorSpec([None], F64)]
    compiled = fg.function(f, input_signature=sig, jit_compile=True)
    plain = fg.function(f, input_signature=sig)
    for n in (3, 5):
        a = fg.constant(np.linspace(0.5, 1.5, n), F64)
        for g, w in zip(_flat(compiled(a)), _flat(plain(a)), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12)
        assert all(PAST_BUFFER in s for s in _callbacks(compiled, (a,)))


# --- random ops inside compiled loops --------------------------------------------------------

def _random_loop(x):
    y, _ = fg.while_loop(lambda a, k: k < 3,
                         lambda a, k: (a + fg.random.uniform([2], seed=7, dtype=F64), k + 1),
                         (x, fg.constant(0)))
    return y


def test_seeded_random_in_a_compiled_loop_repeats_after_set_seed_and_matches_uncompiled():
    """The draws run on the host in program order (listed): bit-identical to the uncompiled
    graph's, new values on each call, the same sequence again after ``set_seed``."""
    x = fg.constant([0., 0.], F64)
    runs, made = {}, {}
    for jit in (True, None):
        fg.random.set_seed(1234)
        f = fg.function(_random_loop, jit_compile=jit)
        runs[jit] = [f(x).numpy() for _ in range(2)]
        fg.random.set_seed(1234)
        f = fg.function(_random_loop, jit_compile=jit)
        assert np.array_equal(np.array([f(x).numpy() for _ in range(2)]), runs[jit])
        made[jit] = f
    assert not np.array_equal(runs[True][0], runs[True][1])   # a new draw each call
    np.testing.assert_array_equal(runs[True], runs[None])
    assert any("random" in s for s in _callbacks(made[True], (x,)))


def test_stateless_random_in_a_compiled_loop_gives_the_same_values_each_call():
    def f(x):
        def body(a, k):
            seed = fg.stack([k, k + 1])
            return a + fg.random.stateless_uniform([2], seed=seed, dtype=F64), k + 1
        return fg.while_loop(lambda a, k: k < 3, body, (x, fg.constant(0)))[0]
    x = fg.constant([0., 0.], F64)
    compiled = fg.function(f, jit_compile=True)
    first = compiled(x).numpy()
    np.testing.assert_array_equal(compiled(x).numpy(), first)
    np.testing.assert_array_equal(fg.function(f)(x).numpy(), first)


def test_forward_over_reverse_with_a_static_maximum_lowers_natively():
    """The Hessian-vector product of a loop with ``maximum_iterations``: the JVP of its
    gradient is an order-2 derivative, nested jax.vjp of a scan."""
    def make(vs):
        (v,) = vs

        def f(x, w):
            with fg.autodiff.ForwardAccumulator(x, _x(1.)) as acc:
                with fg.GradientTape() as tape:
                    tape.watch([x, w])

                    def body(a, k):
                        v.assign_add(a)
                        return fg.sin(a) * a * w, k + 1
                    y, _ = fg.while_loop(lambda a, k: k < 3, body, (x, fg.constant(0)),
                                         maximum_iterations=5)
                g = tape.gradient(y, [x, w])
            return y, g, acc.jvp(g), v.read_value()
        return f
    _compare(make, [0.], (_x(0.9), _x(1.1)))


@pytest.mark.parametrize("jit", [True, None])
def test_branch_updates_happen_once_though_gradients_replay_the_branch(jit):
    """TensorFlow 2.21 (tf.function, tape; values recorded): y = (v + x) x with v += x in
    the chosen branch gives y = 1.44, dy/dx = 1.8 (the read after the update is not
    differentiated through it), v = 1.8 (updated once), then index 1: 2.4, 3.0, v = 1.0.
    Forward mode gives the tape's value."""
    v = fg.Variable(1., dtype=F64)

    def f(x, i):
        with fg.autodiff.ForwardAccumulator(x, _x(1.)) as acc:
            with fg.GradientTape() as tape:
                tape.watch(x)

                def b0():
                    v.assign_add(x)
                    return v.read_value() * x

                def b1():
                    v.assign_sub(x)
                    return x * 3.
                y = fg.switch_case(i, [b0, b1])
            g = tape.gradient(y, x)
        return y, g, acc.jvp(y), v.read_value()
    f = fg.function(f, jit_compile=jit)
    np.testing.assert_allclose(_flat(f(_x(0.8), fg.constant(0))), [1.44, 1.8, 1.8, 1.8])
    np.testing.assert_allclose(_flat(f(_x(0.8), fg.constant(1))), [2.4, 3., 3., 1.])


@pytest.mark.parametrize("inner_limit", [2, 5, None])
def test_nested_loops_assigning_with_a_cond_inside_and_their_gradient(inner_limit):
    """An inner loop with a static maximum_iterations lowers, inside the outer loop's
    derivative, as a guarded scan JAX reverses; without one, JAX cannot reverse its
    lax.while_loop, and the outer derivative runs on the host (listed)."""
    def make(vs):
        (v,) = vs

        def f(x, w):
            with fg.GradientTape() as tape:
                tape.watch([x, w])

                def outer(a, i):
                    def inner(b, j):
                        v.assign_add(b)
                        return fg.sin(b) * w + 0.1, j + 1
                    b, _ = fg.while_loop(lambda b, j: j < 2, inner, (a, fg.constant(0)),
                                         maximum_iterations=inner_limit)
                    return fg.cond(b > 0.5, lambda: b * w, lambda: b + v * 0.01), i + 1
                y, _ = fg.while_loop(lambda a, i: i < 3, outer, (x, fg.constant(0)))
            return y, tape.gradient(y, [x, w]), v.read_value()
        return f
    if inner_limit is not None:
        _compare(make, [0.], (_x(0.7), _x(1.3)), stored=True)
        return
    with pytest.raises(AssertionError, match="while_grad \\(node"):
        _compare(make, [0.], (_x(0.7), _x(1.3)), stored=True)


def test_map_fn_over_an_open_axis_forward_and_reverse_lower_natively():
    def f(x, t):
        with fg.GradientTape() as tape:
            tape.watch(x)
            with fg.autodiff.ForwardAccumulator(x, t) as acc:
                m = fg.map_fn(lambda e: fg.sin(e) * e, x)
            s = fg.reduce_sum(m * m)
        return m, acc.jvp(m), tape.gradient(s, x)
    sig = [fg.TensorSpec([None], F64)] * 2
    compiled = fg.function(f, input_signature=sig, jit_compile=True)
    plain = fg.function(f, input_signature=sig)
    for n in (2, 4):
        args = (fg.constant(np.linspace(0.2, 1.2, n), F64), fg.constant(np.ones(n), F64))
        for g, w in zip(_flat(compiled(*args)), _flat(plain(*args)), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12)
        x = args[0].numpy()
        np.testing.assert_allclose(compiled(*args)[1].numpy(), np.cos(x) * x + np.sin(x))
        assert all(PAST_BUFFER in s for s in _callbacks(compiled, args))

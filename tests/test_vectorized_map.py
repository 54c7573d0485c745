"""vectorized_map as a vectorizing transform: ``fn`` traced once on one slice, each op run
once over the whole batch through its primitive's batching rule (`Primitive.def_vmap`).

Values against the per-slice loop (`map_fn`) and TensorFlow's ``tf.vectorized_map`` for a
table covering each family of rules; which primitives took the per-slice fallback; the
traced graph's size (O(1) in the batch); gradients of both orders and modes against finite
differences; variables, per-example gradients, Jacobians, custom gradients, cond; the
fallback to a loop for an ``fn`` that cannot be traced; the errors.
"""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad._src.control_flow import vectorized_map as vmap
from finegrad.testing import check_gradients

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3, 3)).astype(np.float32)
W = RNG.normal(size=(3, 5)).astype(np.float32)


def _table(m, w):
    """name -> fn(e) for one slice ``e`` of shape (3, 3), in module ``m`` (finegrad or TF)."""
    return {
        "elementwise": lambda e: m.tanh(e) * 2. + m.exp(-e * e) - e ** 2,
        "broadcast_lower_rank": lambda e: e + m.reduce_sum(e, axis=0) * w[:, 0],
        "reductions": lambda e: (m.reduce_sum(e), m.reduce_max(e, axis=1),
                                 m.reduce_mean(e, axis=-1, keepdims=True),
                                 m.reduce_prod(e, axis=[0, 1]), m.reduce_min(e, 0)),
        "reshape_family": lambda e: (m.reshape(e, [-1]), m.transpose(e), m.expand_dims(e, 1),
                                     m.squeeze(e[:1]), m.broadcast_to(e[0], (2, 3, 3))),
        "slicing": lambda e: (e[1:, ::2], e[0], e[..., 1], e[:, None], e[::-1]),
        "joining": lambda e: (m.concat([e, w[:, :3]], 0), m.stack([e, e], axis=1),
                              m.unstack(e)[1], m.split(e, 3, axis=1)[2], m.tile(e, [2, 1]),
                              m.pad(e, [[1, 0], [0, 2]])),
        "where_cast": lambda e: m.where(e > 0, e, m.zeros_like(e)) +
        m.cast(m.cast(e * 3., m.int32), m.float32),
        "products": lambda e: (m.matmul(e, w), m.einsum("ij,jk->ik", e, w),
                               m.tensordot(e, w, 1), m.linalg.matvec(e, w[:, 0]),
                               m.matmul(w[:, :3], e), m.matmul(e, e, transpose_b=True)),
        "gather": lambda e: (m.gather(e, [2, 0], axis=1), m.gather_nd(e, [[0, 1], [2, 2]]),
                             m.gather(e, [1, 1])),
        "softmax": lambda e: (m.nn.softmax(e), m.math.reduce_logsumexp(e, axis=0),
                              m.nn.log_softmax(e, axis=0)),
        "scans_and_sorting": lambda e: (m.math.cumsum(e, axis=1), m.math.cumprod(e),
                                        m.sort(e), m.math.top_k(e, 2).values,
                                        m.argmax(e, axis=1)),
        "linalg": lambda e: (m.linalg.inv(e + 3. * m.eye(3)), m.linalg.det(e),
                             m.linalg.solve(e + 3. * m.eye(3), w[:, :2]),
                             m.linalg.cholesky(m.matmul(e, e, transpose_b=True) + m.eye(3)),
                             m.linalg.triangular_solve(m.linalg.band_part(e, -1, 0) +
                                                       3. * m.eye(3), w[:, :2])),
    }


NAMES = list(_table(fg, W))


def _close(a, b, tol=1e-5):
    fa, fb = fg.nest.flatten(a), fg.nest.flatten(b)
    assert len(fa) == len(fb)
    for x, y in zip(fa, fb, strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


@pytest.fixture
def fallbacks(monkeypatch):
    """The names of the primitives that ran slice by slice (no batching rule)."""
    seen = []
    original = vmap._fallback

    def spy(node, *args):
        seen.append(node.prim.name)
        return original(node, *args)
    monkeypatch.setattr(vmap, "_fallback", spy)
    return seen


@pytest.mark.parametrize("name", NAMES)
def test_table_equals_the_loop_with_no_fallback(name, fallbacks):
    fn = _table(fg, fg.constant(W))[name]
    got = fg.vectorized_map(fn, fg.constant(X))
    _close(got, fg.map_fn(fn, fg.constant(X),
                          fn_output_signature=fg.nest.map_structure(lambda t: t.dtype,
                                                                    fn(fg.constant(X[0])))))
    assert fallbacks == []   # every primitive of the table has a batching rule


@pytest.mark.parametrize("name", NAMES)
def test_table_against_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    got = fg.vectorized_map(_table(fg, fg.constant(W))[name], fg.constant(X))
    want = tf.vectorized_map(_table(tf, tf.constant(W))[name], tf.constant(X))
    _close(got, tf.nest.map_structure(lambda t: t.numpy(), want), 1e-4)


def test_batched_indices_and_both_operands_batched(fallbacks):
    ind = fg.constant([[0, 1], [2, 0], [1, 1], [0, 0]])
    ind_nd = fg.constant([[[0, 1]], [[2, 0]], [[1, 1]], [[0, 0]]])
    w = fg.constant(W)

    def fn(a):
        x, i, j = a
        return (fg.gather(x, i), fg.gather_nd(x, j), fg.gather(w, i, axis=1), fg.gather_nd(w, j),
                fg.matmul(x, x), fg.einsum("ij,jk->ik", x, x), fg.linalg.solve(
                    x + 3. * fg.eye(3), x), fg.concat([x, x], 1), fg.where(i > 0, i, 2 * i))
    elems = (fg.constant(X), ind, ind_nd)
    got = fg.vectorized_map(fn, elems)
    _close(got, fg.map_fn(fn, elems, fn_output_signature=(fg.float32,) * 8 + (fg.int32,)))
    assert fallbacks == []


def test_scatter_and_segment_rules(fallbacks):
    x = RNG.normal(size=(4, 5, 2))
    ind = fg.constant([[[1], [3]], [[0], [0]], [[2], [1]], [[4], [3]]])

    def fn(a):
        e, i = a
        return (fg.scatter_nd(i, e[:2], [6, 2]), fg.scatter_nd([[1], [1]], e[:2], [3, 2]),
                fg.math.segment_max(e, [0, 0, 1, 1, 2]), fg.math.segment_prod(e, [0, 1, 1, 2, 2]),
                fg.math.unsorted_segment_sum(e, [0, 2, 1, 1, 0], 3),
                fg.tensor_scatter_nd_add(e, i, e[:2] * 2))
    got = fg.vectorized_map(fn, (fg.constant(x), ind))
    assert fallbacks == []
    _close(got, fg.map_fn(fn, (fg.constant(x), ind), fn_output_signature=(fg.float64,) * 6))
    check_gradients(lambda x: fg.vectorized_map(fn, (x, ind)), [x], order=2)


def test_fallback_primitives_still_exact(fallbacks):
    """Primitives without a rule (here: conv2d_filter_grad of two batched inputs, a random
    draw) and rules that decline (an index NumPy would reorder: two non-adjacent index
    arrays) run once per slice and stack: the same values as the loop."""
    idx = np.array([0, 2])

    def fn(e):
        return e[:, :, None][idx, :, np.array([0, 0])], e[:, idx][idx]
    got = fg.vectorized_map(fn, fg.constant(X))
    _close(got, fg.map_fn(fn, fg.constant(X), fn_output_signature=(fg.float32, fg.float32)))
    assert fallbacks == ["strided_slice"]
    noise = fg.vectorized_map(lambda e: e + fg.random.normal(()), fg.zeros(5))
    assert len(set(noise.numpy().tolist())) == 5   # each slice draws its own number


def test_convolutions_and_pools_merge_the_batch(fallbacks):
    """conv2d and the pools run once on the batch merged with the examples axis; a
    per-example filter gradient (conv2d_filter_grad of two batched inputs) runs per slice."""
    kernel = fg.Variable(RNG.normal(size=(3, 3, 2, 4)))
    x = fg.constant(RNG.normal(size=(3, 6, 6, 2)))

    def per_example(e):
        with fg.GradientTape() as t:
            t.watch(e)
            h = fg.nn.max_pool2d(fg.nn.relu(fg.nn.conv2d(e[None], kernel, 1, "SAME")), 2, 2,
                                 "VALID")
            loss = fg.reduce_sum(fg.nn.avg_pool2d(h, 2, 1, "SAME") ** 2)
        return (h[0],) + tuple(t.gradient(loss, [kernel, e]))
    got = fg.vectorized_map(per_example, x)
    assert sorted(set(fallbacks)) == ["conv2d_filter_grad"]
    _close(got, fg.map_fn(per_example, x, fn_output_signature=(fg.float64,) * 3), 1e-10)
    k = fg.constant(RNG.normal(size=(2, 2, 2, 3)))
    check_gradients(lambda x: fg.vectorized_map(
        lambda e: fg.nn.avg_pool2d(fg.nn.conv2d(e, k, 1, "VALID"), 2, 1, "VALID"), x),
        [RNG.normal(size=(2, 1, 4, 4, 2))], order=2)


def test_graph_size_does_not_grow_with_the_batch():
    def fn(e):
        return fg.reduce_sum(fg.tanh(fg.matmul(e, fg.constant(W))) ** 2)
    sizes = []
    for n in (2, 40):
        f = fg.function(lambda x: fg.vectorized_map(fn, x))
        sizes.append(len(f.get_concrete_function(fg.zeros((n, 3, 3))).graph.nodes))
    assert sizes[0] == sizes[1] < 10
    loop = fg.function(lambda x: fg.map_fn(fn, x))
    assert len(loop.get_concrete_function(fg.zeros((40, 3, 3))).graph.nodes) > 40


def test_polymorphic_batch_keeps_one_graph():
    f = fg.function(lambda x: fg.vectorized_map(lambda e: fg.reduce_sum(e * e) + e[0], x),
                    input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    for n in (2, 5, 7):
        x = RNG.normal(size=(n, 3)).astype(np.float32)
        np.testing.assert_allclose(f(fg.constant(x)).numpy(),
                                   (x * x).sum(1) + x[:, 0], rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    v = fg.Variable(RNG.normal(size=(3, 4)).astype(np.float32))

    def per_example(e):
        with fg.GradientTape() as t:
            h = fg.nn.softmax(fg.matmul(e[None], v))
            loss = fg.reduce_sum(h * fg.math.cumsum(h, axis=1)) + fg.reduce_sum(e[::2] ** 2)
        return t.gradient(loss, v), fg.concat([e, e[::-1]], 0), fg.broadcast_to(e[0], (2,))
    g = fg.function(lambda x: fg.vectorized_map(per_example, x),
                    input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    for n in (2, 5):
        x = fg.constant(RNG.normal(size=(n, 3)).astype(np.float32))
        _close(g(x), fg.map_fn(per_example, x, fn_output_signature=(fg.float32,) * 3))
    assert g.experimental_get_tracing_count() == 1


def test_polymorphic_slices_with_their_shape(fallbacks):
    """Open sizes inside the slices too: ``shape`` and ``size`` of a slice are ops there."""
    f = fg.function(lambda x: fg.vectorized_map(
        lambda e: fg.reduce_sum(e) / fg.cast(fg.shape(e)[0], fg.float32) +
        fg.cast(fg.size(e), fg.float32), x),
        input_signature=[fg.TensorSpec([None, None], fg.float32)])
    for n, m in ((2, 3), (4, 5)):
        x = RNG.normal(size=(n, m)).astype(np.float32)
        np.testing.assert_allclose(f(fg.constant(x)).numpy(), x.mean(1) + m, rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1 and fallbacks == []


def test_polymorphic_batch_pinned_by_the_fallback_with_a_reason():
    f = fg.function(lambda x: fg.vectorized_map(lambda e: e + fg.random.normal((3,)), x),
                    input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    assert f(fg.zeros((2, 3))).shape == (2, 3)
    with pytest.warns(UserWarning, match="finegrad.vectorized_map: the primitive random "
                                         "\\(no batching rule\\) runs once per slice"):
        assert f(fg.zeros((5, 3))).shape == (5, 3)


@pytest.mark.parametrize("fn", [
    lambda e: fg.exp(e[0]) * e + fg.reduce_sum(e * e),
    lambda e: fg.matmul(e[None], fg.constant(W[:2].astype(np.float64)))[0] * e[1],
    lambda e: fg.nn.softmax(e) * fg.math.cumsum(e) + fg.concat([e[1:], e[:1]], 0),
    lambda e: fg.linalg.det(fg.reshape(fg.tile(e, [2]), (2, 2)) + 3. * fg.eye(2, dtype=fg.float64)),
], ids=["ew_reduce", "matmul", "softmax_cumsum_concat", "det"])
def test_gradients_second_order_both_modes(fn):
    x = RNG.normal(size=(3, 2))
    check_gradients(lambda x: fg.vectorized_map(fn, x), [x], order=2, modes=("fwd", "rev"))


def test_variable_gradient_sums_over_the_batch_and_per_example_gradients():
    v = fg.Variable([1., 2., 3.])
    x = fg.constant(X[:, 0])
    with fg.GradientTape() as tape:
        y = fg.reduce_sum(fg.vectorized_map(lambda e: fg.reduce_sum(e * v) ** 2, x))
    xs = X[:, 0]
    want = (2 * (xs @ np.array([1., 2., 3.]))[:, None] * xs).sum(0)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), want, rtol=1e-5)

    def per_example(e):   # DP-SGD: the gradient of one example's loss
        with fg.GradientTape() as t:
            loss = fg.reduce_sum(fg.tanh(e * v)) ** 2
        return t.gradient(loss, v)
    got = fg.vectorized_map(per_example, x)
    _close(got, fg.map_fn(per_example, x))
    tf = pytest.importorskip("tensorflow")
    tv = tf.Variable([1., 2., 3.])

    def tf_per_example(e):
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(tf.tanh(e * tv)) ** 2
        return t.gradient(loss, tv)
    _close(got, tf.vectorized_map(tf_per_example, tf.constant(xs)).numpy())


def test_jacobian_and_vectorized_jacobians():
    xv = RNG.normal(size=(3, 2))
    x = fg.constant(xv)
    fn = lambda e: fg.sin(e) * fg.reduce_sum(e)   # noqa: E731
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fg.vectorized_map(fn, x)
        y_loop = fg.map_fn(fn, x)
    _close(tape.jacobian(y, x), tape.jacobian(y_loop, x))

    def jac(e):
        with fg.GradientTape() as t:
            t.watch(e)
            out = fn(e)
        return t.jacobian(out, e)
    _close(fg.vectorized_map(jac, x), fg.map_fn(jac, x))
    with fg.autodiff.ForwardAccumulator(x, fg.ones_like(x)) as acc:
        y = fg.vectorized_map(fn, x)
    with fg.autodiff.ForwardAccumulator(x, fg.ones_like(x)) as acc2:
        y2 = fg.map_fn(fn, x)
    _close(acc.jvp(y), acc2.jvp(y2))


def test_custom_gradient_cond_and_nested_maps():
    @fg.custom_gradient
    def clip_grad(x):
        return x * x, lambda dy: fg.clip_by_value(dy * 2. * x, -1., 1.)

    def fn(e):
        inner = fg.vectorized_map(lambda r: r * fg.reduce_sum(e), e)
        _, grown = fg.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * e), (0, e))
        return fg.cond(fg.reduce_sum(e) > 0, lambda: clip_grad(e), lambda: -e) + inner + grown
    x = fg.constant(RNG.normal(size=(4, 3)))
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.vectorized_map(fn, x) ** 2)
        y_loop = fg.reduce_sum(fg.map_fn(fn, x) ** 2)
    _close(y, y_loop, 1e-10)
    _close(tape.gradient(y, x), tape.gradient(y_loop, x), 1e-10)


def test_cond_partitions_the_slices(fallbacks):
    """A cond whose predicate differs between slices runs each branch once over its own
    slices (the other branch never sees them: no log of a negative number here); inside a
    trace it runs slice by slice."""
    w = fg.Variable([1., -2., 0.5])

    def fn(e):
        return fg.cond(fg.reduce_sum(e) > 0, lambda: fg.math.log(fg.reduce_sum(e)) * e * w,
                       lambda: -e * 3. + 1.)
    x = fg.constant(RNG.normal(size=(6, 3)).astype(np.float32))
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        got = fg.vectorized_map(fn, x)
        want = fg.map_fn(fn, x)
        s_got, s_want = fg.reduce_sum(got ** 2), fg.reduce_sum(want ** 2)
    assert fallbacks == []
    assert not np.isnan(got.numpy()).any()
    _close(got, want)
    _close(tape.gradient(s_got, [x, w]), tape.gradient(s_want, [x, w]), 1e-4)
    check_gradients(lambda x: fg.vectorized_map(
        lambda e: fg.cond(e[0] > 0, lambda: e * e[1], lambda: fg.sin(e)), x),
        [RNG.normal(size=(5, 2))], order=2)
    traced = fg.function(lambda x: fg.vectorized_map(fn, x))
    _close(traced(x), want)
    assert fallbacks == ["cond"]


def test_while_loop_runs_each_slice_as_long_as_its_condition(fallbacks):
    w = fg.Variable(1.5)

    def fn(e):
        return fg.while_loop(lambda i, a: a < 50., lambda i, a: (i + 1, a * e[0] * w + e[1]),
                             (0, fg.reduce_sum(e)))[::-1]
    x = fg.constant(np.arange(6.).reshape(3, 2).astype(np.float32) + 1)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        got = fg.vectorized_map(fn, x)
        want = fg.map_fn(fn, x, fn_output_signature=(fg.float32, fg.int32))
    assert fallbacks == []
    np.testing.assert_array_equal(got[1].numpy(), [6, 2, 1])   # iterations differ per slice
    _close(got, want)
    _close(tape.gradient(got[0], [x, w]), tape.gradient(want[0], [x, w]))
    capped = lambda e: fg.while_loop(lambda v: fg.reduce_sum(v) < 10., lambda v: v * 1.5,  # noqa: E731
                                     [e], maximum_iterations=4)[0]
    xs = RNG.uniform(0.5, 3, size=(5, 2))
    _close(fg.vectorized_map(capped, fg.constant(xs)), fg.map_fn(capped, fg.constant(xs)))
    check_gradients(lambda x: fg.vectorized_map(capped, x), [xs], order=2)


def test_outputs_that_do_not_depend_on_elems():
    x = fg.constant(X[:, 0])
    out = fg.vectorized_map(lambda e: (3.0, np.float64(2.), fg.constant([1, 2]), e), x)
    assert out[0].dtype == fg.float32 and out[0].shape == (4,)
    assert out[1].dtype == fg.float64
    np.testing.assert_array_equal(out[2].numpy(), [[1, 2]] * 4)
    assert fg.vectorized_map(lambda e: e * 2, fg.constant([[1, 2]])).dtype == fg.int32
    empty = fg.vectorized_map(lambda e: fg.reduce_sum(fg.matmul(e, e)) * 2, fg.zeros((0, 2, 2)))
    assert empty.shape == (0,)
    nested = fg.vectorized_map(lambda e: {"a": e[0] + e[1], "b": (e[0],)}, (x, x))
    _close(nested, {"a": X[:, 0] * 2, "b": (X[:, 0],)})
    assert fg.vectorized_map(lambda e: (e, None), x)[1] is None   # as TensorFlow


def test_captured_tensors_are_not_tiled_and_get_summed_gradients():
    x = fg.constant(X[:, 0])
    c = fg.constant([2., 3., -1.])
    with fg.GradientTape() as tape:
        tape.watch(c)
        y = fg.reduce_sum(fg.vectorized_map(lambda e: e * c * c, x))
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), (2 * c.numpy() * X[:, 0]).sum(0),
                               rtol=1e-5)
    with fg.autodiff.ForwardAccumulator(c, fg.ones_like(c)) as acc:
        y = fg.vectorized_map(lambda e: e * c, x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), X[:, 0])


def test_untraceable_fn_falls_back_to_the_loop_with_a_warning():
    x = fg.constant([[1., 2.], [3., 4.]])

    def reads_value(e):
        return e * float(e.numpy()[0])

    def python_if(e):
        return e if fg.reduce_sum(e) > 4 else -e
    for fn, want in ((reads_value, [[1., 2.], [9., 12.]]), (python_if, [[-1., -2.], [3., 4.]])):
        with pytest.warns(UserWarning, match="finegrad.vectorized_map: fn asks for"):
            np.testing.assert_array_equal(fg.vectorized_map(fn, x).numpy(), want)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(fg.vectorized_map(fn, x, warn=False).numpy(), want)
        with pytest.raises(TypeError, match="finegrad.vectorized_map: fn asks for .*"
                                            "fallback_to_while_loop=False"):
            fg.vectorized_map(fn, x, fallback_to_while_loop=False)
    masked = lambda e: fg.reduce_sum(fg.boolean_mask(e, e > 2.))   # noqa: E731
    with pytest.warns(UserWarning, match="depends on each slice's values"):
        np.testing.assert_array_equal(fg.vectorized_map(masked, x).numpy(), [0., 7.])
    v = fg.Variable(0.)
    with pytest.warns(UserWarning, match="assigns variable"):
        fg.vectorized_map(lambda e: v.assign_add(fg.reduce_sum(e)) * 0. + e, x)
    assert v.numpy() == 10.   # each slice assigned in turn, as a loop does
    with pytest.raises(ValueError, match="finegrad.vectorized_map: fn assigns variable"):
        fg.vectorized_map(lambda e: v.assign_add(fg.reduce_sum(e)) * 0. + e, x,
                          fallback_to_while_loop=False)


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="finegrad.vectorized_map: the tensors of elems must "
                                         "have the same size along axis 0, got \\[2, 3\\]"):
        fg.vectorized_map(lambda e: e[0], (fg.zeros([2]), fg.zeros([3])))
    with pytest.raises(ValueError, match="finegrad.vectorized_map: elems must hold"):
        fg.vectorized_map(lambda e: e, [])
    with pytest.raises(ValueError, match="finegrad.matmul: inner dimensions differ"):
        fg.vectorized_map(lambda e: fg.matmul(e, e), fg.zeros((2, 2, 3)))

"""gather_nd, scatter_nd, the tensor_scatter_nd_* family and boolean_mask: values against
NumPy closed forms and the installed TensorFlow (values and gradients), errors, and a traced
boolean_mask whose mask selects a different number of entries from call to call."""
import numpy as np
import pytest

import finegrad as fg

RNG = np.random.default_rng(0)


def _grads(f, *xs):
    xs = [fg.constant(x) for x in xs]
    with fg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return y.numpy(), [g.numpy() for g in tape.gradient(y, xs, output_gradients=fg.constant(
        np.arange(1., 1. + y.numpy().size).reshape(y.shape)))]


def _tf_grads(tf, f, *xs):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return y.numpy(), [g.numpy() for g in tape.gradient(y, xs, output_gradients=tf.constant(
        np.arange(1., 1. + y.numpy().size).reshape(y.shape)))]


def test_gather_nd_values_closed_form():
    p = RNG.normal(size=(2, 3, 4))
    ind = np.array([[1, 2], [0, 0], [1, 2]])
    np.testing.assert_array_equal(fg.gather_nd(p, ind).numpy(), p[ind[:, 0], ind[:, 1]])
    # batch_dims=1: each batch entry indexes its own slice
    ind_b = np.array([[[2], [0]], [[1], [1]]])
    want = np.stack([p[b][ind_b[b, :, 0]] for b in range(2)])
    np.testing.assert_array_equal(fg.gather_nd(p, ind_b, batch_dims=1).numpy(), want)
    # no coordinates: the whole tensor per index row
    assert fg.gather_nd(p, np.zeros((3, 0), np.int32)).shape == (3, 2, 3, 4)


def test_scatter_nd_sums_duplicates():
    got = fg.scatter_nd([[1, 0], [1, 0], [0, 2]], fg.constant([1., 2., 4.]), [2, 3]).numpy()
    np.testing.assert_array_equal(got, [[0., 0., 4.], [3., 0., 0.]])


CASES = [
    ("gather_nd", lambda m, p: m.gather_nd(p, [[1, 2], [0, 0], [1, 2]]), [(2, 3, 4)]),
    ("gather_nd_batch", lambda m, p: m.gather_nd(p, [[[2], [0]], [[1], [1]]], batch_dims=1),
     [(2, 3, 4)]),
    ("scatter_nd", lambda m, u: m.scatter_nd([[1], [3], [1]], u, [5, 2]), [(3, 2)]),
    ("add", lambda m, t, u: m.tensor_scatter_nd_add(t, [[1], [3], [1]], u), [(5, 2), (3, 2)]),
    ("sub", lambda m, t, u: m.tensor_scatter_nd_sub(t, [[1, 0], [3, 1]], u), [(5, 2), (2,)]),
    ("update", lambda m, t, u: m.tensor_scatter_nd_update(t, [[1], [3], [0]], u),
     [(5, 2), (3, 2)]),
    ("max", lambda m, t, u: m.tensor_scatter_nd_max(t, [[1], [3], [1]], u), [(5,), (3,)]),
    ("min", lambda m, t, u: m.tensor_scatter_nd_min(t, [[1], [3], [1]], u), [(5,), (3,)]),
    ("boolean_mask", lambda m, x: m.boolean_mask(x, [[True, False, True], [False, True, True]]),
     [(2, 3, 2)]),
    ("boolean_mask_axis", lambda m, x: m.boolean_mask(x, [True, False, True], axis=1),
     [(2, 3, 2)]),
]


@pytest.mark.parametrize("name, f, shapes", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_tensorflow(name, f, shapes):
    tf = pytest.importorskip("tensorflow")
    xs = [RNG.normal(size=s) for s in shapes]
    y, gs = _grads(lambda *a: f(fg, *a), *xs)
    y_tf, gs_tf = _tf_grads(tf, lambda *a: f(tf, *a), *xs)
    np.testing.assert_allclose(y, y_tf, rtol=1e-12)
    for g, g_tf in zip(gs, gs_tf, strict=True):
        np.testing.assert_allclose(g, g_tf, rtol=1e-12)


def test_extremum_ties_share_the_gradient_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    t, u = np.array([1., 5., 3., 2.]), np.array([5., 4., 3., .5])
    ind = [[1], [2], [2], [0]]
    for op in ("tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_update"):
        y, gs = _grads(lambda a, b, op=op: getattr(fg, op)(a, ind, b), t, u)
        y_tf, gs_tf = _tf_grads(tf, lambda a, b, op=op: getattr(tf, op)(a, ind, b), t, u)
        np.testing.assert_allclose(y, y_tf)
        for g, g_tf in zip(gs, gs_tf, strict=True):
            np.testing.assert_allclose(g, g_tf)


def test_traced_matches_eager():
    @fg.function
    def f(t, u):
        a = fg.tensor_scatter_nd_update(t, [[0], [2]], u)
        return fg.reduce_sum(fg.gather_nd(a, [[2], [1]]) ** 2) + fg.reduce_sum(
            fg.tensor_scatter_nd_max(t, [[1], [0]], u))
    t, u = fg.constant([1., 2., 3.]), fg.constant([4., 5.])
    for _ in range(2):
        with fg.GradientTape() as tape:
            tape.watch([t, u])
            y = f(t, u)
        gt, gu = tape.gradient(y, [t, u])
        # a = [4, 2, 5]: 5**2 + 2**2; the max gives [5, 4, 3]
        assert y.numpy() == pytest.approx(25 + 4 + 5 + 4 + 3)
        np.testing.assert_allclose(gt.numpy(), [0., 4., 1.])
        np.testing.assert_allclose(gu.numpy(), [1., 11.])


def test_traced_boolean_mask_with_masks_of_different_counts():
    @fg.function
    def f(x, m):
        y = fg.boolean_mask(x, m)
        return fg.reduce_mean(y) * fg.cast(fg.size(y), fg.float32), y
    x = fg.constant([1., 2., 3., 4.])
    for mask in ([True, True, False, False], [True, True, True, False], [False] * 4,
                 [False, True, False, True]):
        m = np.array(mask)
        with fg.GradientTape() as tape:
            tape.watch(x)
            s, y = f(x, fg.constant(m))
        np.testing.assert_array_equal(y.numpy(), x.numpy()[m])
        if m.any():
            assert s.numpy() == pytest.approx(x.numpy()[m].sum())
            np.testing.assert_allclose(tape.gradient(s, x).numpy(), m.astype(np.float32))
        s2, y2 = f(x, fg.constant(m))   # without a tape: the compiled graph, or eagerly
        np.testing.assert_array_equal(y2.numpy(), x.numpy()[m])


def test_concrete_function_refuses_another_count():
    f = fg.function(lambda x, m: fg.boolean_mask(x, m))
    conc = f.get_concrete_function(fg.constant([1., 2.]), fg.constant([True, False]))
    np.testing.assert_array_equal(conc(fg.constant([3., 4.]), fg.constant([False, True])), [4.])
    with pytest.raises(RuntimeError, match="boolean_mask: the graph was traced with a mask of "
                                           "1 true entries, this call's has 2"):
        conc(fg.constant([1., 2.]), fg.constant([True, True]))


def test_traced_boolean_mask_with_variable_assignment_refuses_another_count():
    v = fg.Variable(0.)

    @fg.function
    def f(x, m):
        v.assign_add(1.)
        return fg.boolean_mask(x, m)
    f(fg.constant([1., 2.]), fg.constant([True, False]))
    with pytest.raises(ValueError, match="assigns variables"):
        f(fg.constant([1., 2.]), fg.constant([True, True]))


def test_errors_name_function_and_argument():
    p = fg.constant([[1., 2.], [3., 4.]])
    with pytest.raises(fg.errors.InvalidArgumentError, match=r"gather_nd: indices\[1\] = "
                                                             r"\[0, 5\] does not index"):
        fg.gather_nd(p, [[0, 0], [0, 5]])
    with pytest.raises(ValueError, match="gather_nd.*-1"):
        fg.gather_nd(p, [[0, -1]])
    with pytest.raises(TypeError, match="gather_nd: indices must be integers"):
        fg.gather_nd(p, [[0.5]])
    with pytest.raises(ValueError, match="scatter_nd: updates must have shape"):
        fg.scatter_nd([[0]], fg.constant([1., 2.]), [3])
    with pytest.raises(ValueError, match="scatter_nd: indices.*does not index into the output"):
        fg.scatter_nd([[3]], fg.constant([1.]), [3])
    with pytest.raises(TypeError, match="tensor_scatter_nd_add: updates must have the dtype"):
        fg.tensor_scatter_nd_add(p, [[0]], fg.constant([[1, 2]]))
    with pytest.raises(TypeError, match="boolean_mask: mask must be bool"):
        fg.boolean_mask(p, [1, 0])
    with pytest.raises(ValueError, match="boolean_mask: mask of shape"):
        fg.boolean_mask(p, [True, False, True])


def test_out_of_range_inside_a_compiled_graph():
    @fg.function
    def f(ind):
        return fg.gather_nd(fg.constant([1., 2.]), ind)
    f(fg.constant([[1]]))
    with pytest.raises(fg.errors.InvalidArgumentError, match="gather_nd"):
        f(fg.constant([[2]]))


JACOBIAN_CASES = [
    lambda x: fg.gather_nd(x, [[1, 2], [0, 0], [1, 2]]) ** 2,
    lambda x: fg.gather_nd(x, [[2], [0]], batch_dims=1) ** 2,
    lambda x: fg.scatter_nd([[1], [0]], x, [3, 3]) ** 2,
    lambda x: fg.tensor_scatter_nd_update(fg.zeros([4, 3], fg.float64), [[3], [1]], x) ** 2,
    lambda x: fg.boolean_mask(x, [[True, False, True], [False, True, True]]) ** 2,
    lambda x: fg.tensor_scatter_nd_max(x, [[0, 1], [1, 1]],
                                       fg.constant([3., 3.], fg.float64)) ** 2,
]


@pytest.mark.parametrize("k", range(len(JACOBIAN_CASES)))
def test_vectorized_jacobian_matches_finite_differences(k):
    """The primitives' batch rules: one vectorized reverse pass gives the whole Jacobian."""
    f = JACOBIAN_CASES[k]
    xv = np.arange(6.).reshape(2, 3)
    x = fg.constant(xv)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    eps, num = 1e-6, np.zeros(tuple(y.shape) + xv.shape)
    for idx in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[idx] = eps
        num[(Ellipsis,) + idx] = (f(fg.constant(xv + d)).numpy() -
                                  f(fg.constant(xv - d)).numpy()) / (2 * eps)
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), num, atol=1e-6)
    np.testing.assert_allclose(tape.jacobian(y, x, experimental_use_pfor=False).numpy(), num,
                               atol=1e-6)

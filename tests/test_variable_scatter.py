"""Variable.scatter_nd_*, Variable.scatter_* (with finegrad.IndexedSlices) and
Variable.sparse_read: values against TensorFlow (when installed) and NumPy, eagerly and inside
finegrad.function (where each call updates the variable), gradients through sparse_read, and
the errors."""
import numpy as np
import pytest

import finegrad as fg

V0 = [[1., 2.], [3., 4.], [5., 6.]]


def _updates(m, v):
    """Every scatter method in turn; the variable's value after each."""
    seen = []
    v.scatter_nd_update([[0, 1], [2, 0]], [10., 20.])
    seen.append(v.numpy())
    v.scatter_nd_add([[1], [1]], [[1., 1.], [2., 3.]])
    seen.append(v.numpy())
    v.scatter_nd_sub([[1, 1]], [3.])
    seen.append(v.numpy())
    for method, values, indices in (("scatter_add", [[1., 1.], [2., 2.]], [1, 1]),
                                    ("scatter_sub", [1., 1.], 2),
                                    ("scatter_max", [[100., -1.]], [0]),
                                    ("scatter_min", [[-100., -1.]], [1]),
                                    ("scatter_update", [[7., 7.]], [2])):
        getattr(v, method)(m.IndexedSlices(m.constant(values), m.constant(indices)))
        seen.append(v.numpy())
    seen.append(v.sparse_read([2, 0, 2]).numpy())
    return seen


def test_against_tensorflow_eager():
    tf = pytest.importorskip("tensorflow")
    got = _updates(fg, fg.Variable(V0))
    want = _updates(tf, tf.Variable(V0))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_closed_forms_float64():
    v = fg.Variable(np.zeros(4))
    assert v.scatter_nd_add([[1], [1], [3]], [1., 2., 5.]) is v
    np.testing.assert_array_equal(v.numpy(), [0., 3., 0., 5.])
    assert v.dtype == fg.float64
    v.scatter_max(fg.IndexedSlices(np.array([-1., 4.]), fg.constant([1, 3])))
    np.testing.assert_array_equal(v.numpy(), [0., 3., 0., 5.])


def _step(m, v):
    def f(i, u):
        rows = u[:, None] * m.ones((1, 2), u.dtype)
        v.scatter_nd_add(i, rows)
        v.scatter_update(m.IndexedSlices(rows * 2., i[:, 0]))
        v.scatter_min(m.IndexedSlices(rows - 1., i[:, 0]))
        return v.sparse_read(i[:, 0]) * 2.
    return m.function(f)


def test_traced_updates_run_at_each_call():
    tf = pytest.importorskip("tensorflow")
    results = []
    for m in (fg, tf):
        v = m.Variable(V0)
        f = _step(m, v)
        out = []
        for i, u in (([[0], [2]], [1., 2.]), ([[1], [1]], [3., 4.]), ([[2], [0]], [-1., 5.])):
            out.append(f(m.constant(i), m.constant(u)).numpy())
            out.append(v.numpy())
        results.append(out)
    for g, w in zip(*results, strict=True):
        np.testing.assert_array_equal(g, w)


def test_traced_without_tensorflow():
    v = fg.Variable([1., 2., 3.])
    f = fg.function(lambda i, u: v.scatter_nd_update(i, u).read_value())
    np.testing.assert_array_equal(f(fg.constant([[1]]), fg.constant([9.])).numpy(), [1, 9, 3])
    np.testing.assert_array_equal(f(fg.constant([[0]]), fg.constant([8.])).numpy(), [8, 9, 3])
    np.testing.assert_array_equal(v.numpy(), [8., 9., 3.])


@pytest.mark.parametrize("traced", [False, True])
def test_sparse_read_gradient(traced):
    w0 = np.array([1., -2., 3.])
    w = fg.Variable(w0)

    def loss():
        return fg.reduce_sum(fg.sin(w.sparse_read([2, 2, 0])) ** 2)
    run = fg.function(loss) if traced else loss
    with fg.GradientTape() as tape:
        y = run()
    g = fg.convert_to_tensor(tape.gradient(y, w)).numpy()
    # d/dw sum_k sin(w_{i_k})^2 = sum over reads of sin(2 w)
    np.testing.assert_allclose(g, [np.sin(2.), 0., 2 * np.sin(6.)], rtol=1e-12)
    eps = 1e-6
    for j in range(3):
        d = np.zeros(3)
        d[j] = eps
        f = [np.sum(np.sin((w0 + s * d)[[2, 2, 0]]) ** 2) for s in (1, -1)]
        np.testing.assert_allclose(g[j], (f[0] - f[1]) / (2 * eps), rtol=1e-6, atol=1e-9)


def test_indexed_slices():
    s = fg.IndexedSlices(fg.constant([[1., 2.]]), fg.constant([3]), dense_shape=[5, 2])
    assert s.dtype == fg.float32 and s.shape == fg.TensorShape([5, 2])
    assert fg.IndexedSlices(fg.constant([[1., 2.]]), [0]).shape.as_list() == [None, 2]


def test_errors():
    v = fg.Variable(V0)
    with pytest.raises(TypeError, match="finegrad.Variable.scatter_add.*IndexedSlices"):
        v.scatter_add(fg.constant([1.]))
    with pytest.raises(fg.errors.InvalidArgumentError,
                       match="finegrad.Variable.scatter_nd_add.*does not index"):
        v.scatter_nd_add([[5, 0]], [1.])
    with pytest.raises(TypeError, match="finegrad.IndexedSlices.*integers"):
        fg.IndexedSlices(fg.constant([1.]), fg.constant([0.5]))
    with pytest.raises(ValueError, match="finegrad.Variable.scatter_update.*updates must"):
        v.scatter_update(fg.IndexedSlices(fg.constant([[1., 2., 3.]]), fg.constant([0])))
    np.testing.assert_array_equal(v.numpy(), V0)   # failed updates leave the variable alone

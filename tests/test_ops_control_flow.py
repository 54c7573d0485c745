"""Keras's core control flow through finegrad.ops on each backend, against plain Python, and
(where Keras runs it on that framework) under the framework's compiler."""
import numpy as np
import pytest

from finegrad import ops

BACKENDS = ["finegrad", "jax", "torch", "tensorflow"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param != "finegrad":
        pytest.importorskip(request.param)
    with ops.backend_scope(request.param):
        yield request.param


def _np(x):
    return np.asarray(ops.convert_to_numpy(x))


def test_cond_takes_the_branch_the_predicate_says(backend):
    x = ops.convert_to_tensor(3.0)
    assert float(_np(ops.cond(ops.greater(x, 0.0), lambda: x * 2.0, lambda: x - 1.0))) == 6.0
    assert float(_np(ops.cond(ops.less(x, 0.0), lambda: x * 2.0, lambda: x - 1.0))) == 2.0


def test_while_loop_and_fori_loop(backend):
    i, total = ops.while_loop(lambda i, t: ops.less(i, 5), lambda i, t: (i + 1, t + i),
                              (ops.convert_to_tensor(0), ops.convert_to_tensor(0)))
    assert int(_np(i)) == 5 and int(_np(total)) == 10
    capped = ops.while_loop(lambda v: ops.less(v, 100.0), lambda v: v * 2.0,
                            ops.convert_to_tensor(1.0), maximum_iterations=3)
    assert float(_np(capped)) == 8.0
    out = ops.fori_loop(0, 4, lambda i, v: v + ops.cast(i, "float32"), ops.zeros(()))
    assert float(_np(out)) == 6.0


def test_scan_carries_and_stacks(backend):
    xs = ops.convert_to_tensor(np.arange(1.0, 5.0, dtype=np.float32))
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), ops.zeros(()), xs)
    assert float(_np(carry)) == 10.0
    np.testing.assert_allclose(_np(ys), [0.0, 2.0, 9.0, 24.0])
    carry, ys = ops.scan(lambda c, x: (c + x, c), ops.zeros(()), xs, reverse=True)
    np.testing.assert_allclose(_np(ys), [9.0, 7.0, 4.0, 0.0])


def test_map_vectorized_map_and_associative_scan(backend):
    xs = ops.convert_to_tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    np.testing.assert_allclose(_np(ops.map(lambda r: ops.sum(r), xs)), [1.0, 5.0, 9.0])
    np.testing.assert_allclose(_np(ops.vectorized_map(lambda r: r * 2.0, xs)),
                               np.arange(6.0).reshape(3, 2) * 2)
    v = ops.convert_to_tensor(np.arange(1.0, 6.0, dtype=np.float32))
    np.testing.assert_allclose(_np(ops.associative_scan(lambda a, b: a + b, v)),
                               np.cumsum(np.arange(1.0, 6.0)))
    np.testing.assert_allclose(_np(ops.associative_scan(lambda a, b: a + b, v, reverse=True)),
                               np.cumsum(np.arange(1.0, 6.0)[::-1])[::-1])


def test_switch_picks_a_branch(backend):
    branches = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: x - 5.0]
    x = ops.convert_to_tensor(2.0)
    assert [float(_np(ops.switch(i, branches, x))) for i in range(3)] == [3.0, 20.0, -3.0]
    assert float(_np(ops.switch(7, branches, x))) == -3.0    # clamped, as Keras


def test_gradients_flow_through_cond_and_scan(backend):
    def f(x):
        y = ops.cond(ops.greater(ops.sum(x), 0.0), lambda: ops.square(x), lambda: x)
        _, ys = ops.scan(lambda c, v: (c + v, c + v), ops.zeros(()), y)
        return ops.sum(ys)
    g = ops.grad(f)(ops.convert_to_tensor([1.0, 2.0, 3.0]))
    # ys = cumsum(x^2), sum(ys) = 3x0^2 + 2x1^2 + x2^2
    np.testing.assert_allclose(_np(g), [6.0, 8.0, 6.0], rtol=1e-6)


def test_scatter_slice_update_and_segments(backend):
    x = ops.zeros((2, 3))
    out = ops.scatter_update(x, np.array([[0, 1], [1, 2]]), np.array([5.0, 6.0], np.float32))
    np.testing.assert_array_equal(_np(out), [[0, 5, 0], [0, 0, 6]])
    out = ops.slice_update(x, (1, 0), np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(_np(out), [[0, 0, 0], [1, 1, 0]])
    data, ids = np.array([1.0, 4.0, 2.0, 3.0], np.float32), np.array([0, 0, 1, 1], np.int32)
    np.testing.assert_array_equal(_np(ops.segment_min(data, ids, 2)), [1.0, 2.0])
    np.testing.assert_array_equal(_np(ops.segment_prod(data, ids, 2)), [4.0, 6.0])

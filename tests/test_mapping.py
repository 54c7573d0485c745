"""map_fn and vectorized_map: nested elems and outputs, values and gradients against NumPy
closed forms and TensorFlow (when installed), second order, inside finegrad.function, and
the errors."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients


def _f(m, r):
    return m.reduce_sum(r * r) * r


def test_values_and_gradients_closed_form():
    x = np.array([[1., 2.], [3., 4.]])
    for mapper in (fg.map_fn, fg.vectorized_map):
        xt = fg.constant(x)
        with fg.GradientTape() as tape:
            tape.watch(xt)
            y = mapper(lambda r: _f(fg, r), xt)
            s = fg.reduce_sum(y)
        np.testing.assert_allclose(y.numpy(), (x * x).sum(1, keepdims=True) * x)
        # d/dr_ij sum_k |r|^2 r_k = 2 r_ij sum(r) + |r|^2
        want = 2 * x * x.sum(1, keepdims=True) + (x * x).sum(1, keepdims=True)
        np.testing.assert_allclose(tape.gradient(s, xt).numpy(), want)


def test_second_order_both_modes():
    x = np.random.default_rng(0).normal(size=(3, 2))
    check_gradients(lambda x: fg.map_fn(lambda r: fg.sin(r) * fg.reduce_sum(r), x), [x],
                    order=2, modes=("fwd", "rev"))
    check_gradients(lambda x: fg.vectorized_map(lambda r: fg.exp(r[0]) * r, x), [x],
                    order=2, modes=("fwd", "rev"))


def test_nested_elems_and_outputs_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    a = np.arange(6.).reshape(3, 2)
    b = np.array([1., -1., 2.])

    def fn(m, e):
        return {"s": m.reduce_sum(e[0]) * e[1], "p": (e[0] * e[1], m.reduce_max(e[0]))}

    def run(m, mapper, **kw):
        xs = (m.constant(a), m.constant(b))
        with m.GradientTape() as tape:
            tape.watch(xs)
            out = mapper(lambda e: fn(m, e), xs, **kw)
            total = m.reduce_sum(out["s"]) + m.reduce_sum(out["p"][0] ** 2) + \
                m.reduce_sum(out["p"][1])
        return out, tape.gradient(total, xs)

    sig = {"s": tf.float64, "p": (tf.float64, tf.float64)}
    for ours, theirs in ((run(fg, fg.map_fn), run(tf, tf.map_fn, fn_output_signature=sig)),
                         (run(fg, fg.vectorized_map), run(tf, tf.vectorized_map))):
        for o, t in zip(fg.nest.flatten(ours), tf.nest.flatten(theirs), strict=True):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


def test_inside_function_matches_eager():
    @fg.function
    def f(x):
        return fg.map_fn(lambda r: (fg.reduce_max(r), r[::-1]), x)
    x = fg.constant([[1., 5.], [4., 3.]])
    with fg.GradientTape() as tape:
        tape.watch(x)
        m, rev = f(x)
        s = fg.reduce_sum(m) + fg.reduce_sum(rev * rev)
    np.testing.assert_array_equal(m.numpy(), [5., 4.])
    np.testing.assert_array_equal(rev.numpy(), [[5., 1.], [3., 4.]])
    np.testing.assert_array_equal(tape.gradient(s, x).numpy(), [[2., 11.], [9., 6.]])
    assert f.experimental_get_tracing_count() == 1


def test_back_prop_false_and_empty_and_signature():
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.map_fn(lambda r: r * r, x, back_prop=False)
    assert tape.gradient(y, x) is None
    assert fg.map_fn(lambda r: r * 2, fg.zeros([0, 3])).shape == (0, 3)
    empty = fg.map_fn(lambda r: fg.reduce_sum(r), fg.zeros([0, 3]),
                      fn_output_signature=fg.TensorSpec([], fg.float32))
    assert empty.shape == (0,)
    out = fg.map_fn(lambda r: fg.cast(r, fg.int32), x, dtype=fg.int32)
    np.testing.assert_array_equal(out.numpy(), [1, 2])


def test_errors_name_the_function():
    with pytest.raises(TypeError, match="finegrad.map_fn: output 0 of fn has dtype float32"):
        fg.map_fn(lambda r: r, fg.constant([1., 2.]), fn_output_signature=fg.int32)
    with pytest.raises(ValueError, match="finegrad.map_fn: the tensors of elems must have the "
                                         "same size"):
        fg.map_fn(lambda e: e[0], (fg.zeros([2]), fg.zeros([3])))
    with pytest.raises(ValueError, match="finegrad.vectorized_map: elems must have rank >= 1"):
        fg.vectorized_map(lambda e: e, fg.constant(1.))


def test_vectorized_jacobian_through_map_fn():
    """unstack_rows' batch rule: one vectorized reverse pass gives the whole Jacobian."""
    xv = np.array([[1., 2.], [3., -1.]])
    x = fg.constant(xv)
    with fg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fg.map_fn(lambda r: r * fg.reduce_sum(r), x)
    # d y_ij / d x_kl = [i == k] ([j == l] s_i + x_ij)
    s = xv.sum(1)
    want = np.zeros((2, 2, 2, 2))
    for i in range(2):
        want[i, :, i, :] = np.eye(2) * s[i] + xv[i][:, None]
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), want)
    np.testing.assert_allclose(tape.jacobian(y, x, experimental_use_pfor=False).numpy(), want)

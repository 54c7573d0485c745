"""The composites of ops/nn/clipping.py, ops/nn/embedding_and_bias.py, ops/math/no_nan.py,
math.lbeta, math.cumulative_logsumexp and finegrad.hessians: values and gradients against
closed forms and, when installed,
TensorFlow."""
import math

import numpy as np
import pytest

import finegrad as fg


def _value_and_grads(lib, fn, *args):
    ts = [lib.constant(a) for a in args]
    with lib.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        out = fn(lib, *ts)
        loss = lib.reduce_sum(out * lib.constant(np.linspace(0.5, 1.5, int(np.size(out)))
                                                 .reshape(np.shape(out)).astype(np.float32)))
    grads = tape.gradient(loss, ts, unconnected_gradients="zero")
    return [out.numpy()] + [lib.convert_to_tensor(g).numpy() for g in grads]


CASES = {
    "softsign": (lambda lib, x: lib.nn.softsign(x), [[-2.0, 0.0, 0.5, 3.0]]),
    "bias_add": (lambda lib, x, b: lib.nn.bias_add(x, b), [np.ones((2, 3)), [1.0, 2.0, 3.0]]),
    "bias_add(NCHW)": (lambda lib, x, b: lib.nn.bias_add(x, b, data_format="NCHW"),
                       [np.arange(12.0).reshape(1, 2, 2, 3), [1.0, -1.0]]),
    "embedding_lookup": (lambda lib, p: lib.nn.embedding_lookup(p, [2, 0, 2]),
                         [np.arange(12.0).reshape(4, 3)]),
    "embedding_lookup(max_norm)": (lambda lib, p: lib.nn.embedding_lookup(p, [2, 0, 2],
                                                                          max_norm=2.0),
                                   [np.arange(12.0).reshape(4, 3) / 3]),
    "reciprocal_no_nan": (lambda lib, x: lib.math.reciprocal_no_nan(x), [[0.0, 2.0, -0.5]]),
    "multiply_no_nan": (lambda lib, x, y: lib.math.multiply_no_nan(x, y),
                        [[1.5, 2.0, -3.0], [0.0, 3.0, 0.5]]),
    "xdivy": (lambda lib, x, y: lib.math.xdivy(x, y), [[0.0, 3.0, 0.0], [0.0, 2.0, 4.0]]),
    "lbeta": (lambda lib, x: lib.math.lbeta(x), [[[1.0, 2.0, 0.5], [3.0, 0.7, 1.2]]]),
    "cumulative_logsumexp": (lambda lib, x: lib.math.cumulative_logsumexp(x),
                             [[-1000.0, 0.0, 3.0, 1000.0, -2.0]]),
    "cumulative_logsumexp(axis=1, exclusive, reverse)": (
        lambda lib, x: lib.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True),
        [[[0.5, -80.0, 2.0], [1.0, 90.0, -3.0]]]),
    "global_norm": (lambda lib, a, b: lib.linalg.global_norm([a, None, b]),
                    [[3.0, 0.5], [[4.0, 1.0]]]),
    "clip_by_global_norm": (lambda lib, a, b: lib.concat(
        [lib.reshape(t, [-1]) for t in lib.clip_by_global_norm([a, b], 2.0)[0]], 0),
        [[3.0, 0.5], [[4.0, 1.0]]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    fn, args = CASES[name]
    args = [np.asarray(a, np.float32) for a in args]
    got, want = _value_and_grads(fg, fn, *args), _value_and_grads(tf, fn, *args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_closed_forms():
    x = fg.constant([-2.0, 0.5], fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.nn.softsign(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 1 / (1 + np.abs([-2.0, 0.5])) ** 2)
    np.testing.assert_allclose(fg.math.lbeta(fg.constant([2.0, 3.0], fg.float64)).numpy(),
                               math.log(math.gamma(2) * math.gamma(3) / math.gamma(5)))
    clipped, norm = fg.clip_by_global_norm([fg.constant([3.0]), None, fg.constant([4.0])], 1.0)
    assert clipped[1] is None and float(norm) == 5.0
    np.testing.assert_allclose([float(clipped[0][0]), float(clipped[2][0])], [0.6, 0.8])
    inf_clip, _ = fg.clip_by_global_norm([fg.constant([np.inf, 1.0])], 1.0)
    assert np.isnan(inf_clip[0].numpy()).all()   # TensorFlow's: a non-finite norm gives nan
    masked = fg.math.multiply_no_nan(fg.constant([np.inf, np.nan]), fg.constant([0.0, 0.0]))
    np.testing.assert_array_equal(masked.numpy(), [0.0, 0.0])


def test_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.nn\.bias_add: bias must be 1-D"):
        fg.nn.bias_add(fg.ones([2, 3]), fg.ones([2]))
    with pytest.raises(TypeError, match=r"finegrad\.clip_by_global_norm: t_list"):
        fg.clip_by_global_norm(fg.ones([2]), 1.0)
    with pytest.raises(NotImplementedError, match=r"finegrad\.nn\.embedding_lookup"):
        fg.nn.embedding_lookup([fg.ones([2, 2]), fg.ones([2, 2])], [0])
    with pytest.raises(ValueError, match=r"finegrad\.math\.lbeta"):
        fg.math.lbeta(fg.constant(1.0))


def test_hessians_inside_function():
    @fg.function
    def hess(x, w):
        y = fg.reduce_sum(fg.sin(x) * x ** 2) + fg.reduce_sum(w * x)
        return fg.hessians(y, [x, w])

    x0 = np.array([0.3, -1.2, 2.0])
    hx, hw = hess(fg.constant(x0, fg.float64), fg.constant([1.0, 2.0, 3.0], fg.float64))
    want = np.diag(2 * np.sin(x0) + 4 * x0 * np.cos(x0) - x0 ** 2 * np.sin(x0))
    np.testing.assert_allclose(hx.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(hw.numpy(), np.zeros((3, 3)))
    with pytest.raises(RuntimeError, match=r"finegrad\.hessians works inside"):
        fg.hessians(fg.constant(1.0), fg.constant(1.0))

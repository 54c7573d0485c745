"""tf.linalg's matrix functions against NumPy."""
import numpy as np
import pytest

import finegrad as fg


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("lo,up", [(0, 0), (1, 0), (-1, 0), (0, -1), (-1, -1), (1, 2)])
def test_band_part(shape, lo, up):
    x = RNG.standard_normal(shape)
    m, n = shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    mask = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    np.testing.assert_array_equal(fg.linalg.band_part(x, lo, up).numpy(), np.where(mask, x, 0))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3)])
def test_diag_part_and_trace(shape):
    x = RNG.standard_normal(shape)
    np.testing.assert_allclose(fg.linalg.diag_part(x).numpy(),
                               np.diagonal(x, axis1=-2, axis2=-1))
    np.testing.assert_allclose(fg.linalg.trace(x).numpy(), np.trace(x, axis1=-2, axis2=-1))


def test_diag():
    v = RNG.standard_normal((2, 3))
    out = fg.linalg.diag(v).numpy()
    assert out.shape == (2, 3, 3)
    for b in range(2):
        np.testing.assert_array_equal(out[b], np.diag(v[b]))


def test_trace_gradient_is_identity():
    x = fg.Variable(RNG.standard_normal((3, 3)))
    with fg.GradientTape() as tape:
        y = fg.linalg.trace(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.eye(3))


@pytest.mark.parametrize("call,exc", [
    (lambda: fg.linalg.band_part(fg.ones((3,)), 0, 0), ValueError),
    (lambda: fg.linalg.band_part(fg.ones((3, 3)), 0.5, 0), TypeError),
    (lambda: fg.linalg.diag_part(fg.ones((3,))), ValueError),
    (lambda: fg.linalg.diag_part(fg.ones((3, 3)), k=1), ValueError),
    (lambda: fg.linalg.trace(fg.ones((3,))), ValueError),
    (lambda: fg.linalg.diag(fg.constant(1.)), ValueError),
])
def test_bad_input(call, exc):
    with pytest.raises(exc, match="finegrad.linalg"):
        call()


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_inv_det(shape):
    a = RNG.standard_normal(shape) + 3 * np.eye(shape[-1])
    np.testing.assert_allclose(fg.linalg.inv(a).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(fg.linalg.inv(a, adjoint=True).numpy(),
                               np.linalg.inv(np.swapaxes(a, -1, -2)), rtol=1e-10)
    np.testing.assert_allclose(fg.linalg.det(a).numpy(), np.linalg.det(a), rtol=1e-10)
    x = fg.Variable(a)
    with fg.GradientTape() as tape:
        y = fg.reduce_sum(fg.linalg.det(x))
    # d det / dA = det(A) inv(A)^T
    want = np.linalg.det(a)[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-10)


@pytest.mark.parametrize("fn", [fg.linalg.inv, fg.linalg.det])
def test_inv_det_bad_input(fn):
    with pytest.raises(ValueError, match="finegrad.linalg"):
        fn(fg.ones((2, 3)))
    with pytest.raises(TypeError, match="finegrad.linalg"):
        fn(fg.constant([[1, 2], [3, 4]]))


def test_slogdet():
    a = RNG.standard_normal((3, 4, 4))
    sign, logdet = fg.linalg.slogdet(a)
    want_sign, want_log = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.numpy(), want_sign)
    np.testing.assert_allclose(logdet.numpy(), want_log, rtol=1e-10)
    big = np.eye(3) * 1e200   # det overflows, its logarithm does not
    np.testing.assert_allclose(fg.linalg.slogdet(big)[1].numpy(), 3 * np.log(1e200))
    x = fg.Variable(a)
    with fg.GradientTape() as tape:
        y = fg.reduce_sum(fg.linalg.slogdet(x)[1])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.swapaxes(np.linalg.inv(a), -1, -2), rtol=1e-10)

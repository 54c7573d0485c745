"""tf.image: values and gradients against TensorFlow (live, when installed) and closed forms."""
import numpy as np
import pytest

import finegrad as fg

_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
            "mitchellcubic")
_SIZES = ((3, 4), (9, 11), (5, 7), (2, 13), (1, 1))


def _tf():
    return pytest.importorskip("tensorflow")


# ---- resize: TF-free checks ----------------------------------------------------------------

def test_resize_identity_size_is_identity():
    x = np.random.default_rng(0).random((2, 5, 7, 3)).astype(np.float32)
    # the interpolating kernels (mitchellcubic and gaussian smooth)
    for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        np.testing.assert_allclose(fg.image.resize(x, [5, 7], method).numpy(), x, atol=1e-6)


def test_resize_constant_image_stays_constant():
    x = np.full((6, 4, 1), 2.5)
    for method in _METHODS:
        for antialias in (False, True):
            y = fg.image.resize(x, [3, 9], method, antialias=antialias).numpy()
            np.testing.assert_allclose(y, 2.5, rtol=1e-6)


def test_resize_closed_forms():
    x = np.arange(4.0).reshape(1, 4, 1)
    # area halving: mean of pairs; bilinear halving at half-pixel centers: same
    np.testing.assert_allclose(fg.image.resize(x, [1, 2], "area")[0, :, 0].numpy(), [0.5, 2.5])
    np.testing.assert_allclose(fg.image.resize(x, [1, 2])[0, :, 0].numpy(), [0.5, 2.5])
    # nearest upscale by 2: each pixel twice; keeps the dtype
    y = fg.image.resize(x.astype(np.uint8), [1, 8], "nearest")
    assert y.dtype == fg.uint8
    np.testing.assert_array_equal(y[0, :, 0].numpy(), [0, 0, 1, 1, 2, 2, 3, 3])
    # bilinear doubling: centers at (i + .5) / 2 - .5, clamped at the edges
    np.testing.assert_allclose(fg.image.resize(x, [1, 8])[0, :, 0].numpy(),
                               [0, .25, .75, 1.25, 1.75, 2.25, 2.75, 3])


def test_resize_dtype_and_rank():
    assert fg.image.resize(np.zeros((2, 3, 1)), [4, 4]).dtype == fg.float32
    assert fg.image.resize(np.zeros((2, 3, 1), np.float64), [4, 4], "nearest").dtype == fg.float64
    assert fg.image.resize(np.zeros((2, 2, 3, 1)), [4, 5]).shape == (2, 4, 5, 1)
    y = fg.image.resize(np.zeros((4, 8, 1)), [4, 4], preserve_aspect_ratio=True)
    assert y.shape == (2, 4, 1)


def test_resize_errors():
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        fg.image.resize(np.zeros((2, 2)), [3, 3])
    with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
        fg.image.resize(np.zeros((2, 2, 1)), [3])
    with pytest.raises(ValueError, match="not implemented: foo"):
        fg.image.resize(np.zeros((2, 2, 1)), [3, 3], method="foo")
    with pytest.raises(fg.errors.InvalidArgumentError, match="positive"):
        fg.image.resize(np.zeros((2, 2, 1)), [0, 3])


def test_resize_gradient_is_transposed_resampling():
    x = fg.constant(np.random.default_rng(1).random((1, 4, 6, 2)), fg.float32)
    u = np.random.default_rng(2).random((1, 7, 3, 2)).astype(np.float32)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.image.resize(x, [7, 3], "bicubic")
    g = tape.gradient(y, x, output_gradients=u).numpy()
    # <u, R x> = <R^T u, x>
    np.testing.assert_allclose(np.sum(g * x.numpy()), np.sum(u * y.numpy()), rtol=1e-5)


# ---- resize: against TensorFlow ------------------------------------------------------------

@pytest.mark.parametrize("method", _METHODS)
@pytest.mark.parametrize("antialias", (False, True))
def test_resize_matches_tensorflow(method, antialias):
    tf = _tf()
    x = np.random.default_rng(3).random((2, 6, 9, 2)).astype(np.float32)
    for size in _SIZES:
        want = tf.image.resize(x, size, method, antialias=antialias)
        got = fg.image.resize(x, size, method, antialias=antialias)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-6,
                                   err_msg=f"{method} {size}")
        if method == "area":
            continue  # TensorFlow registers no gradient for ResizeArea (the op table checks ours)
        u = np.random.default_rng(4).random(want.shape).astype(np.float32)
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            yt = tf.image.resize(xt, size, method, antialias=antialias)
        want_g = tape.gradient(yt, xt, output_gradients=u)
        xf = fg.constant(x)
        with fg.GradientTape() as tape:
            tape.watch(xf)
            yf = fg.image.resize(xf, size, method, antialias=antialias)
        got_g = tape.gradient(yf, xf, output_gradients=u)
        np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), rtol=2e-5, atol=2e-5,
                                   err_msg=f"grad {method} {size}")


def test_resize_preserve_aspect_ratio_matches_tensorflow():
    tf = _tf()
    x = np.random.default_rng(5).random((7, 10, 1)).astype(np.float32)
    for size in ((5, 5), (20, 9), (3, 30)):
        want = tf.image.resize(x, size, preserve_aspect_ratio=True)
        got = fg.image.resize(x, size, preserve_aspect_ratio=True)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-6)

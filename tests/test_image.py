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


# ---- geometry, color, statistics, filters: against TensorFlow -----------------------------

def _img(shape, seed=6, dtype=np.float32):
    return np.random.default_rng(seed).random(shape).astype(dtype)


_UNARY = (
    ("flip_left_right", {}), ("flip_up_down", {}), ("transpose", {}), ("rot90", {"k": 1}),
    ("rot90", {"k": 2}), ("rot90", {"k": 3}), ("rot90", {"k": -1}),
    ("crop_to_bounding_box", dict(offset_height=1, offset_width=2, target_height=3,
                                  target_width=2)),
    ("pad_to_bounding_box", dict(offset_height=1, offset_width=0, target_height=7,
                                 target_width=6)),
    ("central_crop", {"central_fraction": 0.5}), ("central_crop", {"central_fraction": 0.33}),
    ("resize_with_crop_or_pad", dict(target_height=3, target_width=8)),
    ("resize_with_crop_or_pad", dict(target_height=8, target_width=2)),
    ("rgb_to_grayscale", {}), ("adjust_brightness", {"delta": 0.3}),
    ("adjust_gamma", {"gamma": 0.7, "gain": 1.2}), ("per_image_standardization", {}),
    ("total_variation", {}),
)


@pytest.mark.parametrize("fn,kwargs", _UNARY, ids=[f"{f}{k}" for f, k in _UNARY])
@pytest.mark.parametrize("shape", ((5, 4, 3), (2, 5, 4, 3)))
def test_image_op_matches_tensorflow(fn, kwargs, shape):
    tf = _tf()
    x = _img(shape)
    want_fn, got_fn = getattr(tf.image, fn), getattr(fg.image, fn)
    want, got = want_fn(tf.constant(x), **kwargs), got_fn(x, **kwargs)
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    u = _img(tuple(want.shape), seed=7)
    xt, xf = tf.constant(x), fg.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        want_g = tape.gradient(want_fn(xt, **kwargs), xt, output_gradients=u)
    with fg.GradientTape() as tape:
        tape.watch(xf)
        got_g = tape.gradient(got_fn(xf, **kwargs), xf, output_gradients=u)
    np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", (np.uint8, np.int32, np.float64, np.float16))
def test_integer_images_match_tensorflow(dtype):
    tf = _tf()
    x = (_img((4, 5, 3)) * (200 if np.dtype(dtype).kind in "ui" else 1)).astype(dtype)
    for fn, kwargs in (("rgb_to_grayscale", {}), ("adjust_brightness", {"delta": 0.1}),
                       ("adjust_gamma", {"gamma": 1.5}), ("per_image_standardization", {})):
        want, got = getattr(tf.image, fn)(x, **kwargs), getattr(fg.image, fn)(x, **kwargs)
        assert got.dtype.name == want.dtype.name, fn
        np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float),
                                   rtol=2e-3, atol=1.0 if np.dtype(dtype).kind in "ui" else 1e-6,
                                   err_msg=fn)


@pytest.mark.parametrize("src,dst", [(np.uint8, np.float32), (np.uint8, np.int32),
                                     (np.int32, np.uint8), (np.float32, np.uint8),
                                     (np.float64, np.int16), (np.float32, np.float64),
                                     (np.int16, np.int8)])
@pytest.mark.parametrize("saturate", (False, True))
def test_convert_image_dtype_matches_tensorflow(src, dst, saturate):
    tf = _tf()
    rng = np.random.default_rng(8)
    if np.dtype(src).kind == "f":
        x = rng.uniform(-0.2, 1.2, (3, 4, 1)).astype(src) if saturate else \
            rng.random((3, 4, 1)).astype(src)
    else:
        info = np.iinfo(src)
        x = rng.integers(0, info.max, (3, 4, 1)).astype(src)
    want = tf.image.convert_image_dtype(x, dst, saturate=saturate)
    got = fg.image.convert_image_dtype(x, dst, saturate=saturate)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_filters_and_psnr_match_tensorflow():
    tf = _tf()
    x, y = _img((2, 5, 6, 3)), _img((2, 5, 6, 3), seed=9)
    pairs = zip(fg.image.image_gradients(x), tf.image.image_gradients(tf.constant(x)),
                strict=True)
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fg.image.sobel_edges(x).numpy(),
                               tf.image.sobel_edges(tf.constant(x)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fg.image.psnr(x, y, 1.0).numpy(),
                               tf.image.psnr(x, y, 1.0).numpy(), rtol=1e-5)
    xi, yi = (x * 255).astype(np.uint8), (y * 255).astype(np.uint8)
    np.testing.assert_allclose(fg.image.psnr(xi, yi, 255).numpy(),
                               tf.image.psnr(xi, yi, 255).numpy(), rtol=1e-5)
    gray = x[..., :1]
    np.testing.assert_array_equal(fg.image.grayscale_to_rgb(gray).numpy(),
                                  tf.image.grayscale_to_rgb(tf.constant(gray)).numpy())


# ---- geometry and filters: TF-free closed forms ----------------------------------------------

def test_geometry_closed_forms():
    x = _img((2, 3, 4, 2))
    np.testing.assert_array_equal(fg.image.rot90(x, 1).numpy(), np.rot90(x, 1, axes=(1, 2)))
    np.testing.assert_array_equal(fg.image.rot90(x[0], 3).numpy(), np.rot90(x[0], 3))
    np.testing.assert_array_equal(fg.image.flip_left_right(x).numpy(), x[:, :, ::-1])
    # height 3: start int((3 - 1.5) / 2) = 0, so all rows stay; width 4: columns 1:3
    np.testing.assert_array_equal(fg.image.central_crop(x, 0.5).numpy(), x[:, :, 1:3])
    padded = fg.image.pad_to_bounding_box(x, 1, 2, 5, 7).numpy()
    np.testing.assert_array_equal(padded[:, 1:4, 2:6], x)
    assert padded.sum() == pytest.approx(x.sum(), rel=1e-6)
    with pytest.raises(ValueError, match="width must be >= target"):
        fg.image.crop_to_bounding_box(x, 0, 2, 1, 3)
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        fg.image.central_crop(x, 0.0)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        fg.image.flip_up_down(np.zeros((2, 2)))


def test_statistics_closed_forms():
    x = np.array([[[0.], [1.]], [[3.], [1.]]])
    assert float(fg.image.total_variation(x).numpy()) == 6.0
    s = fg.image.per_image_standardization(x.astype(np.float32)).numpy()
    np.testing.assert_allclose([s.mean(), s.std()], [0, 1], atol=1e-6)
    # a constant image: the stddev floor 1/sqrt(N) keeps it finite (all zeros)
    np.testing.assert_array_equal(fg.image.per_image_standardization(np.ones((2, 2, 1),
                                                                               np.float32)), 0)
    assert float(fg.image.psnr(np.zeros((1, 1, 1)), np.full((1, 1, 1), 0.1), 1.0)) == \
        pytest.approx(20.0, rel=1e-6)
    sob = fg.image.sobel_edges(np.tile(np.arange(4.)[None, None, :, None], (1, 3, 1, 1)))
    np.testing.assert_array_equal(sob[0, :, 1:3, 0, 1].numpy(), 8.0)  # 4 * slope 1 * 2 taps
    np.testing.assert_array_equal(sob[..., 0].numpy(), 0.0)


# ---- contrast, saturation, hue: TensorFlow's values, and its missing gradients -------------

_HSV_ADJUST = (("adjust_contrast", 1.7, "AdjustContrastv2"), ("adjust_contrast", 0.3,
                                                                "AdjustContrastv2"),
               ("adjust_saturation", 0.4, "AdjustSaturation"),
               ("adjust_saturation", 2.5, "AdjustSaturation"),
               ("adjust_hue", 0.3, "AdjustHue"), ("adjust_hue", -0.7, "AdjustHue"))


@pytest.mark.parametrize("fn,value,tf_name", _HSV_ADJUST)
@pytest.mark.parametrize("dtype", (np.float32, np.uint8))
def test_hsv_adjustments_match_tensorflow(fn, value, tf_name, dtype):
    tf = _tf()
    x = _img((2, 4, 5, 3))
    x = (x * 255).astype(np.uint8) if dtype == np.uint8 else x
    want, got = getattr(tf.image, fn)(x, value), getattr(fg.image, fn)(x, value)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float),
                               rtol=1e-5, atol=1.0 if dtype == np.uint8 else 1e-5)


@pytest.mark.parametrize("fn,value,tf_name", _HSV_ADJUST[::2])
def test_hsv_adjustments_have_no_gradient_as_in_tensorflow(fn, value, tf_name):
    x = fg.constant(_img((3, 4, 3)))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = getattr(fg.image, fn)(x, value)
    with pytest.raises(LookupError, match=f"gradient registry has no entry for: {tf_name}$"):
        tape.gradient(y, x)


def test_hsv_adjustment_closed_forms():
    x = _img((3, 4, 3))
    c = fg.image.adjust_contrast(x, 2.0).numpy()
    m = x.mean(axis=(0, 1))
    np.testing.assert_allclose(c, (x - m) * 2 + m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fg.image.adjust_hue(x, 1.0).numpy(), x, atol=1e-5)
    np.testing.assert_allclose(fg.image.adjust_saturation(x, 1.0).numpy(), x, atol=1e-5)
    gray = fg.image.adjust_saturation(x, 0.0).numpy()
    np.testing.assert_allclose(gray, np.repeat(x.max(-1, keepdims=True), 3, -1), atol=1e-6)
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        fg.image.adjust_hue(x, 1.5)


# ---- rgb_to_hsv / hsv_to_rgb ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_hsv_conversions_match_tensorflow(dtype):
    tf = _tf()
    x = _img((2, 4, 5, 3), seed=10, dtype=dtype)
    x[0, 0, 0] = [0.5, 0.5, 0.5]      # gray: hue and saturation 0
    x[0, 0, 1] = [0.0, 0.0, 0.0]      # black
    want = tf.image.rgb_to_hsv(tf.constant(x))
    got = fg.image.rgb_to_hsv(x)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    hsv = want.numpy()
    np.testing.assert_allclose(fg.image.hsv_to_rgb(hsv).numpy(),
                               tf.image.hsv_to_rgb(tf.constant(hsv)).numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(fg.image.hsv_to_rgb(got).numpy(), x, rtol=1e-5, atol=1e-6)
    # gradients of rgb_to_hsv (away from ties), as TensorFlow's RGBToHSV gradient
    y = _img((2, 4, 5, 3), seed=11, dtype=dtype)
    u = _img((2, 4, 5, 3), seed=12, dtype=dtype)
    yt, yf = tf.constant(y), fg.constant(y)
    with tf.GradientTape() as tape:
        tape.watch(yt)
        want_g = tape.gradient(tf.image.rgb_to_hsv(yt), yt, output_gradients=u)
    with fg.GradientTape() as tape:
        tape.watch(yf)
        got_g = tape.gradient(fg.image.rgb_to_hsv(yf), yf, output_gradients=u)
    np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), rtol=1e-4, atol=1e-4)
    with fg.GradientTape() as tape:   # HSVToRGB: no gradient in TensorFlow either
        tape.watch(yf)
        assert tape.gradient(fg.image.hsv_to_rgb(yf), yf) is None


# ---- extract_patches -------------------------------------------------------------------------

_PATCHES = (([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1]), ([1, 3, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1]),
            ([1, 2, 3, 1], [1, 2, 1, 1], [1, 2, 1, 1]), ([1, 1, 1, 1], [1, 3, 3, 1], [1, 1, 1, 1]),
            ([1, 3, 3, 1], [1, 2, 3, 1], [1, 2, 2, 1]))


@pytest.mark.parametrize("sizes,strides,rates", _PATCHES)
@pytest.mark.parametrize("padding", ("VALID", "SAME"))
def test_extract_patches_matches_tensorflow(sizes, strides, rates, padding):
    tf = _tf()
    x = _img((2, 7, 6, 2), seed=13)
    want = tf.image.extract_patches(x, sizes, strides, rates, padding)
    got = fg.image.extract_patches(x, sizes, strides, rates, padding)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    u = _img(tuple(want.shape), seed=14)
    xt, xf = tf.constant(x), fg.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        want_g = tape.gradient(tf.image.extract_patches(xt, sizes, strides, rates, padding), xt,
                               output_gradients=u)
    with fg.GradientTape() as tape:
        tape.watch(xf)
        got_g = tape.gradient(fg.image.extract_patches(xf, sizes, strides, rates, padding), xf,
                              output_gradients=u)
    np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), rtol=1e-5, atol=1e-6)


def test_extract_patches_closed_form_and_errors():
    x = np.arange(16.0).reshape(1, 4, 4, 1)
    p = fg.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID").numpy()
    np.testing.assert_array_equal(p[0, 1, 1], [10, 11, 14, 15])
    with pytest.raises(ValueError, match="'padding' must be 'VALID' or 'SAME'"):
        fg.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match=r"'sizes' must be \[1, rows, cols, 1\]"):
        fg.image.extract_patches(x, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")


# ---- ssim ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", ({}, {"filter_size": 5, "filter_sigma": 0.8},
                                    {"filter_size": 7, "k1": 0.02, "k2": 0.05}))
def test_ssim_matches_tensorflow(kwargs):
    tf = _tf()
    x = _img((2, 13, 12, 3), seed=15)
    y = np.clip(x + 0.1 * _img((2, 13, 12, 3), seed=16) - 0.05, 0, 1).astype(np.float32)
    want = tf.image.ssim(x, y, 1.0, **kwargs)
    got = fg.image.ssim(x, y, 1.0, **kwargs)
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    xt, xf = tf.constant(x), fg.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        want_g = tape.gradient(tf.image.ssim(xt, y, 1.0, **kwargs), xt)
    with fg.GradientTape() as tape:
        tape.watch(xf)
        got_g = tape.gradient(fg.image.ssim(xf, y, 1.0, **kwargs), xf)
    np.testing.assert_allclose(got_g.numpy(), want_g.numpy(), rtol=1e-4, atol=1e-6)
    xi, yi = (x * 255).astype(np.uint8), (y * 255).astype(np.uint8)
    np.testing.assert_allclose(fg.image.ssim(xi, yi, 255, **kwargs).numpy(),
                               tf.image.ssim(xi, yi, 255, **kwargs).numpy(), rtol=1e-5)


def test_ssim_closed_forms():
    x = _img((12, 12, 2), seed=17)
    assert float(fg.image.ssim(x, x, 1.0)) == pytest.approx(1.0, abs=1e-6)
    # constant images: the structure term is 1, luminance (2ab + c1) / (a^2 + b^2 + c1)
    a, b, c1 = 0.2, 0.6, 0.01 ** 2
    want = (2 * a * b + c1) / (a * a + b * b + c1)
    got = fg.image.ssim(np.full((11, 11, 1), a, np.float32), np.full((11, 11, 1), b, np.float32),
                        1.0)
    # float32, as TensorFlow: the window variances cancel to ~1e-8, not 0, against c2 = 9e-4
    assert float(got) == pytest.approx(want, rel=1e-4)
    with pytest.raises(ValueError, match="at least filter_size"):
        fg.image.ssim(x[:5], x[:5], 1.0)


# ---- stateless augmentations: bit-identical to TensorFlow for the same seed ------------------

_STATELESS = (
    ("stateless_random_flip_left_right", {}), ("stateless_random_flip_up_down", {}),
    ("stateless_random_brightness", {"max_delta": 0.3}),
    ("stateless_random_contrast", {"lower": 0.2, "upper": 1.8}),
    ("stateless_random_saturation", {"lower": 0.2, "upper": 1.8}),
    ("stateless_random_hue", {"max_delta": 0.4}),
)


@pytest.mark.parametrize("fn,kwargs", _STATELESS, ids=[f for f, _ in _STATELESS])
@pytest.mark.parametrize("shape", ((5, 4, 3), (6, 5, 4, 3)))
def test_stateless_augmentations_match_tensorflow(fn, kwargs, shape):
    tf = _tf()
    x = _img(shape, seed=18)
    for seed in ([1, 2], [7, 3], [0, 11]):
        want = getattr(tf.image, fn)(tf.constant(x), seed=seed, **kwargs)
        got = getattr(fg.image, fn)(x, seed=seed, **kwargs)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=f"{fn} {seed}")


def test_stateless_random_crop_matches_tensorflow():
    tf = _tf()
    x = _img((7, 6, 3), seed=19)
    for seed, size in (([1, 2], [3, 4, 3]), ([5, 9], [7, 2, 1]), ([2, 2], [1, 1, 3])):
        np.testing.assert_array_equal(fg.image.stateless_random_crop(x, size, seed).numpy(),
                                      tf.image.stateless_random_crop(x, size, seed).numpy())
    with pytest.raises(ValueError, match="none larger"):
        fg.image.stateless_random_crop(x, [8, 2, 3], [1, 2])


def test_random_augmentations_behave():
    fg.random.set_seed(5)
    x = _img((4, 5, 6, 3), seed=20)
    y = fg.image.random_flip_left_right(x).numpy()
    for a, b in zip(y, x, strict=True):   # each image: unchanged or mirrored
        assert np.array_equal(a, b) or np.array_equal(a, b[:, ::-1])
    d = fg.image.random_brightness(x, 0.2).numpy() - x
    assert np.ptp(d) < 1e-6 and abs(d.flat[0]) <= 0.2
    c = fg.image.random_contrast(x[0], 0.5, 1.5).numpy()
    m = x[0].mean(axis=(0, 1))
    factor = (c - m) / (x[0] - m)
    assert np.ptp(factor) < 1e-3 and 0.5 <= factor.flat[0] < 1.5
    with pytest.raises(ValueError, match="upper must be > lower"):
        fg.image.random_contrast(x, 1.0, 0.5)
    # gradients pass through the flips (TensorFlow: reverse and a 0/1 mix)
    xf = fg.constant(x)
    with fg.GradientTape() as tape:
        tape.watch(xf)
        out = fg.image.stateless_random_flip_up_down(xf, [3, 4])
    np.testing.assert_array_equal(tape.gradient(out, xf).numpy(), np.ones_like(x))


def test_random_crop_saturation_hue_behave():
    fg.random.set_seed(6)
    x = _img((6, 5, 3), seed=21)
    crop = fg.image.random_crop(x, [3, 2, 3]).numpy()
    hits = [(i, j) for i in range(4) for j in range(4) if np.array_equal(x[i:i + 3, j:j + 2],
                                                                          crop)]
    assert len(hits) == 1
    with pytest.raises(ValueError, match="none larger"):
        fg.image.random_crop(x, [7, 2, 3])
    s = fg.image.random_saturation(x, 0.999, 1.0).numpy()
    np.testing.assert_allclose(s, x, atol=2e-3)
    with pytest.raises(ValueError, match=r"max_delta must be in the interval \[0, 0.5\]"):
        fg.image.random_hue(x, 0.7)
    assert fg.image.random_hue(x, 0.0).numpy() == pytest.approx(x, abs=1e-5)

"""`keras.ops.image` on TensorFlow where Keras's tensorflow backend calls TensorFlow's own
kernels: the affine and perspective warps on ``ImageProjectiveTransformV3`` (TensorFlow's
fill modes and rounding), and ``tf.image.sobel_edges`` (reflect padding)."""
import tensorflow as tf

from finegrad._src import backends as _backends
from finegrad._src.backends.composite import image_warp as _warp
from finegrad._src.backends.tensorflow import custom as _custom


def _batch(images, data_format):
    x = _custom.convert_to_tensor(images)
    if x.shape.rank not in (3, 4):
        raise ValueError(f"finegrad.ops.image: images must have rank 3 (one image) or 4 "
                         f"(a batch), got shape {tuple(x.shape)}")
    squeeze = x.shape.rank == 3
    if squeeze:
        x = tf.expand_dims(x, 0)
    if data_format == "channels_first":
        x = tf.transpose(x, (0, 2, 3, 1))
    return x, squeeze


def _project(x, transform, interpolation, fill_mode, fill_value, squeeze, data_format):
    out = tf.raw_ops.ImageProjectiveTransformV3(
        images=x, transforms=tf.cast(transform, tf.float32), output_shape=tf.shape(x)[1:-1],
        fill_value=tf.cast(fill_value, tf.float32), interpolation=interpolation.upper(),
        fill_mode=fill_mode.upper())
    if data_format == "channels_first":
        out = tf.transpose(out, (0, 3, 1, 2))
    return tf.squeeze(out, 0) if squeeze else out


def image_affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                           fill_value=0, data_format=None):
    _warp._check_warp("affine_transform", interpolation, fill_mode)
    x, squeeze = _batch(images, data_format)
    t = _custom.convert_to_tensor(transform)
    if t.shape.rank not in (1, 2):
        raise ValueError(f"finegrad.ops.image.affine_transform: transform must have rank 1 "
                         f"or 2, got shape {tuple(t.shape)}")
    if t.shape.rank == 1:
        t = tf.expand_dims(t, 0)
    return _project(x, t, interpolation, fill_mode, fill_value, squeeze, data_format)


def image_perspective_transform(images, start_points, end_points, interpolation="bilinear",
                                fill_value=0, data_format=None):
    backend = _backends.load("tensorflow")
    _warp._check_warp("perspective_transform", interpolation, "constant")
    x, squeeze = _batch(images, data_format)
    start = _warp._points(backend, start_points, "start_points")
    end = _warp._points(backend, end_points, "end_points")
    t = _warp.compute_homography_matrix(backend, start, end)
    return _project(x, t, interpolation, "constant", fill_value, squeeze, data_format)


def image_sobel_edges(images, data_format=None):
    x = _custom.convert_to_tensor(images)
    if data_format == "channels_first":
        x = tf.transpose(x, (0, 2, 3, 1))
    edges = tf.image.sobel_edges(x)
    return tf.transpose(edges, (0, 3, 1, 2, 4)) if data_format == "channels_first" else edges

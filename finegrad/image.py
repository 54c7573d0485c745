"""TensorFlow's ``tf.image`` namespace: resizing, flips and crops, color adjustments, image
statistics and patches, each written with finegrad ops (so differentiable where TF's are)."""

from finegrad._src.ops.image.resize import ResizeMethod, resize

__all__ = ["ResizeMethod", "resize"]

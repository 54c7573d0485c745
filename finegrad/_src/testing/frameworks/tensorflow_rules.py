"""Rules written for TensorFlow (``tf.custom_gradient``, any tf function), run through
TensorFlow's own autodiff: ``tf.GradientTape`` (nested for order 2) and
``tf.autodiff.ForwardAccumulator`` (over a tape for order 2). TensorFlow is imported when a
rule is checked."""
import numpy as np

from finegrad._src.testing.frameworks.base import UPSTREAM, FrameworkEvaluator


def _tf():
    import tensorflow as tf
    return tf


def _output(fn, xs, shape):
    tf = _tf()
    y = fn(*xs)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    if len(ys) == 1 and tuple(ys[0].shape) == tuple(shape):
        return ys[0]
    if shape:
        raise ValueError(f"the output has shape {[tuple(o.shape) for o in ys]}, not {shape}")
    return tf.add_n([tf.reduce_sum(o) for o in ys])


def _np(t, like):
    if t is None:
        return np.zeros(np.shape(like))
    return np.asarray(t.numpy(), np.float64)


class TensorFlowEvaluator(FrameworkEvaluator):
    """A TensorFlow function on a set of points (see `FrameworkEvaluator`)."""

    name = "tensorflow"

    def _consts(self, cols, dtype):
        return [_tf().constant(np.asarray(c, dtype)) for c in cols]

    def _values(self, cols, dtype):
        return _np(_output(self.fn, self._consts(cols, dtype), np.shape(cols[0])), cols[0])

    def _derivatives(self, cols, dtype, modes, order):
        tf = _tf()
        shape = np.shape(cols[0])
        xs = self._consts(cols, dtype)
        zero = tf.UnconnectedGradients.ZERO
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xs)
            with tf.GradientTape() as tape:
                tape.watch(xs)
                y = _output(self.fn, xs, shape)
            g = tape.gradient(y, xs, output_gradients=UPSTREAM * tf.ones_like(y),
                              unconnected_gradients=zero)
        out = {}
        if "rev" in modes:
            out["rev", 1] = [_np(gi, c) / UPSTREAM for gi, c in zip(g, cols, strict=True)]
            if order >= 2:
                self.attempt("rev", 2, out, lambda: [
                    _np(outer.gradient(gi, x, output_gradients=tf.ones_like(gi),
                                       unconnected_gradients=zero), c) / UPSTREAM
                    for gi, x, c in zip(g, xs, cols, strict=True)])
        if "fwd" in modes and _is_custom_gradient(self.fn):
            for m in range(1, order + 1):
                self.not_available("fwd", m, NotImplementedError(
                    "ForwardAccumulator differentiates a tf.custom_gradient function's "
                    "forward computation, not its rule"))
        elif "fwd" in modes:
            self.attempt("fwd", 1, out, lambda: [self._forward(xs, k, shape, 1)
                                                 for k in range(len(xs))])
            if order >= 2:
                self.attempt("fwd", 2, out, lambda: [self._forward(xs, k, shape, 2)
                                                     for k in range(len(xs))])
        return _np(y, cols[0]), out

    def _forward(self, xs, k, shape, order):
        tf = _tf()
        tangents = [tf.ones_like(x) if i == k else tf.zeros_like(x) for i, x in enumerate(xs)]
        with tf.autodiff.ForwardAccumulator(xs, tangents) as acc:
            with tf.GradientTape() as tape:
                tape.watch(xs[k])
                y = _output(self.fn, xs, shape)
            if order == 2:
                y = tape.gradient(y, xs[k], output_gradients=UPSTREAM * tf.ones_like(y),
                                  unconnected_gradients=tf.UnconnectedGradients.ZERO)
        t = acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return _np(t, xs[k]) / (UPSTREAM if order == 2 else 1.0)


def _is_custom_gradient(fn):
    if getattr(fn, "_tf_custom_gradient", False):   # finegrad.ops's rule on tensorflow
        return True
    decorator = getattr(fn, "_tf_decorator", None)
    return getattr(decorator, "decorator_name", None) == "custom_gradient"

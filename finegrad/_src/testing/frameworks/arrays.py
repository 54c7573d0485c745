"""Array inputs in every framework, for sweeps of vector and matrix functions
(`finegrad._src.testing.sweep_vector`): a function of arrays made a function of the scalar
position ``t`` along a line (``x = p + t d``) and of a fixed weighting of its outputs
(``<w, f(x)>``), written with the framework's own tensors so that its own autodiff runs the
rule; and, at one point, the rule's whole gradient and the function's float64 value.
Frameworks are imported when a rule of theirs is checked."""
import numpy as np

from finegrad._src.tensor import Tensor


class Weights:
    """A fixed random weighting per output shape (scalars are not weighted), so that a
    vector output is checked through one scalar ``sum(w * y)`` whose gradient involves every
    output element."""

    def __init__(self, seed=0):
        self.seed, self.cache = seed, {}

    def __call__(self, shape):
        shape = tuple(int(s) for s in shape)
        if not shape:
            return None
        if shape not in self.cache:
            rng = np.random.default_rng([self.seed, len(self.cache)])
            self.cache[shape] = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        return self.cache[shape]


def _kit(framework):
    """``(const(array, like), ndim(t), total(y, w))`` in ``framework``'s tensors."""
    if framework == "torch":
        import torch
        return (lambda a, t: torch.as_tensor(a, dtype=t.dtype), lambda t: t.dim(),
                lambda y, w: y if w is None else (y * torch.as_tensor(w, dtype=y.dtype)).sum())
    if framework == "jax":
        import jax.numpy as jnp
        return (lambda a, t: jnp.asarray(a, t.dtype), jnp.ndim,
                lambda y, w: y if w is None else jnp.sum(y * jnp.asarray(w, y.dtype)))
    if framework == "tensorflow":
        import tensorflow as tf
        return (lambda a, t: tf.constant(a, t.dtype), lambda t: t.shape.rank,
                lambda y, w: y if w is None else tf.reduce_sum(y * tf.constant(w, y.dtype)))
    from finegrad._src.ops.array.structural import reduce_sum
    return (lambda a, t: Tensor(np.asarray(a, t._value.dtype)), lambda t: np.ndim(t._value),
            lambda y, w: y if w is None else reduce_sum(
                y * Tensor(np.asarray(w, y._value.dtype))))


def _outputs(y):
    return list(y) if isinstance(y, (tuple, list)) else [y]


def weighted(fn, framework, weights):
    """``x -> sum over outputs of <w, y>``, a scalar function in ``framework``'s tensors
    (for NumPy, a ``(value, grad)`` function)."""
    if framework == "numpy":
        return _weighted_numpy(fn, weights)
    _, _, total = _kit(framework)

    def g(*xs):
        outs = _outputs(fn(*xs))
        if framework == "finegrad":
            for y in outs:
                if not isinstance(y, Tensor):
                    name = getattr(fn, "__qualname__", type(fn).__name__)
                    raise TypeError(f"finegrad.testing.sweep: {name} returned a "
                                    f"{type(y).__name__}, not a finegrad Tensor: write it "
                                    f"with finegrad ops, or give a NumPy black box "
                                    f"(value, grad) with framework='numpy'")
        ys = [total(y, weights(y.shape)) for y in outs]
        out = ys[0]
        for y in ys[1:]:
            out = out + y
        return out
    return g


def _weighted_numpy(fn, weights):
    def g(*xs):
        value, grad = fn(*xs)
        value = np.asarray(value)
        w = weights(value.shape)
        w = np.ones(()) if w is None else w
        return np.sum(w * value), lambda dy: grad(np.asarray(dy * w, value.dtype))
    return g


def on_line(fn, framework, ps, ds, weights):
    """``(t_0, ..., t_n-1) -> <w, fn(p_0 + t_0 d_0, ...)>`` for scalar ``t`` in
    ``framework``'s tensors: its derivative along ``t_k`` is the rule's derivative along
    ``d_k``. Vectors of ``t`` are refused, so that the points go one at a time (jax maps
    the scalar function with ``vmap``)."""
    g = weighted(fn, framework, weights)
    if framework == "numpy":
        def line_numpy(*ts):
            xs = [np.asarray(p + np.asarray(t) * d, np.asarray(t).dtype)
                  for t, p, d in zip(ts, ps, ds, strict=True)]
            value, grad = g(*xs)
            return value, lambda dy: tuple(
                np.sum(np.asarray(gk, np.float64) * d) for gk, d in
                zip(_outputs(grad(dy)), ds, strict=True))
        return line_numpy
    const, ndim, _ = _kit(framework)

    def line(*ts):
        if any(ndim(t) != 0 for t in ts):
            raise ValueError("a line of a vector sweep takes one point at a time")
        return g(*[t * const(d, t) + const(p, t) for t, p, d in zip(ts, ps, ds, strict=True)])
    if framework == "tensorflow":   # forward mode along the line would miss the rule too
        from finegrad._src.testing.frameworks.tensorflow_rules import _is_custom_gradient
        line._tf_custom_gradient = _is_custom_gradient(fn)
    return line


def gradient_at(fn, framework, xs, dtype, keep_shape=False):
    """The reverse-mode gradient of the scalar ``fn`` (see `weighted`) at ``xs`` (arrays),
    computed in ``dtype`` by ``framework``'s own autodiff: one float64 array per input (of
    the shape the rule gives with ``keep_shape``, else of the input's)."""
    xs = [np.asarray(x, dtype) for x in xs]
    if framework == "numpy":
        value, grad = fn(*xs)
        gs = [np.asarray(g, np.float64) for g in _outputs(grad(np.ones_like(value)))]
        return gs if keep_shape else [np.broadcast_to(g, x.shape).copy()
                                      for g, x in zip(gs, xs, strict=True)]
    if framework == "torch":
        import torch
        ts = [torch.tensor(x, requires_grad=True) for x in xs]
        gs = torch.autograd.grad(fn(*ts), ts, allow_unused=True)
    elif framework == "jax":
        import jax
        with jax.enable_x64(np.dtype(dtype) == np.float64):
            gs = jax.grad(fn, argnums=tuple(range(len(xs))))(*[jax.numpy.asarray(x)
                                                                for x in xs])
            gs = [np.asarray(g, np.float64) for g in gs]
    elif framework == "tensorflow":
        import tensorflow as tf
        ts = [tf.constant(x) for x in xs]
        with tf.GradientTape() as tape:
            tape.watch(ts)
            y = fn(*ts)
        gs = tape.gradient(y, ts)
    else:
        from finegrad._src.ad.tape import GradientTape
        ts = [Tensor(x) for x in xs]
        with GradientTape() as tape:
            tape.watch(ts)
            y = fn(*ts)
        gs = tape.gradient(y, ts)
    return [np.zeros(x.shape) if g is None else np.asarray(_numpy(g), np.float64)
            for g, x in zip(gs, xs, strict=True)]


def _numpy(t):
    if isinstance(t, Tensor):
        return t._value
    if hasattr(t, "detach"):
        return t.detach().numpy()
    return t.numpy() if hasattr(t, "numpy") else t


def value_at(fn, framework, xs, dtype=np.float64):
    """The value of ``fn`` at ``xs`` (arrays) in ``dtype``, as float64 (a nested output as
    a list of arrays), with no recorder active."""
    xs = [np.asarray(x, dtype) for x in xs]
    if framework == "numpy":
        return np.asarray(fn(*xs)[0], np.float64)
    if framework == "torch":
        import torch
        with torch.no_grad():
            y = fn(*[torch.tensor(x) for x in xs])
    elif framework == "jax":
        import jax
        with jax.enable_x64(np.dtype(dtype) == np.float64):
            y = fn(*[jax.numpy.asarray(x) for x in xs])
            y = [np.asarray(o) for o in _outputs(y)] if isinstance(y, (tuple, list)) else \
                np.asarray(y)
    elif framework == "tensorflow":
        import tensorflow as tf
        y = fn(*[tf.constant(x) for x in xs])
    else:
        with np.errstate(all="ignore"):
            y = fn(*[Tensor(x) for x in xs])
    if isinstance(y, (tuple, list)):
        return [np.asarray(_numpy(o), np.float64) for o in y]
    return np.asarray(_numpy(y), np.float64)

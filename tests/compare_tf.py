"""Comparing a function's value and gradients between finegrad and TensorFlow: the same
code, ``fn(lib, *tensors)``, run with ``lib`` each of them."""
import numpy as np


def value_and_grads(lib, fn, *args):
    """``fn``'s value and the gradients of a weighted sum of it with respect to every
    argument (zeros where it does not depend on one), as NumPy arrays."""
    ts = [lib.constant(a) for a in args]
    with lib.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        out = fn(lib, *ts)
        w = np.linspace(0.5, 1.5, int(np.size(out))).reshape(np.shape(out))
        loss = lib.reduce_sum(out * lib.constant(w.astype(out.dtype.as_numpy_dtype)))
    grads = tape.gradient(loss, ts, unconnected_gradients="zero")
    return [np.asarray(out)] + [np.asarray(g) for g in grads]


def value_and_vjp(lib, f, x, seed=0):
    """``f(x)`` and its vector-Jacobian product with a random cotangent (drawn from
    ``seed``), as NumPy arrays."""
    x = lib.constant(x)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    ct = np.random.default_rng(seed).normal(size=tuple(y.shape))
    return y.numpy(), tape.gradient(y, x, output_gradients=lib.constant(ct)).numpy()

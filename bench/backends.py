"""Benchmark h: the custom log1pexp written once with `finegrad.ops`, run on each backend
against the same backend's hand-written native custom rule (``jax.custom_vjp`` under
``jax.jit``, ``torch.autograd.Function``, ``tf.custom_gradient`` eagerly and under
``tf.function``). Forward plus gradient of ``sum(log1pexp(x))``, for a scalar and for 10^6
elements. The figure is the ratio ops / native: the cost of the dispatch layer (targets: 1.1x
on 10^6 elements; 1.1x under jax.jit and tf.function, where the trace erases the dispatch; the
scalar eager rows are information only). A backend whose framework is missing is skipped."""
import importlib

import numpy as np

from harness import close, measure, row
from log1pexp_rules import jax_log1pexp, ops_log1pexp, tf_log1pexp, torch_log1pexp

SIZES = (("scalar", ()), ("1e6", (10 ** 6,)))


def _jax_cases(ops):
    import jax
    import jax.numpy as jnp

    native = jax_log1pexp(jax)
    with ops.backend_scope("jax"):
        mine = ops_log1pexp(ops)

    def step(f):
        compiled = jax.jit(jax.value_and_grad(lambda x: jnp.sum(f(x))))

        def run(x):
            with ops.backend_scope("jax"):
                value, g = compiled(x)
            return g.block_until_ready()
        return run
    return [("jax.jit", step(mine), step(native), jnp.asarray, 1.1)]


def _torch_cases(ops):
    import torch

    native = torch_log1pexp(torch)
    with ops.backend_scope("torch"):
        mine = ops_log1pexp(ops)

    def step(f):
        def run(x):
            x = x.detach().requires_grad_(True)
            with ops.backend_scope("torch"):
                y = f(x).sum()
            (g,) = torch.autograd.grad(y, x)
            return g
        return run
    return [("torch eager", step(mine), step(native), torch.as_tensor, 1.1)]


def _tf_cases(ops):
    import tensorflow as tf

    native = tf_log1pexp(tf)
    with ops.backend_scope("tensorflow"):
        mine = ops_log1pexp(ops)

    def step(f):
        def value_and_grad(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(f(x))
            return y, tape.gradient(y, x)
        return value_and_grad

    def scoped(fn):
        def run(x):
            with ops.backend_scope("tensorflow"):
                return fn(x)[1]
        return run
    return [("tf eager", scoped(step(mine)), scoped(step(native)), tf.constant, 1.1),
            ("tf.function", scoped(tf.function(step(mine))), scoped(tf.function(step(native))),
             tf.constant, 1.1)]


CASES = {"jax": _jax_cases, "torch": _torch_cases, "tensorflow": _tf_cases}


def bench_h():
    """Rows for each installed backend: ops.custom_gradient vs the native rule."""
    from finegrad import ops
    rows = []
    for framework, cases in CASES.items():
        try:
            importlib.import_module(framework)
        except ImportError:
            continue
        for mode, mine, native, to_tensor, target in cases(ops):
            for size, shape in SIZES:
                x = to_tensor(np.linspace(-3, 120, int(np.prod(shape)), dtype=np.float32)
                              .reshape(shape))
                ok = close(np.asarray(mine(x)), np.asarray(native(x)))
                t = measure({"fg": lambda m=mine, x=x: m(x), "np": lambda n=native, x=x: n(x)})
                ratio = t["fg"]["min"] / t["np"]["min"]
                eager_scalar = size == "scalar" and "eager" in mode
                rows.append(row("h", f"log1pexp ops vs native, {mode}, {size}", t, ratio,
                                "x native", None if eager_scalar else target, ok, {},
                                baseline=f"{framework} native"))
    return rows

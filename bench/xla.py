"""XLA benchmarks x1-x6: the traced workloads under ``finegrad.function(jit_compile=True)``
(finegrad/_src/graph/xla/), beside the same code under plain ``finegrad.function`` (finegrad's
executor: the baseline column), ``jax.jit`` of the same math and TensorFlow's
``tf.function(jit_compile=True)`` of the very same code, in interleaved rounds; and each
one's first call (trace and compile) in the info row below it.

x1 W1 1,000 chained scalar ops (benchmark a), forward + gradient
x2 W2 the custom log1pexp (TensorFlow's guide example) on 10^6 float32, forward + gradient
x3 W3 the tanh MLP step (benchmark b)
x4 W4 the Rosenbrock Hessian-vector product (benchmark d), float64
x5 W5 the 200x200 Jacobian of tanh(W x) (benchmark e)
x6 W6 the gradient of sum(log1pexp(x)) (the custom one), 10^7 float32

The figure is the compiled time over the executor's (``x graph``). Only the first call of a
fresh callable counts as its first-call time (the trace and XLA's compilation included).
"""
import functools
import time

import numpy as np

from eager import (N_D, N_E, N_F, build_chain_tf, build_hvp_tf, build_jac_tf, build_mlp_tf,
                   chain_numpy, hvp_numpy, mlp_data, mlp_numpy)
from eager import _log1pexp_jax, _peer_chain_jax, _peer_mlp_jax
from harness import PEERS, close, fg, measure, row
from log1pexp_rules import jax_log1pexp, tf_log1pexp

N_W6 = 10 ** 7


class Jit:
    """Module ``tf`` (finegrad or TensorFlow) whose ``function`` compiles with XLA
    (``jit_compile=True``); every other name is the module's."""

    def __init__(self, mod):
        self._mod = mod

    def __getattr__(self, name):
        return getattr(self._mod, name)

    def function(self, func=None, **kw):
        if func is None:
            return functools.partial(self.function, **kw)
        return self._mod.function(func, jit_compile=True, **kw)


def _first_call(build):
    """(the callable ``build()`` makes, seconds of building it and its first call)."""
    t = time.perf_counter()
    fn = build()
    fn()
    return fn, time.perf_counter() - t


def _grad_of(run):
    return lambda: run()[1]


def _numpy_of(x):
    if isinstance(x, (list, tuple)):
        return [_numpy_of(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _custom_step(tf, x, total):
    """Forward + gradient of the custom log1pexp (``total``: of the sum of it), traced."""
    f = tf_log1pexp(tf)
    xt = tf.constant(x)

    @tf.function
    def step(z):
        with tf.GradientTape() as tape:
            tape.watch(z)
            y = f(z)
            if total:
                y = tf.reduce_sum(y)
        return y, tape.gradient(y, z)
    return lambda: step(xt)


def _jax_custom_sum(jax, x):
    jnp = jax.numpy
    f = jax_log1pexp(jax)
    g = jax.jit(jax.value_and_grad(lambda z: jnp.sum(f(z))))
    xj = jnp.asarray(x)
    return (lambda: np.asarray(jax.block_until_ready(g(xj))[1])), "jax.jit custom_vjp"


def _workloads():
    """key -> (description, build(tf_module) -> callable, jax builder or None, the NumPy
    gradient to check against, rtol)."""
    rng = np.random.default_rng(5)
    xf = rng.standard_normal(N_F, dtype=np.float32)
    x6 = rng.standard_normal(N_W6, dtype=np.float32)
    xm, labels, params = mlp_data()
    xd, vd = rng.standard_normal(N_D), rng.standard_normal(N_D)
    W = rng.standard_normal((N_E, N_E), dtype=np.float32) / np.float32(np.sqrt(N_E))
    xe = rng.standard_normal(N_E, dtype=np.float32)
    y = np.tanh(W @ xe)

    def jax_hvp(jax):
        jnp = jax.numpy

        def f(z):
            return jnp.sum(100. * (z[1::2] - z[0::2] ** 2) ** 2 + (1. - z[0::2]) ** 2)
        h = jax.jit(lambda z, w: jax.jvp(jax.grad(f), (z,), (w,))[1])
        return (lambda: np.asarray(jax.block_until_ready(h(xd, vd)))), "jax.jit"

    def jax_jac(jax):
        jf = jax.jit(jax.jacrev(lambda z: jax.numpy.tanh(jax.numpy.asarray(W) @ z)))
        return (lambda: np.asarray(jax.block_until_ready(jf(xe)))), "jax.jit"
    e = np.exp(xf)
    return {
        "x1": ("W1 1,000 chained scalar ops, fwd+grad", lambda tf: _grad_of(
            build_chain_tf(tf, traced=True)), _peer_chain_jax, chain_numpy()[1], 1e-3),
        "x2": ("W2 custom log1pexp, 10^6 f32, fwd+grad", lambda tf: _grad_of(
            _custom_step(tf, xf, False)), functools.partial(_log1pexp_jax, x=xf),
            1 - 1 / (1 + e), 1e-5),
        "x3": ("W3 tanh MLP step (b)", lambda tf: _grad_of(
            build_mlp_tf(tf, xm, labels, params, traced=True)),
            _peer_mlp_jax(xm, labels, params), mlp_numpy(xm, labels, params)[1], 2e-3),
        "x4": ("W4 Rosenbrock HVP n=10^5 f64", lambda tf: build_hvp_tf(tf, xd, vd, traced=True),
               jax_hvp, hvp_numpy(xd, vd), 1e-8),
        "x5": ("W5 200x200 Jacobian of tanh(W x)", lambda tf: build_jac_tf(tf, W, xe,
                                                                            traced=True),
               jax_jac, (1 - y * y)[:, None] * W, 1e-4),
        "x6": ("W6 grad of sum(log1pexp(x)) custom, 10^7 f32", lambda tf: _grad_of(
            _custom_step(tf, x6, True)), functools.partial(_jax_custom_sum, x=x6),
            1 - 1 / (1 + np.exp(x6)), 1e-5),
    }


def _peer(label, build, check, base, first):
    """Time a peer beside the executor baseline ``base``; its first call too."""
    try:
        fn, t0 = _first_call(build)
        ok = bool(check(fn()))
        t = measure({label: fn, "__base": base}, repeats=5)
        first[label] = t0
        return {"seconds": t[label]["min"], "figure": t[label]["min"] / t["__base"]["min"],
                "grad_ok": ok}
    except Exception as e:   # a peer failing must not stop the run
        return {"error": f"{type(e).__name__}: {str(e)[:120]}"}


def bench_xla(keys=("x1", "x2", "x3", "x4", "x5", "x6")):
    rows = []
    work = _workloads()
    for key in keys:
        desc, build, jax_build, want, rtol = work[key]

        def check(r, want=want, rtol=rtol):
            got = _numpy_of(r)
            if not isinstance(want, list):
                return close(got, want, rtol=rtol, atol_scale=1e-4)
            return all(close(a, b, rtol=rtol, atol_scale=1e-4)
                       for a, b in zip(got, want, strict=True))
        fn, first_x = _first_call(lambda build=build: build(Jit(fg)))
        base, first_g = _first_call(lambda build=build: build(fg))
        ok = check(fn())
        t = measure({"fg": fn, "np": base}, repeats=5, round_s=0.1)
        first = {}
        peers = {}
        if "jax" in PEERS and jax_build is not None:
            peers["jax.jit"] = _peer("jax.jit", lambda jb=jax_build: jb(PEERS["jax"])[0],
                                     check, base, first)
        if "tensorflow" in PEERS:
            tfm = PEERS["tensorflow"]
            peers["tf.function(jit_compile=True)"] = _peer(
                "tf.function(jit_compile=True)", lambda b=build, m=tfm: b(Jit(m)), check, base,
                first)
        rows.append(row(key, f"{desc}: jit_compile=True", t, t["fg"]["min"] / t["np"]["min"],
                        "x graph", None, ok, peers, baseline="fg.function"))
        firsts = ", ".join(f"{k} {v:.2f} s" for k, v in first.items())
        rows.append(row(key, f"  (info) first call: fg xla {first_x:.2f} s, fg.function "
                        f"{first_g:.2f} s" + (f", {firsts}" if firsts else ""),
                        {"fg": {"min": first_x}, "np": {"min": first_g}}, first_x / first_g,
                        "x graph", None, ok, {}, baseline="fg.function"))
    return rows


BENCHES = {k: functools.partial(bench_xla, (k,)) for k in ("x1", "x2", "x3", "x4", "x5",
                                                           "x6")}

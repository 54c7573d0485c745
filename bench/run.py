#!/usr/bin/env python3
"""finegrad performance benchmarks: finegrad vs. the same math written by hand in NumPy.

Run from the repository root (see bench/README.md):

    python3 bench/run.py                 # every benchmark, a table on stdout
    python3 bench/run.py --only a,c      # a subset
    python3 bench/run.py --json out.json # also write the figures as JSON
    python3 bench/run.py --quick         # fewer repeats (a smoke test, noisier figures)

Each benchmark times finegrad and a hand-written NumPy version (forward and hand-derived
gradient) in the same process, checks that both give the same gradient (np.allclose), and
compares against the targets of issues 2 and 3. PyTorch, JAX, TensorFlow and HIPS autograd are
timed too when importable; none of them is a dependency and a missing one is skipped.

Timing: one warm-up call, then `repeats` rounds; each round calls the function `number` times
(chosen so a round lasts about `round_s`) and records the mean time per call. The figure
reported is the MINIMUM over rounds (timeit's convention: the least disturbed round); the
median is kept in the JSON output. When two functions are compared as a ratio, their rounds
are interleaved (A, B, A, B, ...) so machine noise hits both alike. The garbage collector stays
enabled (its cost is part of what a user pays) but is run before every round.
"""
import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import tracemalloc

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import finegrad as fg  # noqa: E402

QUICK = False
SCALE = 1.0        # multiplies the number of rounds (--rounds-scale)
PROFILE = {}       # bench key -> the finegrad callable to profile (--profile)


# --- timing helpers ---------------------------------------------------------------------------

def _calls_per_round(fn, round_s):
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    return max(1, int(round_s / max(dt, 1e-9)))


def measure(fns, repeats=7, round_s=0.08, warmup=1):
    """Time several functions with interleaved rounds. Returns {name: {"min": s, "median": s}}."""
    repeats = max(3, int(round(repeats * SCALE)))
    if QUICK:
        repeats, round_s = 3, round_s / 2
    for f in fns.values():
        for _ in range(warmup):
            f()
    numbers = {k: _calls_per_round(f, round_s) for k, f in fns.items()}
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            n = numbers[k]
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            times[k].append((time.perf_counter() - t0) / n)
    return {k: {"min": min(v), "median": statistics.median(v), "calls": numbers[k] * repeats}
            for k, v in times.items()}


def profile(key, fn, seconds=1.5, top=18):
    """cProfile ``fn`` for about ``seconds`` and print the top functions by own time."""
    import cProfile
    import pstats
    n = _calls_per_round(fn, seconds)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        fn()
    pr.disable()
    print(f"\n--- profile of ({key}), {n} calls, sorted by own time ---")
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def impl_breakdown(key, fn, calls=5, top=14):
    """Split finegrad's time into NumPy work (each primitive's impl, by input shapes) and the
    rest (dispatch, recording, the reverse pass: Python overhead)."""
    from finegrad._src import core
    stats, saved = {}, {}

    def wrap(p):
        impl = p.impl

        def timed(*a, **k):
            t = time.perf_counter()
            r = impl(*a, **k)
            s = stats.setdefault((p.name, tuple(np.shape(v) for v in a)), [0, 0.0])
            s[0] += 1
            s[1] += time.perf_counter() - t
            return r
        return timed
    for p in core.primitives().values():
        if p.impl is not None:
            saved[p] = p.impl
            p.impl = wrap(p)
    try:
        fn()
        stats.clear()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        total = (time.perf_counter() - t0) / calls
    finally:
        for p, impl in saved.items():
            p.impl = impl
    work = sum(v[1] for v in stats.values()) / calls
    binds = sum(v[0] for v in stats.values()) // calls
    print(f"\n--- ({key}) per call: {total * 1e3:.3f} ms, of which NumPy work in primitive "
          f"impls {work * 1e3:.3f} ms and the rest (Python overhead) "
          f"{(total - work) * 1e3:.3f} ms; {binds} primitive calls ---")
    for (name, shapes), (n, dt) in sorted(stats.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {dt / calls * 1e3:9.3f} ms  x{n // calls:<5d} {name} {shapes}")


def peak_memory(fn):
    """Peak bytes allocated (tracemalloc, which tracks NumPy's buffers) while ``fn`` runs,
    above what was allocated when it started; the result is released before returning."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
        del out
    finally:
        tracemalloc.stop()
    return peak


def held_memory(build, calls=3):
    """Bytes that a freshly built callable keeps allocated between calls (tracemalloc):
    ``build()`` and ``calls`` calls run under tracemalloc, their results are dropped, and what
    is still allocated is counted (its inputs and variables, and for a traced function its
    graph's constants and any buffers it caches from one call to the next)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn = build()
        for _ in range(calls):
            out = fn()
            del out
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        del fn
    finally:
        tracemalloc.stop()
    return held


def close(got, want, rtol=1e-4, atol_scale=1e-6):
    """np.allclose with an absolute tolerance relative to the reference's magnitude."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return False
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    return bool(np.allclose(got, want, rtol=rtol, atol=atol_scale * max(scale, 1e-30)))


# --- optional peers ---------------------------------------------------------------------------

def _try_import(name):
    try:
        if name == "torch":
            import torch
            return torch
        if name == "jax":
            import jax
            jax.config.update("jax_enable_x64", True)  # explicit dtypes are used everywhere
            import jax.numpy  # noqa: F401
            return jax
        if name == "tensorflow":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow
            return tensorflow
        if name == "autograd":
            import autograd
            import autograd.numpy  # noqa: F401
            return autograd
    except Exception:  # noqa: BLE001 - any failure to import means "not available"
        return None
    return None


PEER_NAMES = ("torch", "jax", "tensorflow", "autograd")
PEERS = {}


def load_peers(names):
    for n in names:
        m = _try_import(n)
        if m is not None:
            PEERS[n] = m


def run_peers(bench_name, builders, metric, check=None, baseline=None):
    """Time each available peer. ``builders[name](module)`` returns (fn, label); ``check(result)``
    validates a result. With ``baseline`` (the NumPy function), the figure is the ratio to it,
    timed in interleaved rounds beside the peer; else it is ``metric(seconds per call)``."""
    out = {}
    for name, build in builders.items():
        mod = PEERS.get(name)
        if mod is None:
            continue
        try:
            fn, label = build(mod)
            res = fn()
            ok = None if check is None else bool(check(res))
            fns = {label: fn} if baseline is None else {label: fn, "__numpy": baseline}
            t = measure(fns, repeats=5)
            fig = metric(t[label]["min"]) if baseline is None else \
                t[label]["min"] / t["__numpy"]["min"]
            out[label] = {"seconds": t[label]["min"], "figure": fig, "grad_ok": ok}
        except Exception as e:  # noqa: BLE001 - a peer failing must not stop the run
            out[name] = {"error": f"{type(e).__name__}: {str(e)[:120]}"}
    return out


# --- (a) 1,000 chained scalar ops ---------------------------------------------------------------

N_CHAIN = 1000
# x + 0.1, sin, x * 1.0001, tanh, x - 0.1: the gradient stays representable over 1,000 ops
CHAIN = ("add", "sin", "mul", "tanh", "sub")
X0 = 0.5


def chain_tf(tf, x):
    for i in range(N_CHAIN):
        op = CHAIN[i % 5]
        if op == "add":
            x = x + 0.1
        elif op == "sin":
            x = tf.sin(x)
        elif op == "mul":
            x = x * 1.0001
        elif op == "tanh":
            x = tf.tanh(x)
        else:
            x = x - 0.1
    return x


def build_chain_tf(tf, traced=False):
    """Forward + gradient of the chain; ``traced``: the same body inside ``tf.function``
    (benchmark g1), called with the tensor as its argument."""
    x = tf.constant(X0)

    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = chain_tf(tf, x)
        return y, tape.gradient(y, x)
    if traced:
        step = tf.function(step)
    return lambda: step(x)


def chain_numpy():
    """Forward keeping what the backward needs, then the hand-derived chain rule."""
    x = np.float32(X0)
    saved = []
    for i in range(N_CHAIN):
        op = CHAIN[i % 5]
        if op == "add":
            x = x + np.float32(0.1)
        elif op == "sin":
            saved.append(x)
            x = np.sin(x)
        elif op == "mul":
            x = x * np.float32(1.0001)
        elif op == "tanh":
            x = np.tanh(x)
            saved.append(x)
        else:
            x = x - np.float32(0.1)
    y = x
    g = np.float32(1.0)
    for i in reversed(range(N_CHAIN)):
        op = CHAIN[i % 5]
        if op == "sin":
            g = g * np.cos(saved.pop())
        elif op == "mul":
            g = g * np.float32(1.0001)
        elif op == "tanh":
            t = saved.pop()
            g = g * (np.float32(1) - t * t)
    return y, g


def _peer_chain_torch(torch):
    def run():
        x = torch.tensor(X0, dtype=torch.float32, requires_grad=True)
        y = x
        for i in range(N_CHAIN):
            op = CHAIN[i % 5]
            y = (y + 0.1 if op == "add" else torch.sin(y) if op == "sin" else
                 y * 1.0001 if op == "mul" else torch.tanh(y) if op == "tanh" else y - 0.1)
        (g,) = torch.autograd.grad(y, x)
        return g.item()
    return run, "torch eager"


def _peer_chain_jax(jax):
    jnp = jax.numpy

    def f(x):
        for i in range(N_CHAIN):
            op = CHAIN[i % 5]
            x = (x + 0.1 if op == "add" else jnp.sin(x) if op == "sin" else
                 x * 1.0001 if op == "mul" else jnp.tanh(x) if op == "tanh" else x - 0.1)
        return x
    vg = jax.jit(jax.value_and_grad(f))
    x = jnp.float32(X0)
    return (lambda: float(vg(x)[1])), "jax.jit"


def _peer_chain_autograd(autograd):
    anp = autograd.numpy

    def f(x):
        for i in range(N_CHAIN):
            op = CHAIN[i % 5]
            x = (x + 0.1 if op == "add" else anp.sin(x) if op == "sin" else
                 x * 1.0001 if op == "mul" else anp.tanh(x) if op == "tanh" else x - 0.1)
        return x
    g = autograd.grad(f)
    # autograd boxes NumPy scalars; a 0-d float32 array keeps the dtype
    x = np.array(X0, np.float32)
    return (lambda: float(g(x))), "autograd"


def _peer_chain_tf(tensorflow):
    run = build_chain_tf(tensorflow)
    return (lambda: float(run()[1])), "tensorflow eager"


def bench_a():
    fgrun = build_chain_tf(fg)
    PROFILE["a"] = fgrun
    y, g = fgrun()
    ny, ng = chain_numpy()
    ok = close(y.numpy(), ny) and close(g.numpy(), ng, rtol=1e-3)
    t = measure({"fg": fgrun, "np": chain_numpy}, repeats=7, round_s=0.15)
    us = lambda s: s / N_CHAIN * 1e6  # noqa: E731
    peers = run_peers("a", {"torch": _peer_chain_torch, "jax": _peer_chain_jax,
                            "tensorflow": _peer_chain_tf, "autograd": _peer_chain_autograd},
                      us, check=lambda r: close(r, ng, rtol=1e-3))
    fig = us(t["fg"]["min"])
    return [row("a", "1,000 chained scalar ops, fwd+grad", t, fig, "us/op", 8.0, ok, peers,
                np_figure=us(t["np"]["min"]))]


# --- (b) tanh MLP 784-1024-1024-10 ---------------------------------------------------------------

B_BATCH, B_SIZES = 256, (784, 1024, 1024, 10)


def mlp_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((B_BATCH, B_SIZES[0]), dtype=np.float32)
    labels = rng.integers(0, B_SIZES[-1], B_BATCH).astype(np.int32)
    params = []
    for i, o in zip(B_SIZES[:-1], B_SIZES[1:]):
        params.append((rng.standard_normal((i, o), dtype=np.float32) / np.float32(math.sqrt(i))))
        params.append(np.zeros(o, np.float32) + np.float32(0.01))
    return x, labels, params


def build_mlp_tf(tf, x, labels, params, sparse=True, traced=False):
    """One forward + all weight gradients; ``traced``: the same body inside ``tf.function``
    (benchmark g3; the variables are captured by reference)."""
    W1, b1, W2, b2, W3, b3 = [tf.Variable(p) for p in params]
    vs = [W1, b1, W2, b2, W3, b3]
    xt, lt = tf.constant(x), tf.constant(labels)
    onehot = tf.constant(np.eye(B_SIZES[-1], dtype=np.float32)[labels])

    def run():
        with tf.GradientTape() as tape:
            h1 = tf.tanh(tf.matmul(xt, W1) + b1)
            h2 = tf.tanh(tf.matmul(h1, W2) + b2)
            logits = tf.matmul(h2, W3) + b3
            if sparse:
                xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lt, logits=logits)
            else:
                xent = tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=logits)
            loss = tf.reduce_mean(xent)
        return loss, tape.gradient(loss, vs)
    return tf.function(run) if traced else run


def build_mlp_args(tf, params, signature):
    """The MLP step of g3 taking the batch as arguments; with ``signature``, traced once for
    every batch size (input_signature with None batch dimension), else per shape."""
    vs = [tf.Variable(p) for p in params]
    W1, b1, W2, b2, W3, b3 = vs
    sig = [tf.TensorSpec([None, params[0].shape[0]], tf.float32),
           tf.TensorSpec([None], tf.int32)] if signature else None

    @tf.function(input_signature=sig)
    def run(xt, lt):
        with tf.GradientTape() as tape:
            h1 = tf.tanh(tf.matmul(xt, W1) + b1)
            h2 = tf.tanh(tf.matmul(h1, W2) + b2)
            logits = tf.matmul(h2, W3) + b3
            xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lt, logits=logits)
            loss = tf.reduce_mean(xent)
        return loss, tape.gradient(loss, vs)
    return run


def mlp_numpy(x, labels, params):
    W1, b1, W2, b2, W3, b3 = params
    n = x.shape[0]
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    z = h2 @ W3 + b3
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, labels])
    dz = e / s
    dz[rows, labels] -= 1
    dz /= n
    dW3, db3 = h2.T @ dz, dz.sum(axis=0)
    da2 = (dz @ W3.T) * (1 - h2 * h2)
    dW2, db2 = h1.T @ da2, da2.sum(axis=0)
    da1 = (da2 @ W2.T) * (1 - h1 * h1)
    dW1, db1 = x.T @ da1, da1.sum(axis=0)
    return loss, [dW1, db1, dW2, db2, dW3, db3]


def _peer_mlp_torch(x, labels, params):
    def build(torch):
        ps = [torch.tensor(p, requires_grad=True) for p in params]
        xt, lt = torch.tensor(x), torch.tensor(labels, dtype=torch.long)

        def run():
            W1, b1, W2, b2, W3, b3 = ps
            h1 = torch.tanh(xt @ W1 + b1)
            h2 = torch.tanh(h1 @ W2 + b2)
            loss = torch.nn.functional.cross_entropy(h2 @ W3 + b3, lt)
            return [g.numpy() for g in torch.autograd.grad(loss, ps)]
        return run, "torch eager"
    return build


def _mlp_loss_np(anp, x, labels, onehot):
    def loss(ps):
        W1, b1, W2, b2, W3, b3 = ps
        h1 = anp.tanh(anp.dot(x, W1) + b1)
        h2 = anp.tanh(anp.dot(h1, W2) + b2)
        z = anp.dot(h2, W3) + b3
        m = anp.max(z, axis=1, keepdims=True)
        lse = anp.log(anp.sum(anp.exp(z - m), axis=1)) + m[:, 0]
        return anp.mean(lse - anp.sum(z * onehot, axis=1))
    return loss


def _peer_mlp_jax(x, labels, params):
    def build(jax):
        onehot = np.eye(B_SIZES[-1], dtype=np.float32)[labels]
        g = jax.jit(jax.grad(_mlp_loss_np(jax.numpy, x, labels, onehot)))
        ps = [jax.numpy.asarray(p) for p in params]
        return (lambda: [np.asarray(a) for a in jax.block_until_ready(g(ps))]), "jax.jit"
    return build


def _peer_mlp_autograd(x, labels, params):
    def build(autograd):
        onehot = np.eye(B_SIZES[-1], dtype=np.float32)[labels]
        g = autograd.grad(_mlp_loss_np(autograd.numpy, x, labels, onehot))
        return (lambda: g(list(params))), "autograd"
    return build


def _peer_mlp_tf(x, labels, params):
    def build(tensorflow):
        run = build_mlp_tf(tensorflow, x, labels, params)
        return (lambda: [g.numpy() for g in run()[1]]), "tensorflow eager"
    return build


def bench_b():
    x, labels, params = mlp_data()
    fgrun = build_mlp_tf(fg, x, labels, params, sparse=True)
    fgrun_dense = build_mlp_tf(fg, x, labels, params, sparse=False)
    nprun = lambda: mlp_numpy(x, labels, params)  # noqa: E731
    PROFILE["b"] = fgrun
    loss, grads = fgrun()
    nloss, ngrads = nprun()
    _, dgrads = fgrun_dense()
    ok = close(loss.numpy(), nloss, rtol=1e-4) and all(
        close(g.numpy(), n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(grads, ngrads)) and all(
        close(g.numpy(), n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(dgrads, ngrads))
    t = measure({"fg": fgrun, "np": nprun, "fg_dense": fgrun_dense}, repeats=5, round_s=0.15)
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731
    check = lambda r: all(close(np.asarray(g), n, rtol=2e-3, atol_scale=1e-4)  # noqa: E731
                          for g, n in zip(r, ngrads))
    peers = run_peers("b", {"torch": _peer_mlp_torch(x, labels, params),
                            "jax": _peer_mlp_jax(x, labels, params),
                            "tensorflow": _peer_mlp_tf(x, labels, params),
                            "autograd": _peer_mlp_autograd(x, labels, params)}, None, check,
                      baseline=nprun)
    mem_fg = max(peak_memory(fgrun) for _ in range(2))
    mem_np = max(peak_memory(nprun) for _ in range(2))
    mem_fgd = peak_memory(fgrun_dense)
    rows = [
        row("b", "tanh MLP 784-1024-1024-10 b=256, sparse xent: time", t,
            ratio(t["fg"]["min"]), "x NumPy", 1.15, ok, peers),
        row("b", "  same, dense softmax_cross_entropy_with_logits: time",
            {"fg": t["fg_dense"], "np": t["np"]}, ratio(t["fg_dense"]["min"]), "x NumPy", 1.15,
            ok, {}),
        row("b", "  sparse xent: peak memory (tracemalloc)",
            {"fg": {"bytes": mem_fg}, "np": {"bytes": mem_np}}, mem_fg / mem_np, "x NumPy", 1.3,
            ok, {}),
        row("b", "  dense xent: peak memory (tracemalloc)",
            {"fg": {"bytes": mem_fgd}, "np": {"bytes": mem_np}}, mem_fgd / mem_np, "x NumPy",
            1.3, ok, {}),
    ]
    return rows


# --- (c) gradient of sum(log(1 + exp(x))), 10^7 float32 ------------------------------------------

N_C = 10 ** 7


def bench_c():
    x = np.random.default_rng(1).standard_normal(N_C, dtype=np.float32)
    xt = fg.constant(x)

    def fgrun():
        with fg.GradientTape() as tape:
            tape.watch(xt)
            y = fg.reduce_sum(fg.math.log(1 + fg.exp(xt)))
        return y, tape.gradient(y, xt)

    def nprun():
        e = np.exp(x)
        s = 1 + e
        y = np.sum(np.log(s))
        return y, e / s   # d/dx log(1 + e^x) = e^x / (1 + e^x)

    PROFILE["c"] = fgrun
    y, g = fgrun()
    ny, ng = nprun()
    ok = close(y.numpy(), ny, rtol=1e-4) and close(g.numpy(), ng, rtol=1e-5)
    t = measure({"fg": fgrun, "np": nprun}, repeats=5, round_s=0.05)
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731

    def torch_b(torch):
        xt_ = torch.tensor(x)

        def run():
            xx = xt_.detach().requires_grad_(True)
            (gg,) = torch.autograd.grad(torch.sum(torch.log(1 + torch.exp(xx))), xx)
            return gg.numpy()
        return run, "torch eager"

    def jax_b(jax):
        jnp = jax.numpy
        gf = jax.jit(jax.grad(lambda v: jnp.sum(jnp.log(1 + jnp.exp(v)))))
        xj = jnp.asarray(x)
        return (lambda: np.asarray(jax.block_until_ready(gf(xj)))), "jax.jit"

    def tf_b(tf):
        xx = tf.constant(x)

        def run():
            with tf.GradientTape() as tape:
                tape.watch(xx)
                y = tf.reduce_sum(tf.math.log(1 + tf.exp(xx)))
            return tape.gradient(y, xx).numpy()
        return run, "tensorflow eager"

    def ag_b(autograd):
        anp = autograd.numpy
        gf = autograd.grad(lambda v: anp.sum(anp.log(1 + anp.exp(v))))
        return (lambda: gf(x)), "autograd"

    peers = run_peers("c", {"torch": torch_b, "jax": jax_b, "tensorflow": tf_b,
                            "autograd": ag_b}, None, lambda r: close(r, ng, rtol=1e-5),
                      baseline=nprun)
    return [row("c", "grad of sum(log(1+exp(x))), 10^7 float32", t, ratio(t["fg"]["min"]),
                "x NumPy", 1.2, ok, peers)]


# --- (d) Hessian-vector product of the extended Rosenbrock function -----------------------------

N_D = 10 ** 5


def rosen_tf(tf, x):
    xo, xe = x[0::2], x[1::2]
    return tf.reduce_sum(100. * tf.square(xe - tf.square(xo)) + tf.square(1. - xo))


def build_hvp_tf(tf, x, v):
    xt, vt = tf.constant(x), tf.constant(v)

    def run():
        with tf.autodiff.ForwardAccumulator(xt, vt) as acc:
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = rosen_tf(tf, xt)
            g = tape.gradient(y, xt)
        return acc.jvp(g)
    return run


def hvp_numpy(x, v):
    """The Hessian of 100 (b - a^2)^2 + (1 - a)^2 per pair (a, b) = (x[2i], x[2i+1]), times v."""
    a, b = x[0::2], x[1::2]
    va, vb = v[0::2], v[1::2]
    out = np.empty_like(x)
    out[0::2] = (1200 * a * a - 400 * b + 2) * va - 400 * a * vb
    out[1::2] = 200 * vb - 400 * a * va
    return out


def bench_d():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(N_D)
    v = rng.standard_normal(N_D)
    fgrun = build_hvp_tf(fg, x, v)
    nprun = lambda: hvp_numpy(x, v)  # noqa: E731
    PROFILE["d"] = fgrun
    ok = close(fgrun().numpy(), nprun(), rtol=1e-10, atol_scale=1e-12)
    t = measure({"fg": fgrun, "np": nprun}, repeats=7, round_s=0.08)
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731
    want = nprun()

    def torch_b(torch):
        xt, vt = torch.tensor(x), torch.tensor(v)

        def f(z):
            return torch.sum(100. * (z[1::2] - z[0::2] ** 2) ** 2 + (1. - z[0::2]) ** 2)

        def run():  # reverse-over-reverse: PyTorch eager's usual HVP
            z = xt.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(f(z), z, create_graph=True)
            (h,) = torch.autograd.grad(g, z, vt)
            return h.numpy()
        return run, "torch eager (rev-over-rev)"

    def jax_b(jax):
        jnp = jax.numpy

        def f(z):
            return jnp.sum(100. * (z[1::2] - z[0::2] ** 2) ** 2 + (1. - z[0::2]) ** 2)
        hvp = jax.jit(lambda z, w: jax.jvp(jax.grad(f), (z,), (w,))[1])
        xj, vj = jnp.asarray(x), jnp.asarray(v)
        return (lambda: np.asarray(jax.block_until_ready(hvp(xj, vj)))), "jax.jit (fwd-over-rev)"

    def tf_b(tf):
        run = build_hvp_tf(tf, x, v)
        return (lambda: run().numpy()), "tensorflow eager"

    def ag_b(autograd):
        anp = autograd.numpy

        def f(z):
            return anp.sum(100. * (z[1::2] - z[0::2] ** 2) ** 2 + (1. - z[0::2]) ** 2)
        from autograd import hessian_tensor_product
        h = hessian_tensor_product(f)
        return (lambda: h(x, v)), "autograd (rev-over-rev)"

    peers = run_peers("d", {"torch": torch_b, "jax": jax_b, "tensorflow": tf_b,
                            "autograd": ag_b}, None, lambda r: close(r, want, rtol=1e-8),
                      baseline=nprun)
    return [row("d", "Rosenbrock HVP n=10^5 f64, fwd-over-rev", t, ratio(t["fg"]["min"]),
                "x NumPy", 3.0, ok, peers)]


# --- (e) full 200x200 Jacobian of tanh(W x) ------------------------------------------------------

N_E = 200


def build_jac_tf(tf, W, x):
    Wt, xt = tf.constant(W), tf.constant(x)

    def run():
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.tanh(tf.linalg.matvec(Wt, xt))
        return tape.jacobian(y, xt)
    return run


def bench_e():
    rng = np.random.default_rng(3)
    W = (rng.standard_normal((N_E, N_E), dtype=np.float32) / np.float32(math.sqrt(N_E)))
    x = rng.standard_normal(N_E, dtype=np.float32)
    fgrun = build_jac_tf(fg, W, x)

    def nprun():
        y = np.tanh(W @ x)
        return (1 - y * y)[:, None] * W

    PROFILE["e"] = fgrun
    want = nprun()
    ok = close(fgrun().numpy(), want, rtol=1e-4)
    t = measure({"fg": fgrun, "np": nprun}, repeats=7, round_s=0.05)
    ms = lambda s: s * 1e3  # noqa: E731

    def torch_b(torch):
        Wt, xt = torch.tensor(W), torch.tensor(x)
        f = lambda z: torch.tanh(Wt @ z)  # noqa: E731
        return (lambda: torch.autograd.functional.jacobian(f, xt).numpy()), \
            "torch eager (functional.jacobian)"

    def jax_b(jax):
        jnp = jax.numpy
        jf = jax.jit(jax.jacrev(lambda z: jnp.tanh(jnp.asarray(W) @ z)))
        xj = jnp.asarray(x)
        return (lambda: np.asarray(jax.block_until_ready(jf(xj)))), "jax.jit (jacrev)"

    def tf_b(tf):
        run = build_jac_tf(tf, W, x)
        return (lambda: run().numpy()), "tensorflow eager"

    def ag_b(autograd):
        anp = autograd.numpy
        jf = autograd.jacobian(lambda z: anp.tanh(anp.dot(W, z)))
        return (lambda: jf(x)), "autograd"

    peers = run_peers("e", {"torch": torch_b, "jax": jax_b, "tensorflow": tf_b,
                            "autograd": ag_b}, ms, lambda r: close(r, want, rtol=1e-4))
    return [row("e", "200x200 Jacobian of tanh(W x) (tape.jacobian)", t, ms(t["fg"]["min"]),
                "ms", 3.0, ok, peers, np_figure=ms(t["np"]["min"]))]


# --- (f) custom_gradient log1pexp (issue 3) ------------------------------------------------------

N_F = 10 ** 6


def make_log1pexp(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    return log1pexp


def build_custom_tf(tf, x, custom=True):
    fn = make_log1pexp(tf) if custom else (lambda z: tf.math.log(1 + tf.exp(z)))
    xt = tf.constant(x)

    def run():
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = fn(xt)
        return y, tape.gradient(y, xt)
    return run


def log1pexp_numpy(x):
    e = np.exp(x)
    return np.log(1 + e), 1 - 1 / (1 + e)


def bench_f():
    xs = np.float32(3.0)
    xv = np.random.default_rng(4).standard_normal(N_F, dtype=np.float32)
    cs, ps = build_custom_tf(fg, xs), build_custom_tf(fg, xs, custom=False)
    cv, pv = build_custom_tf(fg, xv), build_custom_tf(fg, xv, custom=False)
    PROFILE["f"], PROFILE["f-vector"] = cs, cv
    ys, gs = log1pexp_numpy(xs)
    yv, gv = log1pexp_numpy(xv)
    ok_s = all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(cs(), (ys, gs))) and \
        all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(ps(), (ys, gs)))
    ok_v = all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(cv(), (yv, gv)))
    # the custom rule is the point: at x = 100 it gives 1.0 where the plain one gives nan
    big = build_custom_tf(fg, np.float32(100.))()[1].numpy()
    ok_s = ok_s and float(big) == 1.0
    ts = measure({"fg": cs, "plain": ps, "np": lambda: log1pexp_numpy(xs)}, repeats=7,
                 round_s=0.08)
    tv = measure({"fg": cv, "np": lambda: log1pexp_numpy(xv), "plain": pv}, repeats=7,
                 round_s=0.05)
    us = lambda s: s * 1e6  # noqa: E731

    def torch_b(torch, x):
        class Log1pexp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                e = torch.exp(z)
                ctx.save_for_backward(e)
                return torch.log(1 + e)

            @staticmethod
            def backward(ctx, dy):
                (e,) = ctx.saved_tensors
                return dy * (1 - 1 / (1 + e))
        xt = torch.tensor(x)

        def run():
            z = xt.detach().requires_grad_(True)
            y = Log1pexp.apply(z)
            (g,) = torch.autograd.grad(y, z, torch.ones_like(y))
            return g.numpy()
        return run, "torch autograd.Function"

    def jax_b(jax, x):
        jnp = jax.numpy

        @jax.custom_vjp
        def f(z):
            return jnp.log(1 + jnp.exp(z))

        def fwd(z):
            e = jnp.exp(z)
            return jnp.log(1 + e), e

        def bwd(e, dy):
            return (dy * (1 - 1 / (1 + e)),)
        f.defvjp(fwd, bwd)
        xj = jnp.asarray(x)

        def fg_(z):
            y, vjp = jax.vjp(f, z)
            return y, vjp(jnp.ones_like(y))[0]
        run = jax.jit(fg_)
        return (lambda: np.asarray(jax.block_until_ready(run(xj))[1])), "jax.jit custom_vjp"

    def tf_b(tf, x):
        run = build_custom_tf(tf, x)
        return (lambda: run()[1].numpy()), "tensorflow eager"

    def ag_b(autograd, x):
        from autograd.extend import primitive, defvjp
        anp = autograd.numpy

        @primitive
        def f(z):
            return np.log(1 + np.exp(z))
        defvjp(f, lambda ans, z: lambda dy: dy * (1 - 1 / (1 + anp.exp(z))))
        gf = autograd.elementwise_grad(f)
        return (lambda: gf(x)), "autograd primitive"

    bind = lambda b, x: (lambda mod: b(mod, x))  # noqa: E731
    peers_s = run_peers("f", {"torch": bind(torch_b, np.array(xs)), "jax": bind(jax_b, xs),
                              "tensorflow": bind(tf_b, xs),
                              "autograd": bind(ag_b, np.array(xs))},
                        us, lambda r: close(r, gs, rtol=1e-5))
    ratio_v = lambda s: s / tv["np"]["min"]  # noqa: E731
    peers_v = run_peers("f", {"torch": bind(torch_b, xv), "jax": bind(jax_b, xv),
                              "tensorflow": bind(tf_b, xv), "autograd": bind(ag_b, xv)},
                        None, lambda r: close(r, gv, rtol=1e-5),
                        baseline=lambda: log1pexp_numpy(xv))
    return [
        row("f", "custom_gradient log1pexp, f32 scalar, fwd+grad", ts, us(ts["fg"]["min"]),
            "us/call", 15.0, ok_s, peers_s, np_figure=us(ts["np"]["min"])),
        row("f", "  same: custom vs plain ops (log(1+exp(x)))",
            {"fg": ts["fg"], "np": ts["plain"]}, ts["fg"]["min"] / ts["plain"]["min"],
            "x plain", 1.5, ok_s, {}, baseline="plain ops"),
        row("f", "  custom log1pexp, 10^6 f32, fwd+grad", tv, ratio_v(tv["fg"]["min"]),
            "x NumPy", 1.1, ok_v, peers_v),
        row("f", "  (info) plain ops log(1+exp(x)), 10^6 f32", {"fg": tv["plain"], "np": tv["np"]},
            ratio_v(tv["plain"]["min"]), "x NumPy", None, ok_v, {}),
    ]


# --- (g) traced variants: finegrad.function (issue 4) -------------------------------------------

def compiled_graphs(fn):
    """The compiled graphs (``ir.Compiled``) that one call of ``fn`` executes (found by
    watching ``Compiled.run`` during the call; nothing in finegrad is changed)."""
    from finegrad._src.graph import ir
    seen, orig = [], ir.Compiled.run

    def spy(self, *a, **k):
        seen.append(self)
        return orig(self, *a, **k)
    ir.Compiled.run = spy
    try:
        fn()
    finally:
        ir.Compiled.run = orig
    return list(dict.fromkeys(seen))


def _step_kind(f, kwargs):
    if "out" in kwargs:
        return "out=pooled"
    q = getattr(f, "__qualname__", "") or ""
    if "_inplace" in q:
        return "in place"
    if isinstance(f, np.ufunc):
        return "fresh"
    return "impl"


def graph_breakdown(key, fn, calls=5, top=16):
    """Split a traced function's time into its compiled graph's steps (by primitive, input
    shapes and how the step writes its result: ``in place`` into a dying input,
    ``out=pooled`` into a recycled buffer, ``fresh`` new array from a ufunc, ``impl`` the
    primitive's implementation) and the rest: the ``Compiled.run`` loop, the call's
    signature lookup and argument/output wrapping (Python overhead)."""
    comps = compiled_graphs(fn)
    if not comps:
        print(f"\n--- ({key}): no compiled graph ran ---")
        return
    fn()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    total = (time.perf_counter() - t0) / calls
    # what perf_counter itself adds to each timed step (subtracted below)
    t = time.perf_counter()
    for _ in range(1000):
        time.perf_counter()
    tick = (time.perf_counter() - t) / 1000
    stats, saved = {}, [(c, c.steps) for c in comps]
    for c, steps in saved:
        nodes = c.graph.nodes if len(c.graph.nodes) == len(steps) else [None] * len(steps)
        new = []
        for n, st in zip(nodes, steps):
            name = "?" if n is None else n.prim.name
            shapes = () if n is None else tuple(tuple(c.graph.meta.get(s, ("?",))[0])
                                                for s in n.ins)

            def timed(*a, _f=st[0], _label=(name, shapes), **k):
                t = time.perf_counter()
                r = _f(*a, **k)
                dt = time.perf_counter() - t - tick
                s = stats.setdefault(_label + (_step_kind(_f, k),), [0, 0.0])
                s[0] += 1
                s[1] += dt
                return r
            new.append((timed,) + tuple(st[1:]))
        c.steps = new
    try:
        fn()
        stats.clear()
        for _ in range(calls):
            fn()
    finally:
        for c, steps in saved:
            c.steps = steps
    work = sum(v[1] for v in stats.values()) / calls
    n_steps = sum(len(s) for _, s in saved)
    print(f"\n--- ({key}) traced, per call: {total * 1e3:.3f} ms, of which the {n_steps} "
          f"compiled steps' own work {work * 1e3:.3f} ms and the rest (run loop, call "
          f"overhead) {(total - work) * 1e3:.3f} ms = {(total - work) / n_steps * 1e6:.2f} "
          f"us per step ---")
    for (name, shapes, kind), (n, dt) in sorted(stats.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {dt / calls * 1e3:9.3f} ms  x{n // calls:<5d} {name} {shapes} [{kind}]")


def _check_same(got, want, rtol=1e-5):
    return all(close(g.numpy() if hasattr(g, "numpy") else g,
                     w.numpy() if hasattr(w, "numpy") else w, rtol=rtol)
               for g, w in zip(got, want, strict=True))


def _peer_tf_function(build, check, metric=None):
    """Time TensorFlow's tf.function beside its eager run of the same code. ``build(tf,
    traced)`` returns a callable. Returns the peers dict of a row."""
    tf = PEERS.get("tensorflow")
    if tf is None:
        return {}
    try:
        tfn, eager = build(tf, True), build(tf, False)
        ok = bool(check(tfn()))
        t = measure({"tf.function": tfn, "tf eager": eager}, repeats=5)
        fig = metric(t["tf.function"]["min"]) if metric else \
            t["tf.function"]["min"] / t["tf eager"]["min"]
        return {"tensorflow tf.function": {"seconds": t["tf.function"]["min"], "figure": fig,
                                           "grad_ok": ok}}
    except Exception as e:  # noqa: BLE001 - a peer failing must not stop the run
        return {"tensorflow tf.function": {"error": f"{type(e).__name__}: {str(e)[:120]}"}}


def bench_g1():
    eager = build_chain_tf(fg)
    traced = build_chain_tf(fg, traced=True)
    xg = fg.constant(X0)

    @fg.function
    def chain_gradients(x):   # the symbolic-gradient spelling, TensorFlow 1 style
        y = chain_tf(fg, x)
        return y, fg.gradients(y, x)[0]
    symbolic = lambda: chain_gradients(xg)  # noqa: E731
    PROFILE["g1"] = traced
    ny, ng = chain_numpy()
    want = eager()
    ok = _check_same(traced(), want) and _check_same(symbolic(), want) and \
        close(want[1].numpy(), ng, rtol=1e-3)
    t = measure({"fg": traced, "eager": eager, "np": chain_numpy, "sym": symbolic},
                repeats=7, round_s=0.15)
    us = lambda s: s / N_CHAIN * 1e6  # noqa: E731
    peers = _peer_tf_function(lambda tf, tr: (lambda r=build_chain_tf(tf, tr): r()[1].numpy()),
                              lambda r: close(r, ng, rtol=1e-3), us)
    return [
        row("g1", "1,000 chained scalar ops traced (tape in fg.function), fwd+grad", t,
            us(t["fg"]["min"]), "us/op", 1.5, ok, peers, np_figure=us(t["np"]["min"])),
        row("g1", "  same: traced vs eager (>= 3x faster)", {"fg": t["fg"], "np": t["eager"]},
            t["fg"]["min"] / t["eager"]["min"], "x eager", 1 / 3, ok, {}, baseline="eager"),
        row("g1", "  (info) fg.gradients in fg.function instead of a tape",
            {"fg": t["sym"], "np": t["np"]}, us(t["sym"]["min"]), "us/op", None, ok, {}),
    ]


def build_log1pexp_sum_tf(tf, x, traced=False):
    xt = tf.constant(x)

    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.math.log(1 + tf.exp(x)))
        return y, tape.gradient(y, x)
    if traced:
        step = tf.function(step)
    return lambda: step(xt)


def bench_g2():
    x = np.random.default_rng(1).standard_normal(N_C, dtype=np.float32)
    eager = build_log1pexp_sum_tf(fg, x)
    traced = build_log1pexp_sum_tf(fg, x, traced=True)

    def nprun():   # as in (c)
        e = np.exp(x)
        s = 1 + e
        return np.sum(np.log(s)), e / s

    PROFILE["g2"] = traced
    y, g = traced()
    ny, ng = nprun()
    ok = _check_same((y, g), eager()) and close(y.numpy(), ny, rtol=1e-4) and \
        close(g.numpy(), ng, rtol=1e-5)
    del y, g
    t = measure({"fg": traced, "np": nprun, "eager": eager}, repeats=5, round_s=0.05)
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731

    def tf_b(tf):
        run = build_log1pexp_sum_tf(tf, x, traced=True)
        return (lambda: run()[1].numpy()), "tensorflow tf.function"

    def jax_b(jax):
        jnp = jax.numpy
        gf = jax.jit(jax.grad(lambda v: jnp.sum(jnp.log(1 + jnp.exp(v)))))
        xj = jnp.asarray(x)
        return (lambda: np.asarray(jax.block_until_ready(gf(xj)))), "jax.jit"

    held = {k: held_memory(lambda tr=tr: build_log1pexp_sum_tf(fg, x, traced=tr))
            for k, tr in (("traced", True), ("eager", False))}
    peers = run_peers("g2", {"tensorflow": tf_b, "jax": jax_b}, None,
                      lambda r: close(r, ng, rtol=1e-5), baseline=nprun)
    return [
        row("g2", "grad of sum(log(1+exp(x))), 10^7 f32, traced", t, ratio(t["fg"]["min"]),
            "x NumPy", 0.6, ok, peers),
        row("g2", "  (info) held between calls (input, graph constants, buffer cache)",
            {"fg": {"bytes": held["traced"]}, "np": {"bytes": held["eager"]}},
            (held["traced"] - held["eager"]) / 2 ** 20, "MiB more", None, ok, {},
            baseline="eager"),
        row("g2", "  (info) same, eager (as in c)", {"fg": t["eager"], "np": t["np"]},
            ratio(t["eager"]["min"]), "x NumPy", None, ok, {}),
    ]


def bench_g3():
    x, labels, params = mlp_data()
    eager = build_mlp_tf(fg, x, labels, params)
    traced = build_mlp_tf(fg, x, labels, params, traced=True)
    nprun = lambda: mlp_numpy(x, labels, params)  # noqa: E731
    PROFILE["g3"] = traced
    (tl, tg), (el, eg) = traced(), eager()
    nl, ng = nprun()
    ok = _check_same([tl] + list(tg), [el] + list(eg), rtol=1e-5) and \
        close(tl.numpy(), nl, rtol=1e-4) and all(
            close(g.numpy(), n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(tg, ng))
    del tl, tg, el, eg
    t = measure({"fg": traced, "eager": eager, "np": nprun}, repeats=5, round_s=0.15)
    mem_tr = max(peak_memory(traced) for _ in range(2))
    mem_eager = max(peak_memory(eager) for _ in range(2))
    mem_np = max(peak_memory(nprun) for _ in range(2))
    held = {k: held_memory(lambda tr=tr: build_mlp_tf(fg, x, labels, params, traced=tr))
            for k, tr in (("traced", True), ("eager", False))}
    # one graph for every batch size (input_signature [None, 784]) against a graph for this
    # batch size only: the same compiled steps once a size has been seen
    xt, lt = fg.constant(x), fg.constant(labels)
    poly, fixed = build_mlp_args(fg, params, True), build_mlp_args(fg, params, False)
    half = x.shape[0] // 2
    poly(fg.constant(x[:half]), fg.constant(labels[:half]))   # traced at another size
    (pl, pg), (fl, fgr) = poly(xt, lt), fixed(xt, lt)
    ok_poly = poly.experimental_get_tracing_count() == 1 and \
        _check_same([pl] + list(pg), [fl] + list(fgr), rtol=1e-5)
    del pl, pg, fl, fgr
    tp = measure({"fg": lambda: poly(xt, lt), "np": lambda: fixed(xt, lt)}, repeats=5,
                 round_s=0.15)

    def tf_build(tf, tr):
        run = build_mlp_tf(tf, x, labels, params, traced=tr)
        return lambda: [g.numpy() for g in run()[1]]
    peers = _peer_tf_function(tf_build, lambda r: all(
        close(g, n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(r, ng)))
    return [
        row("g3", "tanh MLP step (as in b) traced: time vs eager", {"fg": t["fg"],
            "np": t["eager"]}, t["fg"]["min"] / t["eager"]["min"], "x eager", 1.0, ok, peers,
            baseline="eager"),
        row("g3", "  same: peak memory (tracemalloc) vs eager (lower)",
            {"fg": {"bytes": mem_tr}, "np": {"bytes": mem_eager}}, mem_tr / mem_eager,
            "x eager", 1.0, ok, {}, baseline="eager", strict=True),
        row("g3", "  (info) held between calls (weights, graph constants, buffer cache)",
            {"fg": {"bytes": held["traced"]}, "np": {"bytes": held["eager"]}},
            (held["traced"] - held["eager"]) / 2 ** 20, "MiB more", None, ok, {},
            baseline="eager"),
        row("g3", "  (info) traced time vs NumPy by hand", t, t["fg"]["min"] / t["np"]["min"],
            "x NumPy", None, ok, {}),
        row("g3", "  (info) traced peak memory vs NumPy by hand",
            {"fg": {"bytes": mem_tr}, "np": {"bytes": mem_np}}, mem_tr / mem_np, "x NumPy",
            None, ok, {}),
        row("g3", "  (info) one graph for every batch size vs one for this size", tp,
            tp["fg"]["min"] / tp["np"]["min"], "x fixed-shape graph", None, ok_poly, {},
            baseline="fixed-shape graph"),
    ]


# --- reporting ----------------------------------------------------------------------------------

def row(key, desc, t, figure, unit, target, grad_ok, peers, np_figure=None, baseline="NumPy",
        strict=False):
    """One table row; PASS when ``figure <= target`` (``figure < target`` when ``strict``)."""
    passed = target is not None and (figure < target if strict else figure <= target)
    r = {"bench": key, "desc": desc, "figure": figure, "unit": unit, "target": target,
         "strict": strict, "status": "INFO" if target is None else ("PASS" if passed else "MISS"),
         "grad_ok": grad_ok, "finegrad": t["fg"], "baseline": t["np"],
         "baseline_name": baseline, "peers": peers}
    if np_figure is not None:
        r["numpy_figure"] = np_figure
    return r


def _fmt_t(d):
    if "bytes" in d:
        return f"{d['bytes'] / 2 ** 20:.1f} MiB"
    s = d["min"]
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def _fmt_fig(v, unit):
    if unit.startswith("x"):
        return f"{v:.2f}{unit.split()[0]}"
    return f"{v:.2f} {unit}"


def print_table(rows):
    head = ("bench", "what", "finegrad", "baseline", "figure", "target", "status", "grad")
    lines = []
    for r in rows:
        tgt = "-" if r["target"] is None else (("< " if r.get("strict") else "<= ") +
                                               _fmt_fig(r["target"], r["unit"]))
        fig = _fmt_fig(r["figure"], r["unit"])
        if "numpy_figure" in r:
            fig += f" (NumPy {_fmt_fig(r['numpy_figure'], r['unit'])})"
        lines.append((r["bench"], r["desc"], _fmt_t(r["finegrad"]), _fmt_t(r["baseline"]), fig,
                      tgt, r["status"], {True: "ok", False: "DIFF", None: "-"}[r["grad_ok"]]))
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    print(fmt.format(*head))
    print("  ".join("-" * w for w in widths))
    for ln in lines:
        print(fmt.format(*ln))
    peer_lines = []
    for r in rows:
        for label, p in r["peers"].items():
            if "error" in p:
                peer_lines.append(f"  ({r['bench']}) {label}: skipped, {p['error']}")
            else:
                ok = {True: "", False: "  [gradient differs]", None: ""}[p["grad_ok"]]
                peer_lines.append(f"  ({r['bench']}) {label}: {_fmt_fig(p['figure'], r['unit'])}"
                                  f"  ({p['seconds'] * 1e3:.3f} ms/call){ok}")
    print()
    if peer_lines:
        print("Peers (same figure as the row's target):")
        print("\n".join(peer_lines))
    missing = [n for n in PEER_NAMES if n not in PEERS]
    if missing:
        print(f"Peers not importable, skipped: {', '.join(missing)}")


BENCHES = {"a": bench_a, "b": bench_b, "c": bench_c, "d": bench_d, "e": bench_e, "f": bench_f,
           "g1": bench_g1, "g2": bench_g2, "g3": bench_g3}
GROUPS = {"g": ("g1", "g2", "g3")}   # --only g: every traced benchmark


def main(argv=None):
    global QUICK, SCALE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(BENCHES)
                    + " (g: g1,g2,g3)")
    ap.add_argument("--json", default=None, help="write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    ap.add_argument("--no-peers", action="store_true", help="do not import or time peers")
    ap.add_argument("--rounds-scale", type=float, default=1.0,
                    help="multiply the number of timed rounds (more: steadier minimum)")
    ap.add_argument("--profile", action="store_true",
                    help="after the table, cProfile finegrad's side of each selected benchmark")
    args = ap.parse_args(argv)
    QUICK, SCALE = args.quick, args.rounds_scale
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or list(BENCHES)
    keys = list(dict.fromkeys(g for k in keys for g in GROUPS.get(k, (k,))))
    bad = [k for k in keys if k not in BENCHES]
    if bad:
        ap.error(f"unknown benchmark(s) {bad}; choose from {','.join(BENCHES)}")
    if not args.no_peers:
        load_peers(PEER_NAMES)
    print(f"finegrad {fg.__version__}, NumPy {np.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"figures are the minimum over interleaved rounds")
    t0 = time.perf_counter()
    rows = []
    for k in keys:
        t1 = time.perf_counter()
        rows += BENCHES[k]()
        print(f"  [{k}] done in {time.perf_counter() - t1:.1f} s", file=sys.stderr, flush=True)
    print()
    print_table(rows)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    if args.profile:
        for k, fn in PROFILE.items():
            if k.startswith("g"):   # traced: the compiled graph's steps, not primitive impls
                graph_breakdown(k, fn)
            else:
                impl_breakdown(k, fn)
            profile(k, fn)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"numpy": np.__version__, "python": platform.python_version(),
                       "cpus": os.cpu_count(), "peers": sorted(PEERS),
                       "timing": "min over interleaved rounds (median also given)",
                       "rows": rows}, fh, indent=2, default=float)
    return 0 if all(r["grad_ok"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Eager benchmarks a-f: finegrad under a tape against the same math by hand in NumPy."""
import math

import numpy as np

from harness import PROFILE, close, fg, measure, peak_memory, row, run_peers
from log1pexp_rules import jax_log1pexp, tf_log1pexp, torch_log1pexp

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
    for i, o in zip(B_SIZES[:-1], B_SIZES[1:], strict=True):
        params.append(rng.standard_normal((i, o), dtype=np.float32) / np.float32(math.sqrt(i)))
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
        close(g.numpy(), n, rtol=2e-3, atol_scale=1e-4)
        for gs in (grads, dgrads) for g, n in zip(gs, ngrads, strict=True))
    t = measure({"fg": fgrun, "np": nprun, "fg_dense": fgrun_dense}, repeats=5, round_s=0.15)
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731
    check = lambda r: all(close(np.asarray(g), n, rtol=2e-3, atol_scale=1e-4)  # noqa: E731
                          for g, n in zip(r, ngrads, strict=True))
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
    t = measure(_with_fast_off({"fg": fgrun, "np": nprun}), repeats=5, round_s=0.05)

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
    return _c_rows(t, ok, peers)


def _with_fast_off(fns):
    """``fns`` and, when the fast path is on, ``nofast``: finegrad's side with it off."""
    from finegrad._src import threads
    if not threads.on():
        return fns

    def fgrun_off():
        with threads.switched(False):
            return fns["fg"]()
    return {**fns, "nofast": fgrun_off}


def _c_rows(t, ok, peers):
    """Benchmark c's rows; targets 0.8x NumPy with the fast path (threads), 1.15x without."""
    ratio = lambda s: s / t["np"]["min"]  # noqa: E731
    on = "nofast" in t
    rows = [row("c", "grad of sum(log(1+exp(x))), 10^7 float32" + (", fast path" if on else ""),
                t, ratio(t["fg"]["min"]), "x NumPy", 0.8 if on else 1.15, ok, peers)]
    if on:
        rows.append(row("c", "  same, fast path off (one thread)",
                        {"fg": t["nofast"], "np": t["np"]}, ratio(t["nofast"]["min"]),
                        "x NumPy", 1.15, ok, {}))
    return rows


# --- (d) Hessian-vector product of the extended Rosenbrock function -----------------------------

N_D = 10 ** 5


def rosen_tf(tf, x):
    xo, xe = x[0::2], x[1::2]
    return tf.reduce_sum(100. * tf.square(xe - tf.square(xo)) + tf.square(1. - xo))


def build_hvp_tf(tf, x, v, traced=False):
    """Forward over reverse; ``traced``: the same inside ``tf.function`` (benchmark g4)."""
    xt, vt = tf.constant(x), tf.constant(v)

    def hvp(xt, vt):
        with tf.autodiff.ForwardAccumulator(xt, vt) as acc:
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = rosen_tf(tf, xt)
            g = tape.gradient(y, xt)
        return acc.jvp(g)
    if traced:
        hvp = tf.function(hvp)
    return lambda: hvp(xt, vt)


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


def build_jac_tf(tf, W, x, traced=False):
    """``traced``: the same inside ``tf.function`` (benchmark g5)."""
    Wt, xt = tf.constant(W), tf.constant(x)

    def jac(Wt, xt):
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.tanh(tf.linalg.matvec(Wt, xt))
        return tape.jacobian(y, xt)
    if traced:
        jac = tf.function(jac)
    return lambda: jac(Wt, xt)


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


# --- (f) custom_gradient log1pexp ------------------------------------------------------------

N_F = 10 ** 6


def build_custom_tf(tf, x, custom=True):
    fn = tf_log1pexp(tf) if custom else (lambda z: tf.math.log(1 + tf.exp(z)))
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


# the peers' forms of the custom log1pexp: builder(module, x) -> (run, label)

def _log1pexp_torch(torch, x):
    apply = torch_log1pexp(torch)
    xt = torch.tensor(x)

    def run():
        z = xt.detach().requires_grad_(True)
        y = apply(z)
        (g,) = torch.autograd.grad(y, z, torch.ones_like(y))
        return g.numpy()
    return run, "torch autograd.Function"


def _log1pexp_jax(jax, x):
    jnp = jax.numpy
    f = jax_log1pexp(jax)
    xj = jnp.asarray(x)

    def fg_(z):
        y, vjp = jax.vjp(f, z)
        return y, vjp(jnp.ones_like(y))[0]
    run = jax.jit(fg_)
    return (lambda: np.asarray(jax.block_until_ready(run(xj))[1])), "jax.jit custom_vjp"


def _log1pexp_tf(tf, x):
    run = build_custom_tf(tf, x)
    return (lambda: run()[1].numpy()), "tensorflow eager"


def _log1pexp_autograd(autograd, x):
    from autograd.extend import primitive, defvjp
    anp = autograd.numpy

    @primitive
    def f(z):
        return np.log(1 + np.exp(z))
    defvjp(f, lambda ans, z: lambda dy: dy * (1 - 1 / (1 + anp.exp(z))))
    gf = autograd.elementwise_grad(f)
    return (lambda: gf(x)), "autograd primitive"


def bench_f():
    xs = np.float32(3.0)
    xv = np.random.default_rng(4).standard_normal(N_F, dtype=np.float32)
    cs, ps = build_custom_tf(fg, xs), build_custom_tf(fg, xs, custom=False)
    cv, pv = build_custom_tf(fg, xv), build_custom_tf(fg, xv, custom=False)
    PROFILE["f"], PROFILE["f-vector"] = cs, cv
    ys, gs = log1pexp_numpy(xs)
    yv, gv = log1pexp_numpy(xv)
    ok_s = all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(cs(), (ys, gs), strict=True)) and \
        all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(ps(), (ys, gs), strict=True))
    ok_v = all(close(a.numpy(), b, rtol=1e-5) for a, b in zip(cv(), (yv, gv), strict=True))
    # the custom rule is the point: at x = 100 it gives 1.0 where the plain one gives nan
    big = build_custom_tf(fg, np.float32(100.))()[1].numpy()
    ok_s = ok_s and float(big) == 1.0
    ts = measure({"fg": cs, "plain": ps, "np": lambda: log1pexp_numpy(xs)}, repeats=7,
                 round_s=0.08)
    tv = measure({"fg": cv, "np": lambda: log1pexp_numpy(xv), "plain": pv}, repeats=7,
                 round_s=0.05)
    us = lambda s: s * 1e6  # noqa: E731

    bind = lambda b, x: (lambda mod: b(mod, x))  # noqa: E731
    peers_s = run_peers("f", {"torch": bind(_log1pexp_torch, np.array(xs)),
                              "jax": bind(_log1pexp_jax, xs),
                              "tensorflow": bind(_log1pexp_tf, xs),
                              "autograd": bind(_log1pexp_autograd, np.array(xs))},
                        us, lambda r: close(r, gs, rtol=1e-5))
    ratio_v = lambda s: s / tv["np"]["min"]  # noqa: E731
    peers_v = run_peers("f", {"torch": bind(_log1pexp_torch, xv), "jax": bind(_log1pexp_jax, xv),
                              "tensorflow": bind(_log1pexp_tf, xv),
                              "autograd": bind(_log1pexp_autograd, xv)},
                        None, lambda r: close(r, gv, rtol=1e-5),
                        baseline=lambda: log1pexp_numpy(xv))
    return [
        row("f", "custom_gradient log1pexp, f32 scalar, fwd+grad", ts, us(ts["fg"]["min"]),
            "us/call", 15.0, ok_s, peers_s, np_figure=us(ts["np"]["min"])),
        row("f", "  same: custom vs plain ops (log(1+exp(x)))",
            {"fg": ts["fg"], "np": ts["plain"]}, ts["fg"]["min"] / ts["plain"]["min"],
            "x plain", 1.3, ok_s, {}, baseline="plain ops"),
        row("f", "  custom log1pexp, 10^6 f32, fwd+grad", tv, ratio_v(tv["fg"]["min"]),
            "x NumPy", 1.1, ok_v, peers_v),
        row("f", "  (info) plain ops log(1+exp(x)), 10^6 f32", {"fg": tv["plain"], "np": tv["np"]},
            ratio_v(tv["plain"]["min"]), "x NumPy", None, ok_v, {}),
    ]



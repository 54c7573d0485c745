"""Traced benchmarks g1-g6: the eager benchmarks' code under `finegrad.function` (g6: an
arithmetic chain)."""
import time

import numpy as np

from eager import (N_C, N_CHAIN, N_D, N_E, X0, build_chain_tf, build_hvp_tf, build_jac_tf,
                   build_mlp_args, build_mlp_tf, chain_numpy, chain_tf, hvp_numpy, mlp_data,
                   mlp_numpy)
from harness import PEERS, PROFILE, close, fg, held_memory, measure, peak_memory, row, run_peers

# --- (g) traced variants: finegrad.function -------------------------------------------------------

def compiled_graphs(fn):
    """The compiled graphs (``executor.Compiled``) that one call of ``fn`` executes (found by
    watching ``Compiled.run`` during the call)."""
    from finegrad._src.graph.compile import executor
    seen, orig = [], executor.Compiled.run

    def spy(self, *a, **k):
        seen.append(self)
        return orig(self, *a, **k)
    executor.Compiled.run = spy
    try:
        fn()
    finally:
        executor.Compiled.run = orig
    return list(dict.fromkeys(seen))


def _step_kind(step, kwargs):
    if step.kind == "call_into_pool":
        return "out=pooled" if "out" in kwargs else "fresh"
    return {"inplace": "in place", "fused": "fused", "scalar": "scalar"}.get(step.kind, "impl")


def graph_breakdown(key, fn, calls=5, top=16):
    """Split a traced function's time into its compiled graph's steps (by primitive, input
    shapes and how the step writes its result: ``in place`` into a dying input,
    ``out=pooled`` into a recycled buffer, ``fresh`` new array from a ufunc, ``scalar``
    NumPy-scalar arithmetic, ``impl`` the primitive's implementation) and the rest: the
    generated function's own code, the call's signature lookup and argument/output wrapping
    (Python overhead). The steps are timed by regenerating each graph's function with every
    callable wrapped (``Compiled.rebuild(wrap)``), then restoring it."""
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
    stats = {}
    for c in comps:
        meta = c.graph.meta
        slot_of = {i: s for s, i in _slot_index(c).items()}

        def wrap(f, step, meta=meta, slot_of=slot_of):
            label = (step.name, tuple(tuple(meta.get(slot_of.get(i), ("?",))[0])
                                      for i in step.ins))

            def timed(*a, **k):
                t = time.perf_counter()
                r = f(*a, **k)
                dt = time.perf_counter() - t - tick
                s = stats.setdefault(label + (_step_kind(step, k),), [0, 0.0])
                s[0] += 1
                s[1] += dt
                return r
            return timed
        c.rebuild(wrap)
    try:
        fn()
        stats.clear()
        for _ in range(calls):
            fn()
    finally:
        for c in comps:
            c.rebuild()
    work = sum(v[1] for v in stats.values()) / calls
    n_steps = sum(len(c.steps) for c in comps)
    print(f"\n--- ({key}) traced, per call: {total * 1e3:.3f} ms, of which the {n_steps} "
          f"compiled steps' own work {work * 1e3:.3f} ms and the rest (generated code, call "
          f"overhead) {(total - work) * 1e3:.3f} ms = {(total - work) / n_steps * 1e6:.2f} "
          f"us per step ---")
    for (name, shapes, kind), (n, dt) in sorted(stats.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {dt / calls * 1e3:9.3f} ms  x{n // calls:<5d} {name} {shapes} [{kind}]")


def _slot_index(c):
    """slot -> index in compiled graph ``c`` (as `executor.Compiled` numbers them)."""
    g = c.graph
    slots = set(g.args) | set(g.consts) | set(g.outer)
    for n in g.nodes:
        slots.update(n.ins)
        slots.update(n.outs)
    return {s: i for i, s in enumerate(sorted(slots))}


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
    except Exception as e:  # a peer failing must not stop the run
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
    def chain_builder(tf, traced):
        run = build_chain_tf(tf, traced)
        return lambda: run()[1].numpy()
    peers = _peer_tf_function(chain_builder,
                              lambda r: close(r, ng, rtol=1e-3), us)
    return [
        row("g1", "1,000 chained scalar ops traced (tape in fg.function), fwd+grad", t,
            us(t["fg"]["min"]), "us/op", 1.5, ok, peers, np_figure=us(t["np"]["min"])),
        row("g1", "  same: traced vs NumPy by hand", t, t["fg"]["min"] / t["np"]["min"],
            "x NumPy", 1.5, ok, {}),
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
    fns = {"fg": traced, "np": nprun, "eager": eager}
    off = _fast_off(lambda: build_log1pexp_sum_tf(fg, x, traced=True))
    if off is not None:
        fns["nofast"] = off
    t = measure(fns, repeats=5, round_s=0.05)
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
            "x NumPy", 0.2 if "nofast" in t else 0.6, ok, peers),
        row("g2", "  (info) held between calls (input, graph constants, buffer cache)",
            {"fg": {"bytes": held["traced"]}, "np": {"bytes": held["eager"]}},
            (held["traced"] - held["eager"]) / 2 ** 20, "MiB more", None, ok, {},
            baseline="eager"),
        row("g2", "  (info) same, eager (as in c)", {"fg": t["eager"], "np": t["np"]},
            ratio(t["eager"]["min"]), "x NumPy", None, ok, {}),
    ] + _fast_rows("g2", "log1pexp", t, ok)


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
            close(g.numpy(), n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(tg, ng, strict=True))
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
        close(g, n, rtol=2e-3, atol_scale=1e-4) for g, n in zip(r, ng, strict=True)))
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
        row("g3", "  traced time vs NumPy by hand", t, t["fg"]["min"] / t["np"]["min"],
            "x NumPy", 0.65, ok, {}),
        row("g3", "  (info) traced peak memory vs NumPy by hand",
            {"fg": {"bytes": mem_tr}, "np": {"bytes": mem_np}}, mem_tr / mem_np, "x NumPy",
            None, ok, {}),
        row("g3", "  (info) one graph for every batch size vs one for this size", tp,
            tp["fg"]["min"] / tp["np"]["min"], "x fixed-shape graph", None, ok_poly, {},
            baseline="fixed-shape graph"),
    ]




def bench_g4():
    rng = np.random.default_rng(2)
    x, v = rng.standard_normal(N_D), rng.standard_normal(N_D)
    eager = build_hvp_tf(fg, x, v)
    traced = build_hvp_tf(fg, x, v, traced=True)
    nprun = lambda: hvp_numpy(x, v)  # noqa: E731
    PROFILE["g4"] = traced
    want = nprun()
    ok = close(traced().numpy(), want, rtol=1e-10, atol_scale=1e-12) and \
        _check_same([traced()], [eager()], rtol=1e-12)
    t = measure({"fg": traced, "np": nprun, "eager": eager}, repeats=7, round_s=0.08)

    def hvp_builder(tf, traced):
        run = build_hvp_tf(tf, x, v, traced=traced)
        return lambda: run().numpy()
    peers = _peer_tf_function(hvp_builder, lambda r: close(r, want, rtol=1e-8),
                              lambda s: s / t["np"]["min"])
    return [
        row("g4", "Rosenbrock HVP n=10^5 f64 (as in d) traced", t, t["fg"]["min"] / t["np"]["min"],
            "x NumPy", 0.5, ok, peers),
        row("g4", "  (info) same: traced vs eager", {"fg": t["fg"], "np": t["eager"]},
            t["fg"]["min"] / t["eager"]["min"], "x eager", None, ok, {}, baseline="eager"),
    ]


def bench_g5():
    rng = np.random.default_rng(3)
    W = (rng.standard_normal((N_E, N_E), dtype=np.float32) / np.float32(np.sqrt(N_E)))
    x = rng.standard_normal(N_E, dtype=np.float32)
    eager, traced = build_jac_tf(fg, W, x), build_jac_tf(fg, W, x, traced=True)

    def nprun():
        y = np.tanh(W @ x)
        return (1 - y * y)[:, None] * W

    PROFILE["g5"] = traced
    want = nprun()
    ok = close(traced().numpy(), want, rtol=1e-4) and _check_same([traced()], [eager()])
    t = measure({"fg": traced, "np": nprun, "eager": eager}, repeats=7, round_s=0.05)

    def jac_builder(tf, traced):
        run = build_jac_tf(tf, W, x, traced=traced)
        return lambda: run().numpy()
    peers = _peer_tf_function(jac_builder, lambda r: close(r, want, rtol=1e-4),
                              lambda s: s / t["np"]["min"])
    return [
        row("g5", "200x200 Jacobian of tanh(W x) (as in e) traced", t,
            t["fg"]["min"] / t["np"]["min"], "x NumPy", 10.0, ok, peers),
        row("g5", "  (info) same: traced vs eager", {"fg": t["fg"], "np": t["eager"]},
            t["fg"]["min"] / t["eager"]["min"], "x eager", None, ok, {}, baseline="eager"),
    ]


def _fast_off(build):
    """``build()``'s callable, its graphs compiled without the fast path (threads, absorbed
    sums), or None when the fast path is off anyway (the rows would be the same)."""
    from finegrad._src.graph.compile import fast
    if not fast.threaded():
        return None
    fn = build()
    with fast.disabled():
        fn()     # the trace and the compiled form happen here, without the fast path
    return fn


def _fast_rows(key, desc, t, ok):
    if "nofast" not in t:
        return []
    return [row(key, f"  (info) same, fast path off (one thread): {desc}",
                {"fg": t["nofast"], "np": t["np"]}, t["nofast"]["min"] / t["np"]["min"],
                "x NumPy", None, ok, {})]


def build_arith_tf(tf, x, y, traced=False):
    xt, yt = tf.constant(x), tf.constant(y)

    def step(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            loss = tf.reduce_sum(y * (1. - x * x) + x / y)
        return [loss] + tape.gradient(loss, [x, y])
    if traced:
        step = tf.function(step)
    return lambda: step(xt, yt)


def bench_g6():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(N_C, dtype=np.float32)
    y = rng.uniform(1, 2, N_C).astype(np.float32)
    traced = build_arith_tf(fg, x, y, traced=True)

    def nprun():
        loss = np.sum(y * (1 - x * x) + x / y)
        return loss, -2 * x * y + 1 / y, (1 - x * x) - x / (y * y)
    PROFILE["g6"] = traced
    want = nprun()
    ok = all(close(g.numpy(), w, rtol=1e-4) for g, w in zip(traced(), want, strict=True))
    fns = {"fg": traced, "np": nprun}
    off = _fast_off(lambda: build_arith_tf(fg, x, y, traced=True))
    if off is not None:
        fns["nofast"] = off
        ok = ok and _check_same(off(), traced(), rtol=1e-5)
    t = measure(fns, repeats=5, round_s=0.1)
    return [row("g6", "grad of sum(y(1-x^2) + x/y), 10^7 f32, traced", t,
                t["fg"]["min"] / t["np"]["min"], "x NumPy", None, ok, {})] \
        + _fast_rows("g6", "arithmetic chain", t, ok)

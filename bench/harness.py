"""The benchmarks' harness: interleaved timing, profiling, memory, optional peers, the table.

Timing: one warm-up call, then `repeats` rounds; each round calls the function `number` times
(chosen so a round lasts about `round_s`) and records the mean time per call. The figure
reported is the MINIMUM over rounds (timeit's convention: the least disturbed round); the
median is kept in the JSON output. When two functions are compared as a ratio, their rounds
are interleaved (A, B, A, B, ...) so machine noise hits both alike. The garbage collector stays
enabled (its cost is part of what a user pays) but is run before every round.
"""
import gc
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import finegrad as fg  # noqa: E402,F401  (the finegrad of this checkout, for every bench module)


class Settings:
    """Run-wide settings, set once by run.py's command line."""

    quick = False      # fewer, shorter rounds (a smoke test)
    scale = 1.0        # multiplies the number of rounds (--rounds-scale)


#: bench key -> the finegrad callable to profile (--profile)
PROFILE = {}


# --- timing helpers ---------------------------------------------------------------------------

def _calls_per_round(fn, round_s):
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    return max(1, int(round_s / max(dt, 1e-9)))


def measure(fns, repeats=7, round_s=0.08, warmup=1):
    """Time several functions with interleaved rounds. Returns {name: {"min": s, "median": s}}."""
    repeats = max(3, int(round(repeats * Settings.scale)))
    if Settings.quick:
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
            import jax.numpy
            return jax
        if name == "tensorflow":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow
            return tensorflow
        if name == "autograd":
            import autograd
            import autograd.numpy
            return autograd
    except Exception:  # any failure to import means "not available"
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
        except Exception as e:  # a peer failing must not stop the run
            out[name] = {"error": f"{type(e).__name__}: {str(e)[:120]}"}
    return out




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
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
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


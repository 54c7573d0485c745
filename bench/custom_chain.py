"""Benchmark k: a long chain of custom_gradient calls under one tape, forward + gradient.

Each recorded call checks whether ``f`` used a tensor the tape watches without taking it as
an input; that check must cost the same at the 10^5-th call as at the first (it once scanned
the whole tape: quadratic, 58 s for 50,000 calls). The figure: time per call at 10^5 calls
over time per call at 10^4, which must stay within 1.5x."""
import gc
import time

import numpy as np

from harness import Settings, fg, row


@fg.custom_gradient
def _scale(x):
    return x * 1.0001, lambda dy: dy * 1.0001


def _chain(n):
    """Seconds for n chained calls under a tape and the gradient; and the gradient."""
    x = fg.constant(1.)
    gc.collect()
    t0 = time.perf_counter()
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = _scale(y)
    g = tape.gradient(y, x)
    return time.perf_counter() - t0, float(g)


def bench_k():
    sizes = (10 ** 3, 10 ** 4) if Settings.quick else (10 ** 4, 10 ** 5)
    rounds = 1 if Settings.quick else 2
    per_call, ok = {}, True
    for n in sizes:
        best = None
        for _ in range(rounds):
            t, g = _chain(n)
            best = t if best is None else min(best, t)
            ok = ok and np.isclose(g, float(np.float32(1.0001)) ** n, rtol=1e-3)
        per_call[n] = {"min": best / n, "median": best / n}
    small, large = sizes
    us = lambda s: s * 1e6  # noqa: E731
    return [
        row("k", f"custom_gradient chain of {large:.0e} calls, fwd+grad, per call",
            {"fg": per_call[large], "np": per_call[small]}, us(per_call[large]["min"]),
            "us/call", None, ok, {}, baseline=f"{small:.0e} calls"),
        row("k", f"  per-call time, {large:.0e} vs {small:.0e} calls (flat: linear)",
            {"fg": per_call[large], "np": per_call[small]},
            per_call[large]["min"] / per_call[small]["min"], "x", 1.5, ok, {},
            baseline=f"{small:.0e} calls"),
    ]

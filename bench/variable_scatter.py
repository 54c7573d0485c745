"""Benchmark vs: eager ``Variable.scatter_*`` on a 10^6-element float32 variable, 10 indices:
updated in place (a copy only when a tensor read earlier still holds the buffer), against the
same update by hand in NumPy (``a[idx] = values``, ``np.add.at``)."""
import numpy as np

from harness import fg, measure, row

N, K = 10 ** 6, 10


def bench_vs():
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(N, K, replace=False)).astype(np.int64)
    vals = rng.standard_normal(K).astype(np.float32)
    v = fg.Variable(np.zeros(N, np.float32))
    a = np.zeros(N, np.float32)
    delta = fg.IndexedSlices(fg.constant(vals), fg.constant(idx))
    nd_idx, nd_vals = fg.constant(idx[:, None]), fg.constant(vals)

    def by_hand_update():
        a[idx] = vals

    def by_hand_add():
        np.add.at(a, idx, vals)
    t_up = measure({"fg": lambda: v.scatter_update(delta), "np": by_hand_update},
                   repeats=7, round_s=0.05)
    t_add = measure({"fg": lambda: v.scatter_add(delta), "np": by_hand_add},
                    repeats=7, round_s=0.05)
    t_nd = measure({"fg": lambda: v.scatter_nd_add(nd_idx, nd_vals), "np": by_hand_add},
                   repeats=7, round_s=0.05)
    ok = bool(np.isfinite(v.numpy()[idx]).all())
    us = lambda s: s * 1e6  # noqa: E731
    return [
        row("vs", f"Variable.scatter_update, {N:.0e} f32, {K} rows (in place)", t_up,
            us(t_up["fg"]["min"]), "us/call", None, ok, {}, np_figure=us(t_up["np"]["min"])),
        row("vs", f"Variable.scatter_add, {N:.0e} f32, {K} rows", t_add,
            us(t_add["fg"]["min"]), "us/call", None, ok, {}, np_figure=us(t_add["np"]["min"])),
        row("vs", f"Variable.scatter_nd_add, {N:.0e} f32, {K} rows", t_nd,
            us(t_nd["fg"]["min"]), "us/call", None, ok, {}, np_figure=us(t_nd["np"]["min"])),
    ]

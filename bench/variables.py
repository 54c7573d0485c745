"""Benchmark v: eager ``Variable.assign_add``, whose update is atomic (a per-variable lock)."""
import contextlib

import numpy as np

from harness import fg, measure, row


def bench_v():
    v = fg.Variable(0.)
    unlocked = fg.Variable(0.)
    unlocked._lock = contextlib.nullcontext()   # the same update without the lock: its cost
    a = [np.float32(0.)]

    def by_hand():
        a[0] = a[0] + np.float32(1.)

    t = measure({"fg": lambda: v.assign_add(1.), "np": by_hand,
                 "nolock": lambda: unlocked.assign_add(1.)}, repeats=7, round_s=0.05)
    ok = float(v.numpy()) > 0 and float(unlocked.numpy()) > 0
    us = lambda s: s * 1e6  # noqa: E731
    return [
        row("v", "Variable.assign_add(1.) eager, f32 scalar (atomic)", t, us(t["fg"]["min"]),
            "us/call", None, ok, {}, np_figure=us(t["np"]["min"])),
        row("v", "  the lock's cost: atomic vs the same update unlocked",
            {"fg": t["fg"], "np": t["nolock"]}, t["fg"]["min"] / t["nolock"]["min"],
            "x unlocked", 1.1, ok, {}, baseline="unlocked"),
    ]

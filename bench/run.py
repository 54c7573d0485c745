#!/usr/bin/env python3
"""finegrad performance benchmarks: finegrad vs. the same math written by hand in NumPy.

Run from the repository root (see bench/README.md):

    python3 bench/run.py                 # every benchmark, a table on stdout
    python3 bench/run.py --only a,c      # a subset
    python3 bench/run.py --json out.json # also write the figures as JSON
    python3 bench/run.py --quick         # fewer repeats (a smoke test, noisier figures)

Each benchmark times finegrad and a hand-written NumPy version (forward and hand-derived
gradient) in the same process, checks that both give the same gradient (np.allclose), and
compares against the targets in bench/README.md. PyTorch, JAX, TensorFlow and HIPS autograd are
timed too when importable; none of them is a dependency and a missing one is skipped.

How the timing is done (interleaved rounds, minimum over rounds) is in bench/harness.py.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

import harness
from backends import bench_h
from eager import bench_a, bench_b, bench_c, bench_d, bench_e, bench_f
from harness import PEER_NAMES, PEERS, PROFILE, fg, impl_breakdown, load_peers, print_table, profile
from variables import bench_v
from variable_scatter import bench_vs
from sparse_updates import bench_sp
from custom_chain import bench_k
from sessions import bench_s1
from keras_fit import bench_fit
from traced import bench_g1, bench_g2, bench_g3, bench_g4, bench_g5, bench_g6, graph_breakdown
from xla import BENCHES as XLA_BENCHES

BENCHES = {"a": bench_a, "b": bench_b, "c": bench_c, "d": bench_d, "e": bench_e, "f": bench_f,
           "g1": bench_g1, "g2": bench_g2, "g3": bench_g3, "g4": bench_g4, "g5": bench_g5,
           "g6": bench_g6, "h": bench_h, "v": bench_v, "vs": bench_vs, "sp": bench_sp,
           "k": bench_k, "s1": bench_s1, "fit": bench_fit, **XLA_BENCHES}
OPT_IN = ("fit", *XLA_BENCHES)   # minutes long: run with --only fit, --only x
GROUPS = {"g": ("g1", "g2", "g3", "g4", "g5", "g6"),   # --only g: every traced benchmark
          "x": tuple(XLA_BENCHES)}                     # --only x: every XLA (jit_compile) one


def _compiled_chains():
    """numba's version when traced arithmetic chains compile (graph/compile/jit.py)."""
    from finegrad._src.graph.compile import jit
    if not jit.enabled():
        return "off"
    import numba
    return f"on (numba {numba.__version__})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(BENCHES)
                    + " (g: g1-g6)")
    ap.add_argument("--json", default=None, help="write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    ap.add_argument("--no-peers", action="store_true", help="do not import or time peers")
    ap.add_argument("--rounds-scale", type=float, default=1.0,
                    help="multiply the number of timed rounds (more: steadier minimum)")
    ap.add_argument("--no-fast", action="store_true",
                    help="switch the fast path (threads) off: FINEGRAD_FAST=0")
    ap.add_argument("--fast", action="store_true",
                    help="force the fast path on, whatever the cores: FINEGRAD_FAST=1")
    ap.add_argument("--profile", action="store_true",
                    help="after the table, cProfile finegrad's side of each selected benchmark")
    args = ap.parse_args(argv)
    harness.Settings.quick, harness.Settings.scale = args.quick, args.rounds_scale
    if args.no_fast or args.fast:
        os.environ["FINEGRAD_FAST"] = "0" if args.no_fast else "1"
        from finegrad._src import threads
        threads.refresh()     # eager ops read the switch when finegrad is imported
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or \
        [k for k in BENCHES if k not in OPT_IN]
    keys = list(dict.fromkeys(g for k in keys for g in GROUPS.get(k, (k,))))
    bad = [k for k in keys if k not in BENCHES]
    if bad:
        ap.error(f"unknown benchmark(s) {bad}; choose from {','.join(BENCHES)}")
    if not args.no_peers:
        load_peers(PEER_NAMES)
    print(f"finegrad {fg.__version__}, NumPy {np.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"compiled chains {_compiled_chains()}; figures are the minimum over interleaved "
          f"rounds")
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

"""Benchmark fit: a 3-layer MLP (784-256-128-10, ReLU, softmax cross-entropy, Adam) trained for
one epoch on 60,000 x 784 float32 rows with batch 128 (469 steps).

Compared: ``model.fit`` (its step a traced finegrad.function) against the same loop written
with a GradientTape, eager and inside ``finegrad.function`` (the target: fit within 1.3x of
the tape loop), and against Keras 3's ``fit`` on TensorFlow and on JAX when they are installed
(each in a subprocess, with ``KERAS_BACKEND`` set; their figures are reported beside ours).
All run on the same data and the same initial weights; each figure is the fastest of the
epochs timed (the first epoch, which traces or compiles, is timed separately).

    python3 bench/keras_fit.py [--epochs 3] [--rows 60000] [--no-peers]
"""
import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SIZES = (784, 256, 128, 10)
BATCH = 128


def data(rows, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((rows, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], rows).astype(np.int32)
    return x, y


def initial_weights(seed=1):
    rng = np.random.default_rng(seed)
    out = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:], strict=True):
        out += [rng.normal(0, np.sqrt(2 / n_in), (n_in, n_out)).astype(np.float32),
                np.zeros(n_out, np.float32)]
    return out


def model(keras):
    layers = keras.layers
    m = keras.Sequential([keras.Input((SIZES[0],)), layers.Dense(SIZES[1], activation="relu"),
                          layers.Dense(SIZES[2], activation="relu"),
                          layers.Dense(SIZES[3])])
    m.set_weights(initial_weights())
    return m


def fit_epoch(x, y):
    """A function running one epoch of ``model.fit``, and the model."""
    import finegrad as fg   # (here: the Keras peers' processes import this file too)
    m = model(fg.keras)
    m.compile(fg.keras.optimizers.Adam(1e-3),
              fg.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return lambda: m.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0), m


def tape_epoch(x, y, traced):
    """A function running one epoch of the same training written with a GradientTape."""
    import finegrad as fg
    m = model(fg.keras)
    opt = fg.keras.optimizers.Adam(1e-3)
    loss_fn = fg.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(xb, yb):
        with fg.GradientTape() as tape:
            loss = loss_fn(yb, m(xb, training=True))
        grads = tape.gradient(loss, m.trainable_variables)
        opt.apply_gradients(zip(grads, m.trainable_variables, strict=True))
        return loss
    if traced:
        opt.build(m.trainable_variables)
        step = fg.function(step, reduce_retracing=True)

    def epoch():
        for i in range(0, len(x), BATCH):
            step(fg.constant(x[i:i + BATCH]), fg.constant(y[i:i + BATCH]))
    return epoch, m


def time_interleaved(runners, epochs):
    """Each runner's epoch times, the runners taking turns (machine noise hits all alike)."""
    times = {name: [] for name in runners}
    for _ in range(epochs):
        for name, run in runners.items():
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    return times


_PEER = """
import os, sys, time, json
import numpy as np
sys.path.insert(0, {bench!r})
import keras
from keras_fit import data, model, BATCH
x, y = data({rows})
m = model(keras)
m.compile(keras.optimizers.Adam(1e-3),
          keras.losses.SparseCategoricalCrossentropy(from_logits=True))
times = []
for _ in range({epochs}):
    t0 = time.perf_counter()
    m.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    times.append(time.perf_counter() - t0)
print(json.dumps(times))
"""


def time_keras(backend, rows, epochs):
    """Keras 3's fit on ``backend`` in a subprocess: the epoch times, or an error string."""
    env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="")
    code = textwrap.dedent(_PEER.format(bench=os.path.dirname(os.path.abspath(__file__)),
                                        rows=rows, epochs=epochs))
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        return "timed out"
    if out.returncode != 0:
        return out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(rows=60000, epochs=3, peers=True):
    x, y = data(rows)
    (fit, m_fit), (traced, m_traced), (eager, _) = \
        fit_epoch(x, y), tape_epoch(x, y, True), tape_epoch(x, y, False)
    results = time_interleaved({"fit": fit, "tape (traced)": traced, "tape (eager)": eager},
                               epochs)
    same = all(np.allclose(a, b, rtol=1e-3, atol=1e-5)
               for a, b in zip(m_fit.get_weights(), m_traced.get_weights(), strict=True))
    if peers:
        for backend in ("tensorflow", "jax"):
            results[f"Keras 3 on {backend}"] = time_keras(backend, rows, epochs)
    return results, same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=60000)
    ap.add_argument("--epochs", type=int, default=3, help="epochs timed (the first traces)")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args(argv)
    results, same = run(args.rows, args.epochs, not args.no_peers)
    steps = -(-args.rows // BATCH)
    best_tape = min(min(results["tape (traced)"]), min(results["tape (eager)"]))
    print(f"fit: 3-layer MLP {SIZES}, one epoch of {args.rows} rows, batch {BATCH} "
          f"({steps} steps), Adam; {os.cpu_count()} CPUs")
    print(f"{'':24s} {'first epoch':>12s} {'best epoch':>11s} {'ms/step':>8s}")
    for name, t in results.items():
        if isinstance(t, str):
            print(f"{name:24s} skipped: {t}")
            continue
        print(f"{name:24s} {t[0]:11.2f}s {min(t[1:] or t):10.2f}s "
              f"{min(t[1:] or t) / steps * 1e3:8.2f}")
    fit = min(results["fit"][1:] or results["fit"])
    print(f"fit / best tape loop: {fit / best_tape:.2f}x (target <= 1.30x); fit's weights equal "
          f"the traced tape loop's: {same}; load average {os.getloadavg()[0]:.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())


def bench_fit():
    """The rows of ``bench/run.py --only fit`` (not in the default run: it takes minutes)."""
    from harness import Settings, row
    rows = 12800 if Settings.quick else 60000
    results, same = run(rows=rows, epochs=2, peers=True)
    best = {k: min(v[1:] or v) for k, v in results.items() if not isinstance(v, str)}
    tape = min(best["tape (traced)"], best["tape (eager)"])
    steps = -(-rows // BATCH)
    peers = {}
    for name, t in results.items():
        if name.startswith("Keras"):
            peers[name] = ({"error": t} if isinstance(t, str) else
                           {"seconds": min(t[1:] or t), "figure": min(t[1:] or t) / tape,
                            "grad_ok": None})
    t = {"fg": {"min": best["fit"], "median": best["fit"]}, "np": {"min": tape, "median": tape}}
    return [row("fit", f"3-layer MLP, fit one epoch ({rows} x 784, batch 128, {steps} steps) vs "
                     f"the tape loop", t, best["fit"] / tape, "x tape", 1.3, same, peers,
                baseline="tape loop")]

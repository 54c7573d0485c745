"""Benchmark sp: one optimizer step on a 100,000 x 64 embedding from the `IndexedSlices`
gradient of a batch of 128 ids (only those rows change), against the same step given the
gradient's dense value (every row is read and written)."""
import numpy as np

from harness import fg, measure, row

ROWS, DIM, BATCH = 100_000, 64, 128


def _case(name, make_opt):
    rng = np.random.default_rng(0)
    emb_s = fg.Variable(rng.standard_normal((ROWS, DIM)).astype(np.float32))
    emb_d = fg.Variable(emb_s.numpy())
    ids = fg.constant(rng.integers(0, ROWS, BATCH).astype(np.int32))
    with fg.GradientTape() as tape:
        loss = fg.reduce_sum(fg.square(fg.gather(emb_s, ids)))
    g = tape.gradient(loss, emb_s)
    dense = fg.convert_to_tensor(g)
    opt_s, opt_d = make_opt(), make_opt()
    t = measure({"fg": lambda: opt_s.apply([g], [emb_s]),
                 "np": lambda: opt_d.apply([dense], [emb_d])}, repeats=5, round_s=0.2)
    ok = isinstance(g, fg.IndexedSlices)
    ms = t["fg"]["min"] * 1e3
    return row("sp", f"keras {name} step, 100k x 64 embedding, 128 ids: IndexedSlices "
               f"(baseline: its dense value)", t, ms, "ms/step", None, ok, {},
               baseline="dense gradient")


def bench_sp():
    return [_case("SGD", lambda: fg.keras.optimizers.SGD(0.1)),
            _case("Adagrad", lambda: fg.keras.optimizers.Adagrad(0.1)),
            _case("Adam", lambda: fg.keras.optimizers.Adam(0.1))]

"""Benchmark s: a TF1 training step run by `Session.run` against the same step in
`finegrad.function`. A small MLP (64 x 32 inputs, 64 hidden units, 10 classes; softmax
cross-entropy; plain gradient descent), one step = forward, gradients and the four variable
updates. The session runs ``sess.run([train_op, loss], feed_dict)``, the function
``step(x, y)`` (a GradientTape and ``assign_sub`` inside ``finegrad.function``); the figure is
the ratio session / function per step (target 1.2x: a session's cached plan runs the same
compiled graph a function call runs). Both give the same losses (checked)."""
import numpy as np

from harness import fg, measure, row

BATCH, N_IN, N_HIDDEN, N_OUT, LR = 64, 32, 64, 10, 0.1


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, N_IN)).astype(np.float32)
    y = np.eye(N_OUT, dtype=np.float32)[rng.integers(0, N_OUT, BATCH)]
    w1 = (rng.standard_normal((N_IN, N_HIDDEN)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((N_HIDDEN, N_OUT)) * 0.1).astype(np.float32)
    return x, y, [w1, np.zeros(N_HIDDEN, np.float32), w2, np.zeros(N_OUT, np.float32)]


def _loss(tf, x, y, w1, b1, w2, b2):
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))


def build_session(tf=fg):
    """(A function running one training step in a session, returning the loss; the session)."""
    x0, y0, init = _data()
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, N_IN])
        y = v1.placeholder(tf.float32, [None, N_OUT])
        ws = [v1.get_variable(n, initializer=w)
              for n, w in zip(("w1", "b1", "w2", "b2"), init, strict=True)]
        loss = _loss(tf, x, y, *ws)
        train = v1.train.GradientDescentOptimizer(LR).minimize(loss)
        sess = v1.Session(graph=g)
        sess.run(v1.global_variables_initializer())
    feed = {x: x0, y: y0}
    return lambda: sess.run([train, loss], feed)[1], sess


def build_function(tf=fg):
    x0, y0, init = _data()
    ws = [tf.Variable(w) for w in init]

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = _loss(tf, x, y, *ws)
        for w, g in zip(ws, tape.gradient(loss, ws), strict=True):
            w.assign_sub(LR * g)
        return loss
    x, y = tf.constant(x0), tf.constant(y0)
    return lambda: step(x, y).numpy()


def bench_s1():
    session, sess = build_session()
    function = build_function()
    ok = all(np.isclose(session(), function(), rtol=1e-5) for _ in range(5))
    t = measure({"fg": session, "np": function}, repeats=7, round_s=0.15)
    sess.close()
    us = lambda s: s * 1e6  # noqa: E731
    return [
        row("s1", "MLP training step, Session.run (TF1 graph) vs fg.function", t,
            t["fg"]["min"] / t["np"]["min"], "x function", 1.2, ok, {}, baseline="function"),
        row("s1", "  (info) Session.run per step", {"fg": t["fg"], "np": t["np"]},
            us(t["fg"]["min"]), "us/step", None, ok, {}, baseline="function"),
    ]


def time_steps(n=1000):
    """Seconds for ``n`` steps each way (the issue's figure: 1,000 steps)."""
    import time
    session, sess = build_session()
    function = build_function()
    out = {}
    for name, f in (("session", session), ("function", function)):
        f()
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        out[name] = time.perf_counter() - t0
    sess.close()
    return out


if __name__ == "__main__":
    for _ in range(3):
        print({k: round(v, 4) for k, v in time_steps().items()})

"""TensorFlow 1's optimizers (compat.v1.train) apply `IndexedSlices` gradients with
TensorFlow's sparse kernels: repeated indices summed, only those rows of the variable and its
slots changed (Adam: all of m, v and the variable, as TF1's sparse Adam decays m and v), in a
Session and eagerly, against live TensorFlow."""
import numpy as np
import pytest

import finegrad as fg

VALUES = np.array([[1., 2.], [3., -1.], [0.5, 0.5]], np.float32)
IDS = np.array([1, 3, 1], np.int32)
INIT = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
UNTOUCHED = [0, 2, 4, 5]
OTHER_IDS = np.array([3, 3, 1], np.int32)
CASES = [("GradientDescentOptimizer", (0.1,), {}), ("MomentumOptimizer", (0.1, 0.5), {}),
         ("MomentumOptimizer", (0.1, 0.5), {"use_nesterov": True}),
         ("AdagradOptimizer", (0.1,), {}), ("RMSPropOptimizer", (0.1,), {}),
         ("RMSPropOptimizer", (0.1,), {"momentum": 0.5, "centered": True}),
         ("AdamOptimizer", (0.1,), {})]
SLOTS = {"MomentumOptimizer": ["momentum"], "AdagradOptimizer": ["accumulator"],
         "RMSPropOptimizer": ["rms", "momentum"], "AdamOptimizer": ["m", "v"]}


def _session_run(mod, name, args, kw, steps=3):
    v1 = mod.compat.v1
    with mod.Graph().as_default():
        w = v1.get_variable("w", initializer=mod.constant(INIT))
        ids = v1.placeholder(mod.int32, [3])
        loss = mod.reduce_sum(mod.gather(w, ids) * VALUES)
        opt = getattr(v1.train, name)(*args, **kw)
        (g, _), = opt.compute_gradients(loss, [w])
        assert isinstance(g, mod.IndexedSlices)
        step = opt.apply_gradients([(g, w)])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for k in range(steps):   # other repeated ids at the last step
                sess.run(step, {ids: IDS if k < 2 else OTHER_IDS})
            return sess.run(w), [sess.run(opt.get_slot(w, s)) for s in SLOTS.get(name, [])]


def _eager_run(mod, name, args, kw, steps=3):
    w = mod.Variable(INIT.copy())
    opt = getattr(mod.compat.v1.train, name)(*args, **kw)
    for _ in range(steps):
        opt.minimize(lambda: mod.reduce_sum(mod.gather(w, IDS) * VALUES), var_list=[w])
    return w.numpy(), [opt.get_slot(w, s).numpy() for s in SLOTS.get(name, [])]


def _same(got, want, exact=True):
    for g, w in zip([got[0]] + got[1], [want[0]] + want[1], strict=True):
        if exact:   # bit for bit, as the dense updates
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name,args,kw", CASES)
def test_session_against_tensorflow(name, args, kw):
    tf = pytest.importorskip("tensorflow")
    # TF's Session rounds GradientDescent's repeated rows differently from its eager
    # scatter-add (1 ulp, same kernel); every other sparse update matches bit for bit
    _same(_session_run(fg, name, args, kw), _session_run(tf, name, args, kw),
          exact=name != "GradientDescentOptimizer")


@pytest.mark.parametrize("name,args,kw", CASES)
def test_eager_against_tensorflow(name, args, kw):
    tf = pytest.importorskip("tensorflow")
    _same(_eager_run(fg, name, args, kw), _eager_run(tf, name, args, kw))


@pytest.mark.parametrize("name,args,kw", [c for c in CASES if c[0] != "AdamOptimizer"])
def test_untouched_rows_and_slots_keep_their_values(name, args, kw):
    w, slots = _session_run(fg, name, args, kw)
    np.testing.assert_array_equal(w[UNTOUCHED], INIT[UNTOUCHED])
    assert not np.array_equal(w[[1, 3]], INIT[[1, 3]])
    start = {"accumulator": 0.1, "rms": 1.0}
    for s, value in zip(SLOTS.get(name, []), slots, strict=True):
        want = np.full((4, 2), start.get(s, 0.), np.float32)
        np.testing.assert_array_equal(value[UNTOUCHED], want)


def test_adagrad_sums_repeated_rows_before_squaring():
    # TensorFlow's sparse kernels see the summed gradient of row 1: (1 + 0.5)^2 + 0.1
    _, (acc,) = _session_run(fg, "AdagradOptimizer", (0.1,), {}, steps=1)
    np.testing.assert_allclose(acc[1], [0.1 + 1.5 ** 2, 0.1 + 2.5 ** 2], rtol=1e-6)


@pytest.mark.parametrize("name,args,kw", CASES)
def test_traced_function_equals_eager(name, args, kw):
    # inside finegrad.function the sparse step is traced once and runs with the ids it gets
    w = fg.Variable(INIT.copy())
    opt = getattr(fg.compat.v1.train, name)(*args, **kw)

    @fg.function
    def step(ids):
        opt.minimize(lambda: fg.reduce_sum(fg.gather(w, ids) * VALUES), var_list=[w])

    for k in range(3):
        step(fg.constant(IDS if k < 2 else OTHER_IDS))
    w_eager = fg.Variable(INIT.copy())
    opt_eager = getattr(fg.compat.v1.train, name)(*args, **kw)
    for k in range(3):
        ids = IDS if k < 2 else OTHER_IDS
        opt_eager.minimize(lambda ids=ids: fg.reduce_sum(fg.gather(w_eager, ids) * VALUES),
                           var_list=[w_eager])
    np.testing.assert_allclose(w.numpy(), w_eager.numpy(), rtol=1e-6)
    if name != "AdamOptimizer":
        np.testing.assert_array_equal(w.numpy()[[0, 2, 4, 5]], INIT[[0, 2, 4, 5]])

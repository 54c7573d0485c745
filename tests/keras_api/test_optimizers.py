"""finegrad.keras.optimizers: each optimizer's 5 steps equal Keras 3's (live, float32), eagerly
and inside a traced finegrad.function; closed forms for what needs no Keras."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import optimizers as O
from finegrad.keras.optimizers import schedules as S

RNG = np.random.default_rng(0)
W0 = [RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=(2,)).astype(np.float32)]
GRADS = [[RNG.normal(size=w.shape).astype(np.float32) * 3 for w in W0] for _ in range(5)]

CASES = {
    "sgd": ("SGD", dict(learning_rate=0.1)),
    "sgd_momentum": ("SGD", dict(learning_rate=0.1, momentum=0.9)),
    "sgd_nesterov": ("SGD", dict(learning_rate=0.1, momentum=0.8, nesterov=True)),
    "adam": ("Adam", dict(learning_rate=0.05)),
    "adam_amsgrad": ("Adam", dict(learning_rate=0.05, amsgrad=True)),
    "adamw": ("AdamW", dict(learning_rate=0.05, weight_decay=0.1)),
    "rmsprop": ("RMSprop", dict(learning_rate=0.05)),
    "rmsprop_centered": ("RMSprop", dict(learning_rate=0.05, centered=True, momentum=0.5)),
    "adagrad": ("Adagrad", dict(learning_rate=0.1)),
    "adadelta": ("Adadelta", dict(learning_rate=1.0)),
    "adamax": ("Adamax", dict(learning_rate=0.05)),
    "nadam": ("Nadam", dict(learning_rate=0.05)),
    "ftrl": ("Ftrl", dict(learning_rate=0.1, l1_regularization_strength=0.01,
                          l2_regularization_strength=0.02, beta=0.1,
                          l2_shrinkage_regularization_strength=0.01)),
    "lion": ("Lion", dict(learning_rate=0.01)),
    "clipnorm": ("Adam", dict(learning_rate=0.05, clipnorm=1.0)),
    "global_clipnorm": ("SGD", dict(learning_rate=0.1, global_clipnorm=1.5)),
    "clipvalue": ("RMSprop", dict(learning_rate=0.05, clipvalue=0.5)),
    "weight_decay": ("SGD", dict(learning_rate=0.1, weight_decay=0.05)),
    "ema": ("SGD", dict(learning_rate=0.1, use_ema=True, ema_momentum=0.5,
                        ema_overwrite_frequency=2)),
    "accumulation": ("Adam", dict(learning_rate=0.05, gradient_accumulation_steps=2)),
    "schedule": ("SGD", dict(learning_rate=("ExponentialDecay", (0.1, 2, 0.5)))),
}


def _make(module, name, kwargs):
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, tuple):
        kwargs["learning_rate"] = getattr(module.schedules, lr[0])(*lr[1])
    return getattr(module, name)(**kwargs)


def _run_ours(name, kwargs, traced):
    opt = _make(O, name, kwargs)
    vs = [fg.Variable(w) for w in W0]

    def step(grads):
        opt.apply_gradients(zip(grads, vs, strict=True))
    step_fn = fg.function(step) if traced else step
    out = []
    for grads in GRADS:
        step_fn([fg.constant(g) for g in grads])
        out.append([v.numpy() for v in vs])
    return out, opt


def test_sgd_closed_form():
    out, opt = _run_ours("SGD", dict(learning_rate=0.1, momentum=0.9), traced=False)
    w, m = W0[0].copy(), np.zeros_like(W0[0])
    for grads, got in zip(GRADS, out, strict=True):
        m = 0.9 * m - 0.1 * grads[0]
        w = w + m
        np.testing.assert_allclose(got[0], w, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations) == 5


def test_adam_closed_form():
    out, _ = _run_ours("Adam", dict(learning_rate=0.05), traced=True)
    w, m, v = W0[1].astype(np.float64), 0., 0.
    for t, (grads, got) in enumerate(zip(GRADS, out, strict=True), 1):
        g = grads[1]
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w = w - 0.05 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-7)
        np.testing.assert_allclose(got[1], w, rtol=1e-5, atol=1e-6)


def test_clipping_and_weight_decay_closed_form():
    g = np.array([3., 4.], np.float32)
    for kwargs, expected in [(dict(clipnorm=1.), [1 - 0.6, 1 - 0.8]),
                             (dict(clipvalue=3.5), [1 - 3., 1 - 3.5]),
                             (dict(global_clipnorm=2.5), [1 - 1.5, 1 - 2.]),
                             (dict(weight_decay=0.5), [1 - 0.5 - 3., 1 - 0.5 - 4.])]:
        v = fg.Variable([1., 1.])
        O.SGD(1.0, **kwargs).apply([fg.constant(g)], [v])
        np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6, err_msg=str(kwargs))


def test_learning_rate_is_settable_and_read_by_traced_steps():
    v = fg.Variable(0.)
    opt = O.SGD(1.0)
    step = fg.function(lambda: opt.apply([fg.constant(1.)], [v]))
    step()
    opt.learning_rate = 0.5
    step()
    assert float(v) == -1.5 and int(opt.iterations) == 2
    sched = O.SGD(S.PiecewiseConstantDecay([1], [1.0, 0.1]))
    with pytest.raises(TypeError, match="not settable"):
        sched.learning_rate = 0.3


def test_loss_scale_optimizer_skips_and_rescales():
    v = fg.Variable(1.)
    opt = O.LossScaleOptimizer(O.SGD(0.5), initial_scale=8., dynamic_growth_steps=2)
    step = fg.function(lambda g: opt.apply([g], [v]))
    step(fg.constant(np.nan))
    assert float(v) == 1. and float(opt.dynamic_scale) == 4.
    step(fg.constant(4.))        # unscaled gradient 1
    step(fg.constant(4.))        # second finite step in a row: the scale doubles
    assert float(v) == 0. and float(opt.dynamic_scale) == 8.
    assert int(opt.iterations) == 2
    assert float(opt.scale_loss(fg.constant(2.))) == 16.


def test_errors_and_config():
    with pytest.raises(ValueError, match="only one of"):
        O.SGD(clipnorm=1., clipvalue=1.)
    with pytest.raises(ValueError, match="learning_rate"):
        O.Adam(learning_rate="fast")
    with pytest.raises(ValueError, match="not recognized"):
        O.Adam(bogus=1)
    v, w = fg.Variable(1.), fg.Variable(2.)
    opt = O.Adam()
    opt.apply([fg.constant(1.)], [v])
    with pytest.raises(ValueError, match="unknown variable"):
        opt.apply([fg.constant(1.)], [w])
    with pytest.raises(ValueError, match="No gradients"):
        opt.apply([None], [v])
    cfg = O.RMSprop(0.01, centered=True).get_config()
    assert O.RMSprop.from_config(cfg).get_config() == cfg
    lso = O.deserialize(O.serialize(O.LossScaleOptimizer(O.Adam(0.2))))
    assert float(lso.learning_rate) == pytest.approx(0.2)
    assert isinstance(O.get("nadam"), O.Nadam)


@pytest.mark.parametrize("name,args,step,expected", [
    ("ExponentialDecay", (1., 10, 0.5, True), 15, 0.5),
    ("PolynomialDecay", (1., 10, 0., 2.), 5, 0.25),
    ("InverseTimeDecay", (1., 2, 1.), 2, 0.5),
    ("CosineDecay", (1., 10), 5, 0.5),
    ("PiecewiseConstantDecay", ([2, 4], [1., 0.5, 0.25]), 3, 0.5)])
def test_schedules_closed_form(name, args, step, expected):
    assert float(getattr(S, name)(*args)(step)) == pytest.approx(expected, rel=1e-6)


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras")


def _run_keras(keras, name, kwargs):
    opt = _make(keras.optimizers, name, kwargs)
    vs = [keras.Variable(w) for w in W0]
    out = []
    for grads in GRADS:
        opt.apply_gradients(zip(grads, vs, strict=True))
        out.append([np.asarray(v) for v in vs])
    return out


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_five_steps_equal_keras(keras, case, traced):
    name, kwargs = CASES[case]
    ours, _ = _run_ours(name, kwargs, traced)
    theirs = _run_keras(keras, name, kwargs)
    for step, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=2e-5, atol=2e-6, err_msg=f"step {step}")


def test_loss_scale_optimizer_equals_keras(keras):
    grads = [np.float32(4.), np.float32(np.inf), np.float32(2.), np.float32(8.)]
    ours_v, theirs_v = fg.Variable(1.), keras.Variable(1.)
    ours = O.LossScaleOptimizer(O.Adam(0.1), initial_scale=4., dynamic_growth_steps=2)
    theirs = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.1), initial_scale=4.,
                                                 dynamic_growth_steps=2)
    for g in grads:
        ours.apply([fg.constant(g)], [ours_v])
        theirs.apply([g], [theirs_v])
        assert float(ours_v) == pytest.approx(float(np.asarray(theirs_v)), rel=1e-6)
        assert float(ours.dynamic_scale) == float(np.asarray(theirs.dynamic_scale))


@pytest.mark.parametrize("make", [
    lambda S: S.ExponentialDecay(0.3, 3, 0.7), lambda S: S.ExponentialDecay(0.3, 3, 0.7, True),
    lambda S: S.PiecewiseConstantDecay([2, 5], [1., 0.5, 0.1]),
    lambda S: S.PolynomialDecay(0.3, 6, 0.01, 1.5), lambda S: S.PolynomialDecay(0.3, 4, cycle=True),
    lambda S: S.InverseTimeDecay(0.3, 2, 0.5, True), lambda S: S.CosineDecay(0.3, 6, alpha=0.1),
    lambda S: S.CosineDecay(0.0, 5, warmup_target=0.5, warmup_steps=3),
    lambda S: S.CosineDecayRestarts(0.3, 3), lambda S: S.CosineDecayRestarts(0.3, 3, 1., 0.5)])
def test_schedules_equal_keras(keras, make):
    ours, theirs = make(S), make(keras.optimizers.schedules)
    for step in range(12):
        assert float(ours(step)) == pytest.approx(float(np.asarray(theirs(step))), rel=1e-5,
                                                  abs=1e-7), step
    assert ours.get_config() == theirs.get_config()


@pytest.mark.parametrize("case", ["sgd_nesterov", "adam_amsgrad", "ftrl", "lion", "ema"])
def test_configs_equal_keras(keras, case):
    name, kwargs = CASES[case]
    ours, theirs = _make(O, name, kwargs).get_config(), _make(keras.optimizers, name,
                                                              kwargs).get_config()
    ours.pop("name"), theirs.pop("name")
    assert ours == pytest.approx(theirs) if False else ours.keys() == theirs.keys()
    for k in ours:
        assert ours[k] == pytest.approx(theirs[k]) if isinstance(theirs[k], float) \
            else ours[k] == theirs[k], k


def test_save_load_and_set_weights_restore_the_state():
    v = fg.Variable([1., 2.])
    opt = O.Adam(0.1)
    opt.apply([fg.constant([1., -1.])], [v])
    store = {}
    opt.save_own_variables(store)
    other = O.Adam(0.1)
    other.build([v])
    other.load_own_variables(store)
    assert [x.numpy().tolist() for x in other.variables] == \
        [x.numpy().tolist() for x in opt.variables]
    fresh = O.Adam(0.1)
    fresh.build([v])
    fresh.set_weights([x.numpy() for x in opt.variables])
    assert int(fresh.iterations) == 1
    with pytest.warns(UserWarning, match="Skipping variable loading"):
        O.Adam().load_own_variables(store)
    with pytest.raises(ValueError, match="not built"):
        O.SGD().set_weights([])


@pytest.mark.parametrize("case", ["adam_amsgrad", "rmsprop_centered", "ftrl", "ema", "nadam"])
def test_variables_in_keras_order(keras, case):
    name, kwargs = CASES[case]
    ours, theirs = _make(O, name, kwargs), _make(keras.optimizers, name, kwargs)
    ours.build([fg.Variable(w) for w in W0])
    theirs.build([keras.Variable(w) for w in W0])
    assert [tuple(v.shape) for v in ours.variables] == \
        [tuple(v.shape) for v in theirs.variables]
    assert [str(v.dtype.name) for v in ours.variables] == \
        [str(v.dtype) for v in theirs.variables]


@pytest.mark.parametrize("case", ["adam", "sgd_momentum", "ftrl", "clipnorm", "adadelta"])
def test_sparse_gradients_update_as_their_dense_value(case):
    # as Keras 3 checks (optimizer_sparse_test): a gather's IndexedSlices gradient without
    # repeated indices gives the same variables as the same gradient dense (with repeated
    # indices Keras squares each duplicate row apart: tests/test_sparse_updates.py)
    name, kwargs = CASES[case]
    sparse_opt, dense_opt = _make(O, name, kwargs), _make(O, name, kwargs)
    vs, vd = fg.Variable(W0[0]), fg.Variable(W0[0])
    for idx in ([0, 2], [1], [2]):
        with fg.GradientTape() as tape:
            y = fg.reduce_sum(fg.gather(vs, idx) * 1.5)
        g = tape.gradient(y, vs)
        assert isinstance(g, fg.IndexedSlices)
        sparse_opt.apply_gradients([(g, vs)])
        dense_opt.apply_gradients([(fg.convert_to_tensor(g), vd)])
    np.testing.assert_allclose(vs.numpy(), vd.numpy(), rtol=1e-6)

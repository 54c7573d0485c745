"""MultiOptimizer and OptimizerMap: the variables each inner optimizer steps, 5 steps equal to
Keras 3.15's (live, TensorFlow 2.21) eagerly and traced, in a model trained with fit, the
variables' order, configs and errors."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.keras import optimizers as O

RNG = np.random.default_rng(3)
NAMES = ["encoder_kernel", "encoder_bias", "decoder_kernel"]
W0 = [RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=(2,)).astype(np.float32),
      RNG.normal(size=(2, 2)).astype(np.float32)]
GRADS = [[RNG.normal(size=w.shape).astype(np.float32) for w in W0] for _ in range(5)]


def _multi(module):
    return module.MultiOptimizer(module.OptimizerMap(
        module.SGD(0.1, momentum=0.5), {"encoder_.*": module.Adam(0.05),
                                        "decoder_kernel": module.RMSprop(0.01)}))


def test_the_map_picks_exact_keys_then_patterns_then_the_default():
    m = O.OptimizerMap(O.RMSprop(), {"encoder/layer_0/dense": O.Adam(), "encoder/.*": O.SGD()})
    assert type(m["encoder/layer_0/dense"]).__name__ == "Adam"
    assert type(m["encoder/layer_0/attention"]).__name__ == "SGD"
    assert type(m["decoder/dense"]).__name__ == "RMSprop"
    m["enc.*"] = O.Adam()
    with pytest.raises(ValueError, match="Multiple optimizers"):
        m["encoder/x"]
    with pytest.raises(ValueError, match="already exists"):
        m["enc.*"] = O.SGD()
    with pytest.raises(ValueError, match="LossScaleOptimizer"):
        m["z"] = O.LossScaleOptimizer(O.SGD())
    with pytest.raises(TypeError, match="default_optimizer"):
        O.OptimizerMap("sgd")
    opt = _multi(O)
    with pytest.raises(AttributeError, match="Learning rate cannot be accessed"):
        _ = opt.learning_rate


@pytest.fixture(scope="module")
def keras():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_five_steps_equal_keras(keras, traced):
    ours, theirs = _multi(O), _multi(keras.optimizers)
    vs = [fg.Variable(w, name=n) for w, n in zip(W0, NAMES, strict=True)]
    ks = [keras.Variable(w, name=n) for w, n in zip(W0, NAMES, strict=True)]

    def step(grads):
        ours.apply(grads, vs)
    step_fn = fg.function(step) if traced else step
    for grads in GRADS:
        step_fn([fg.constant(g) for g in grads])
        theirs.apply(grads, ks)
        for v, k in zip(vs, ks, strict=True):
            np.testing.assert_allclose(v.numpy(), np.asarray(k), rtol=2e-5, atol=2e-6)
    assert int(ours.iterations) == int(np.asarray(theirs.iterations)) == 5
    assert [tuple(v.shape) for v in ours.variables] == [tuple(v.shape) for v in theirs.variables]
    np.testing.assert_allclose(np.concatenate([np.ravel(v.numpy()) for v in ours.variables]),
                               np.concatenate([np.ravel(np.asarray(v))
                                               for v in theirs.variables]), rtol=2e-5)


def test_a_model_trained_with_fit_equals_keras(keras):
    fg.keras.backend.clear_session()
    x = RNG.normal(size=(8, 3)).astype("float32")
    y = RNG.normal(size=(8, 1)).astype("float32")
    ours = fg.keras.Sequential([fg.keras.Input((3,)), fg.keras.layers.Dense(4, name="enc"),
                                fg.keras.layers.Dense(1, name="dec")])
    theirs = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="enc"),
                               keras.layers.Dense(1, name="dec")])
    theirs.set_weights(ours.get_weights())
    for model, mod in ((ours, O), (theirs, keras.optimizers)):
        model.compile(mod.MultiOptimizer(mod.OptimizerMap(mod.SGD(0.1), {"enc/.*":
                                                                         mod.Adam(0.01)})),
                      "mse")
        model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_config_round_trip_and_a_selector_function():
    again = O.deserialize(O.serialize(_multi(O)))
    assert type(again) is O.MultiOptimizer
    assert [type(o).__name__ for o in again.optimizers] == ["Adam", "RMSprop", "SGD"]
    v, w = fg.Variable(1., name="a"), fg.Variable(1., name="b")
    picked = O.MultiOptimizer(lambda var: O.SGD(0.5) if "a" in var.name else O.SGD(0.1))
    picked.apply([fg.constant(1.), fg.constant(1.)], [v, w])
    assert (float(v), float(w)) == pytest.approx((0.5, 0.9))

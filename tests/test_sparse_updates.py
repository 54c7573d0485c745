"""Optimizers apply `IndexedSlices` gradients sparsely where Keras 3 (TensorFlow backend) does:
the values of variables and slots after steps with repeated indices equal Keras's, and rows no
index names keep their values where Keras's do."""
import numpy as np
import pytest

import finegrad as fg

VALUES = np.array([[1., 2.], [3., -1.], [0.5, 0.5]], np.float32)
INDICES = np.array([1, 3, 1], np.int32)
INIT = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
UNTOUCHED = [0, 2, 4, 5]

CASES = [("SGD", {}), ("SGD", {"momentum": 0.5}), ("SGD", {"momentum": 0.5, "nesterov": True}),
         ("SGD", {"clipnorm": 1.0}), ("SGD", {"global_clipnorm": 1.0}),
         ("SGD", {"clipvalue": 1.5}), ("SGD", {"weight_decay": 0.1}),
         ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {}),
         ("Adagrad", {}), ("Adagrad", {"clipnorm": 1.0}),
         ("RMSprop", {}), ("RMSprop", {"momentum": 0.5}), ("RMSprop", {"centered": True}),
         ("Adamax", {}), ("Nadam", {}),
         ("Adadelta", {}), ("Lion", {}), ("Ftrl", {})]
# Keras (TF) keeps the untouched rows of the variable unchanged for these (its sparse test).
SPARSE_VAR = {("SGD", ()), ("SGD", ("clipnorm",)), ("Adagrad", ("clipnorm",)),
              ("SGD", ("clipvalue",)), ("SGD", ("global_clipnorm",)), ("Adagrad", ()),
              ("RMSprop", ()), ("RMSprop", ("centered",)), ("Adadelta", ())}


def _grad(mod, step):
    ind = mod.constant(INDICES)
    return mod.IndexedSlices(mod.constant(VALUES * (step + 1)), ind, mod.constant([6, 2]))


def _run(mod, opt, make_var, steps=3):
    v = make_var(INIT.copy())
    for s in range(steps):
        opt.apply([_grad(mod, s)], [v])
    return v.numpy(), [np.asarray(x.numpy()) for x in opt.variables[2:]]


@pytest.mark.parametrize("name,kw", CASES)
def test_against_keras(name, kw):
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("Keras's sparse updates need KERAS_BACKEND=tensorflow")
    want_v, want_slots = _run(tf, getattr(keras.optimizers, name)(0.1, **kw), keras.Variable)
    got_v, got_slots = _run(fg, getattr(fg.keras.optimizers, name)(0.1, **kw), fg.Variable)
    np.testing.assert_allclose(got_v, want_v, rtol=2e-6, atol=1e-7)
    assert len(got_slots) == len(want_slots)
    for g, w in zip(got_slots, want_slots, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name,kw", [c for c in CASES if type(c) is tuple
                                     and (c[0], tuple(c[1])) in SPARSE_VAR])
def test_untouched_rows_keep_their_values(name, kw):
    v, _ = _run(fg, getattr(fg.keras.optimizers, name)(0.1, **kw), fg.Variable)
    np.testing.assert_array_equal(v[UNTOUCHED], INIT[UNTOUCHED])
    assert not np.array_equal(v[[1, 3]], INIT[[1, 3]])


def test_adagrad_accumulator_rows_and_duplicates():
    # the accumulator adds each duplicate row's square: 0.1 + 1^2 + 0.5^2 in row 1, col 0
    opt = fg.keras.optimizers.Adagrad(0.1)
    v = fg.Variable(INIT.copy())
    opt.apply([_grad(fg, 0)], [v])
    acc = opt.variables[2].numpy()
    np.testing.assert_allclose(acc[1], [0.1 + 1 + 0.25, 0.1 + 4 + 0.25], rtol=1e-6)
    np.testing.assert_array_equal(acc[UNTOUCHED], np.full((4, 2), 0.1, np.float32))


def test_sparse_step_in_a_traced_function():
    opt = fg.keras.optimizers.SGD(0.1)
    v = fg.Variable(INIT.copy())
    ids = fg.constant([1, 3, 1])

    @fg.function
    def step():
        with fg.GradientTape() as tape:
            loss = fg.reduce_sum(fg.gather(v, ids) * VALUES)
        g = tape.gradient(loss, v)
        assert isinstance(g, fg.IndexedSlices)
        opt.apply([g], [v])

    step()
    step()
    want = INIT.copy()
    np.subtract.at(want, INDICES, 0.2 * VALUES)
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(v.numpy()[UNTOUCHED], INIT[UNTOUCHED])


def test_loss_scale_optimizer_against_keras():
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("Keras's sparse updates need KERAS_BACKEND=tensorflow")
    want, _ = _run(tf, keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5)),
                   keras.Variable)
    got, _ = _run(fg, fg.keras.optimizers.LossScaleOptimizer(fg.keras.optimizers.SGD(0.5)),
                  fg.Variable)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(got[UNTOUCHED], INIT[UNTOUCHED])

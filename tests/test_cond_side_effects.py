"""A cond whose branches both return None (side effects only), or None beside tensors, as
TensorFlow allows: eagerly, in finegrad.function (with gradients and forward mode through
the tensor outputs), in a TF1 graph; a None against a tensor is still a ValueError."""
import numpy as np
import pytest

import finegrad as fg


def _counter_step(v):
    def step(x):
        def up():
            v.assign_add(x)

        def down():
            v.assign_sub(1.)
        return fg.cond(x > 0, up, down)
    return step


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_side_effect_only_branches(traced):
    v = fg.Variable(0.)
    step = _counter_step(v)
    f = fg.function(step) if traced else step
    seen = []
    for x in (2., -1., 3.):
        assert f(fg.constant(x)) is None
        seen.append(float(v.numpy()))
    assert seen == [2., 1., 4.]


def test_both_none_without_effects_and_none_beside_tensors():
    f = fg.function(lambda x: (fg.cond(x > 0, lambda: None, lambda: None), x)[1])
    assert float(f(fg.constant(1.))) == 1.
    k = fg.function(lambda x: fg.cond(x > 0, lambda: (x * 2, None), lambda: (x * 3, None)))
    y, none = k(fg.constant(2.))
    assert float(y) == 4. and none is None
    assert float(k(fg.constant(-2.))[0]) == -6.
    x = fg.constant(2.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = k(x)[0]
    assert float(tape.gradient(y, x)) == 2.
    with fg.autodiff.ForwardAccumulator(x, fg.constant(1.)) as acc:
        y = k(x)[0]
    assert float(acc.jvp(y)) == 2.


def test_none_against_a_tensor_is_a_value_error():
    f = fg.function(lambda x: fg.cond(x > 0, lambda: None, lambda: x))
    with pytest.raises(ValueError, match="finegrad.cond: true_fn and false_fn must return the "
                                         "same structure"):
        f(fg.constant(1.))


def test_tensorflow_accepts_it_too():
    tf = pytest.importorskip("tensorflow")
    v = tf.Variable(0.)

    @tf.function
    def f(x):
        def up():
            v.assign_add(x)
        tf.cond(x > 0, up, lambda: None)
        return v.read_value()
    assert np.isclose(float(f(tf.constant(2.))), 2.)

"""TF1 ``Session`` with ``ConfigProto(graph_options=GraphOptions(optimizer_options=
OptimizerOptions(global_jit_level=ON_1)))``: the session compiles what ``run`` runs with XLA
(finegrad/_src/graph/xla/), and gives the values the plain session gives: a training loop
with an optimizer's slots and a global step (variables read and assigned in the session's
own values), fed None sizes, an uninitialized variable's error. Off by default."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import FailedPreconditionError

v1 = fg.compat.v1
jax = pytest.importorskip("jax")


def jit_config(level=v1.OptimizerOptions.ON_1):
    return v1.ConfigProto(graph_options=v1.GraphOptions(
        optimizer_options=v1.OptimizerOptions(global_jit_level=level)))


def _train(config, make, steps=4):
    with fg.Graph().as_default():
        w = v1.get_variable("w", initializer=np.array([[1., -2.], [0.5, 3.]], np.float32))
        x = v1.placeholder(fg.float32, [None, 2])
        loss = fg.reduce_sum(fg.tanh(fg.matmul(x, w)) ** 2)
        step = v1.train.get_or_create_global_step()
        train = make().minimize(loss, global_step=step)
        with v1.Session(config=config) as sess:
            sess.run(v1.global_variables_initializer())
            losses = [sess.run([train, loss], {x: np.full((k + 1, 2), 0.3 * k, np.float32)})[1]
                      for k in range(steps)]
            plans = [p.conc for p in sess._plans.values()]
            return sess.run(w), int(sess.run(step)), losses, plans


@pytest.mark.parametrize("make", [lambda: v1.train.AdamOptimizer(0.1),
                                  lambda: v1.train.MomentumOptimizer(0.1, 0.9)])
def test_training_loop_under_xla_matches_the_plain_session(make):
    w, step, losses, plans = _train(jit_config(), make)
    w0, step0, losses0, plans0 = _train(None, make)
    np.testing.assert_allclose(w, w0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(losses, losses0, rtol=1e-5, atol=1e-6)
    assert step == step0 == 4
    assert all(p.jit_compile for p in plans) and not any(p.jit_compile for p in plans0)
    xla_run = [p for p in plans if p._xla is not None]
    assert xla_run and "host callbacks: none" in xla_run[0].compiled_source
    assert all(p._xla is None for p in plans0)


@pytest.mark.parametrize("level, on", [(v1.OptimizerOptions.ON_2, True),
                                       (v1.OptimizerOptions.OFF, False),
                                       (v1.OptimizerOptions.DEFAULT, False), (None, False)])
def test_only_on_1_and_on_2_compile(level, on):
    config = v1.ConfigProto() if level is None else jit_config(level)
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [3])
        y = fg.exp(x) * 2.
        with v1.Session(config=config) as sess:
            np.testing.assert_allclose(sess.run(y, {x: [0., 1., 2.]}),
                                       2 * np.exp([0., 1., 2.]), rtol=1e-6)
            (plan,) = sess._plans.values()
    assert (plan.conc._xla is not None) == on


def test_config_set_field_by_field_as_tf_programs_do():
    config = v1.ConfigProto()
    config.graph_options.optimizer_options.global_jit_level = v1.OptimizerOptions.ON_1
    assert isinstance(config.graph_options, v1.GraphOptions)
    assert isinstance(config.graph_options.optimizer_options, v1.OptimizerOptions)
    with fg.Graph().as_default():
        v = v1.get_variable("v", initializer=np.float32(2.))
        with v1.Session(config=config) as sess:
            with pytest.raises(FailedPreconditionError, match="uninitialized"):
                sess.run(v * 3.)
            sess.run(v1.global_variables_initializer())
            assert sess.run(v.assign_add(1.)) == 3. and sess.run(v * 3.) == 9.
            assert sess.run(v.assign_add(1.)) == 4. and sess.run(v * 3.) == 12.
            assert all(p.conc._xla is not None for p in list(sess._plans.values())[-2:])
        with v1.Session(config=config) as other:   # a session of its own values
            other.run(v1.global_variables_initializer())
            assert other.run(v * 3.) == 6.
        assert v._storage == 2.   # the sessions' values, not the variable's own


def test_tf_optimizer_options_values():
    real = pytest.importorskip("tensorflow")
    o = real.compat.v1.OptimizerOptions
    assert (o.DEFAULT, o.OFF, o.ON_1, o.ON_2, o.L0, o.L1) == (
        v1.OptimizerOptions.DEFAULT, v1.OptimizerOptions.OFF, v1.OptimizerOptions.ON_1,
        v1.OptimizerOptions.ON_2, v1.OptimizerOptions.L0, v1.OptimizerOptions.L1)

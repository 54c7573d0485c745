"""tf.distribute on one machine: contexts, collectives and reductions as TensorFlow 2.21 gives
them (values recorded from TF 2.21 with one replica on the CPU)."""
import numpy as np
import pytest

import finegrad as tf

d = tf.distribute


def test_the_default_context():
    s = d.get_strategy()
    assert s.num_replicas_in_sync == 1
    assert not d.has_strategy() and not d.in_cross_replica_context()
    ctx = d.get_replica_context()
    assert ctx.strategy is s and ctx.num_replicas_in_sync == 1
    assert int(ctx.replica_id_in_sync_group) == 0
    with s.scope():
        assert not d.has_strategy()


@pytest.mark.parametrize("strategy", [d.MirroredStrategy(), d.OneDeviceStrategy("/cpu:0")])
def test_scope_is_cross_replica_and_run_is_a_replica(strategy):
    with strategy.scope():
        assert d.has_strategy() and d.in_cross_replica_context()
        assert d.get_replica_context() is None and d.get_strategy() is strategy

    def step(a):
        ctx = d.get_replica_context()
        return ctx.all_reduce("sum", a * 2), ctx.replica_id_in_sync_group, \
            d.in_cross_replica_context()

    total, rid, cross = strategy.run(step, args=(tf.constant([1., 2.]),))
    np.testing.assert_array_equal(total.numpy(), [2., 4.])
    assert int(rid) == 0 and cross is False
    assert not d.has_strategy()


def test_collectives_keep_structures_and_are_differentiable():
    ctx = d.get_replica_context()
    x = tf.constant([1., 2.])
    out = ctx.all_reduce(d.ReduceOp.MEAN, {"a": x, "b": [x]})
    np.testing.assert_array_equal(out["b"][0].numpy(), [1., 2.])
    np.testing.assert_array_equal(ctx.all_gather(x, axis=0).numpy(), [1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(ctx.all_reduce("sum", x * x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2., 4.])   # TF: [2. 4.]


def test_merge_call_runs_in_the_cross_replica_context():
    ctx = d.get_replica_context()
    seen = ctx.merge_call(lambda s, a: (s, d.in_cross_replica_context(), a), args=(3,))
    assert seen == (d.get_strategy(), True, 3)


def test_reduce_over_replicas_and_an_axis():
    m = d.MirroredStrategy()
    x = tf.constant([1., 2.])
    np.testing.assert_array_equal(m.reduce("SUM", x, axis=None).numpy(), [1., 2.])
    assert float(m.reduce("MEAN", x, axis=0)) == 1.5          # TF: 1.5
    assert float(m.reduce("SUM", x, axis=0)) == 3.0           # TF: 3.0
    np.testing.assert_array_equal(
        m.reduce("MEAN", tf.constant([[1., 2.], [3., 4.]]), axis=0).numpy(), [2., 3.])
    assert m.experimental_local_results(x) == (x,)


def test_errors_are_tensorflows():
    ctx = d.get_replica_context()
    with pytest.raises(ValueError, match="ReplicaContext.all_reduce: reduce_op .* 'max'"):
        ctx.all_reduce("max", tf.constant(1.))
    with pytest.raises(TypeError):
        d.MirroredStrategy().reduce("SUM", tf.constant(1.))       # axis is required, as in TF
    m, o = d.MirroredStrategy(), d.OneDeviceStrategy("/cpu:0")
    with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy"):
        with m.scope(), o.scope():
            pass
    assert not d.has_strategy()


def test_datasets_are_distributed_unchanged():
    m = d.MirroredStrategy()
    batches = [np.array([1., 2.]), np.array([3., 4.])]
    assert list(m.experimental_distribute_dataset(batches)) == batches
    got = m.distribute_datasets_from_function(
        lambda ctx: [ctx.get_per_replica_batch_size(8), ctx.num_input_pipelines])
    assert list(got) == [8, 1]

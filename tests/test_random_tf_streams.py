"""Seeded random draws outside TF1 graphs (eagerly and in `finegrad.function`) give
TensorFlow 2's values: its op seeds (the eager context's ``random.Random(global seed)``, a
function graph's counter), its kernels' Philox streams, its kernel cache (eager ops with the
same seeds continue one generator) and `set_seed` restarting every generator; the stateless
ops too. Compared live with TensorFlow."""

import numpy as np
import pytest

import finegrad as fg


def _eager_draws(T):
    r = T.random
    r.set_seed(1234)
    out = [r.normal([5]), r.normal([5]), r.normal([3], seed=7), r.normal([3], seed=7),
           r.uniform([4], seed=7), r.uniform([4]),
           r.uniform([4], minval=2, maxval=9, dtype=T.int32),
           r.uniform([4], minval=-5, maxval=9, dtype=T.int64, seed=3),
           r.uniform([3], dtype=T.float64), r.normal([3], dtype=T.float64, mean=1., stddev=2.),
           r.uniform([2, 2], minval=-1., maxval=3.),
           r.truncated_normal([6]), r.truncated_normal([6], seed=5),
           r.truncated_normal([3], dtype=T.float64),
           r.shuffle(T.range(10)), r.shuffle(T.range(10), seed=4),
           r.categorical(T.math.log([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]), 6),
           r.gamma([4], 2.), r.gamma([4], [0.5, 3.], seed=9), r.gamma([2], 1.5, beta=2.),
           r.poisson([4], 3.), r.poisson([4], [0.5, 30.], seed=9)]
    r.set_seed(0)   # (0, op seed) pairs
    out += [r.uniform([3]), r.normal([2], seed=0)]
    r.set_seed(None)
    out += [r.normal([3], seed=11), r.normal([3], seed=11), r.uniform([3], seed=11)]
    return [np.asarray(o) for o in out]


def _traced_draws(T):
    r = T.random
    r.set_seed(99)

    @T.function
    def f():
        return (r.normal([3]), r.uniform([2], seed=5), r.uniform([2], seed=5),
                r.uniform([3], maxval=10, dtype=T.int32), r.truncated_normal([4]),
                r.shuffle(T.range(6)), r.categorical([[0., 1., 2.]], 4),
                r.gamma([2], 1.5), r.poisson([2], 4.))

    out = [o for _ in range(3) for o in f()]   # each call continues the op's generator
    out.append(r.normal([2]))                 # an eager op between calls

    @T.function
    def g(x):
        return x + r.normal([2], seed=3)
    out += [g(T.constant([0., 0.])), g(T.constant([0., 0.]))]
    r.set_seed(5)       # restarts f's generators (f is not traced again)
    out += list(f())
    return [np.asarray(o) for o in out]


def _stateless_draws(T):
    r, s = T.random, [3, 4]
    return [np.asarray(o) for o in [
        r.stateless_normal([5], s), r.stateless_uniform([5], s),
        r.stateless_uniform([5], s, minval=1, maxval=9, dtype=T.int32),
        r.stateless_uniform([5], s, minval=1, maxval=9, dtype=T.int64),
        r.stateless_truncated_normal([5], s), r.stateless_categorical([[0., 1., 2.]], 5, s),
        r.stateless_normal([3], s, dtype=T.float64),
        r.stateless_gamma([3], s, alpha=[1.5, 0.5, 4.]),
        r.stateless_gamma([2, 3], [7, 8], alpha=[1., 2., 3.], beta=[2., 1., 1.]),
        r.stateless_poisson([3], s, lam=[1., 5., 20.]),
        r.stateless_poisson([2, 3], [7, 8], lam=[1., 2., 300.], dtype=T.float32)]]


@pytest.mark.parametrize("draws", [_eager_draws, _traced_draws, _stateless_draws])
def test_seeded_draws_are_tensorflows(draws):
    tf = pytest.importorskip("tensorflow")
    try:
        want = draws(tf)
        got = draws(fg)
    finally:
        tf.random.set_seed(None)
        fg.random.set_seed(None)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert a.shape == b.shape and a.dtype == b.dtype, i
        if a.dtype.kind == "f":   # normals: the C library's log/sin/cos, as TensorFlow's
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7, err_msg=str(i))
        else:
            np.testing.assert_array_equal(a, b, err_msg=str(i))


def test_eager_op_seeds_follow_pythons_random():
    """Without TensorFlow: an op without a seed under set_seed(s) is the op seeded with the
    next randint of random.Random(s) (what TensorFlow's eager context does)."""
    import random
    try:
        fg.random.set_seed(42)
        a = fg.random.uniform([3])
        op_seed = random.Random(42).randint(0, 2 ** 31 - 1)
        fg.random.set_seed(42)
        b = fg.random.uniform([3], seed=op_seed)
    finally:
        fg.random.set_seed(None)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_traced_functions_generators_restart_at_set_seed():
    @fg.function
    def f():
        return fg.random.normal([3], seed=1)
    try:
        fg.random.set_seed(3)
        first, second = f().numpy(), f().numpy()
        assert not np.array_equal(first, second)
        fg.random.set_seed(3)
        np.testing.assert_array_equal(f().numpy(), first)
    finally:
        fg.random.set_seed(None)

"""finegrad.random: TensorFlow's seed semantics, new values per call of a traced function,
stateless ops as pure functions of (shape, seed), distributions, gradients and errors."""
import numpy as np
import pytest

import finegrad as fg


def _eq(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def test_set_seed_makes_a_program_reproducible():
    def program():
        return [fg.random.normal([3]), fg.random.uniform([2]), fg.random.normal([3], seed=7),
                fg.random.normal([3], seed=7), fg.random.truncated_normal([4])]
    fg.random.set_seed(5)
    a = program()
    fg.random.set_seed(5)
    b = program()
    assert all(_eq(x, y) for x, y in zip(a, b, strict=True))
    assert not _eq(a[0], program()[0])
    # the same op seed continues one stream eagerly (TensorFlow's kernel cache)
    assert not _eq(a[2], a[3])
    fg.random.set_seed(6)
    assert not _eq(a[0], fg.random.normal([3]))


def test_op_seed_without_global_seed_is_deterministic():
    fg.random.set_seed(None)
    a = fg.random.uniform([3], seed=11)
    fg.random.set_seed(None)
    assert _eq(a, fg.random.uniform([3], seed=11))


def test_traced_random_ops_draw_new_values_on_every_call():
    @fg.function
    def f():
        return fg.random.normal([3]), fg.random.normal([3])
    fg.random.set_seed(3)
    a1, b1 = f()
    a2, b2 = f()
    assert not _eq(a1, a2) and not _eq(a1, b1)   # new values per call, two distinct nodes
    fg.random.set_seed(3)
    c1, _ = f()
    assert _eq(a1, c1)       # set_seed restarts the graph's streams
    fg.random.set_seed(3)   # eager op seeds come from Python's random.Random(3), traced
    assert not _eq(a1, fg.random.normal([3]))   # ones count from 0: TensorFlow's values differ


def test_traced_without_any_seed_is_fresh_per_call():
    fg.random.set_seed(None)
    f = fg.function(lambda x: x + fg.random.uniform([4]))
    assert not _eq(f(fg.zeros([4])), f(fg.zeros([4])))


def test_generator_state_advances_eagerly_and_traced():
    g = fg.random.Generator.from_seed(2)
    a, b = g.normal([3]), g.normal([3])
    assert not _eq(a, b)
    h = fg.random.Generator.from_seed(2)
    f = fg.function(lambda: h.normal([3]))
    assert _eq(f(), a) and _eq(f(), b)
    seeds = g.make_seeds(2)
    assert seeds.shape == (2, 2) and seeds.dtype == fg.int64
    x, y = g.split(2)
    assert not _eq(x.uniform([3]), y.uniform([3]))
    fg.random.set_global_generator(fg.random.Generator.from_seed(9))
    assert _eq(fg.random.get_global_generator().normal([2]),
               fg.random.Generator.from_seed(9).normal([2]))
    with pytest.raises(TypeError, match="set_global_generator"):
        fg.random.set_global_generator(3)


@pytest.mark.parametrize("op", ["stateless_normal", "stateless_uniform",
                                "stateless_truncated_normal"])
def test_stateless_ops_are_pure_functions_of_the_seed(op):
    fn = getattr(fg.random, op)
    a = fn([2, 3], seed=[1, 2])
    assert _eq(a, fn([2, 3], seed=[1, 2]))
    assert not _eq(a, fn([2, 3], seed=[1, 3]))
    traced = fg.function(lambda s: fn([2, 3], seed=s))
    assert _eq(traced(fg.constant([1, 2])), a)
    assert _eq(traced(fg.constant([1, 3])), fn([2, 3], seed=[1, 3]))
    assert fn([2], seed=[0, 0], dtype=fg.float64).dtype == fg.float64


def test_distributions():
    fg.random.set_seed(0)
    x = fg.random.normal([20000], mean=2., stddev=3.).numpy()
    assert abs(x.mean() - 2) < 0.1 and abs(x.std() - 3) < 0.1
    u = fg.random.uniform([20000], minval=-1., maxval=3.).numpy()
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.05
    t = fg.random.truncated_normal([20000]).numpy()
    assert np.abs(t).max() <= 2 and abs(t.std() - 0.88) < 0.02   # TF's truncated std
    i = fg.random.uniform([1000], minval=-2, maxval=3, dtype=fg.int64).numpy()
    assert i.dtype == np.int64 and set(i.tolist()) == {-2, -1, 0, 1, 2}
    c = fg.random.categorical(np.log([[0.2, 0.8]]), 20000).numpy()
    assert c.dtype == np.int64 and c.shape == (1, 20000) and abs(c.mean() - 0.8) < 0.02
    s = fg.random.stateless_categorical(np.log([[0.5, 0.5]]), 4000, seed=[1, 1], dtype=fg.int32)
    assert s.dtype == fg.int32 and abs(s.numpy().mean() - 0.5) < 0.05
    v = fg.random.shuffle(fg.range(10)).numpy()
    assert sorted(v.tolist()) == list(range(10))


def test_shapes_in_every_accepted_form():
    for shape in ([2, 3], (2, 3), fg.TensorShape([2, 3]), fg.constant([2, 3]),
                  np.array([2, 3])):
        assert fg.random.normal(shape).shape == (2, 3)
    assert fg.random.uniform([]).shape == ()


def test_mean_stddev_and_bounds_are_differentiable():
    m, s = fg.constant(1.), fg.constant(2.)
    with fg.GradientTape() as tape:
        tape.watch([m, s])
        y = fg.random.normal([5], mean=m, stddev=s, seed=1)
    gm, gs = tape.gradient(y, [m, s])
    noise = (y.numpy() - 1) / 2
    assert gm.numpy() == 5 and np.isclose(gs.numpy(), noise.sum(), rtol=1e-5)
    lo, hi = fg.constant(1.), fg.constant(3.)
    with fg.GradientTape() as tape:
        tape.watch([lo, hi])
        u = fg.random.uniform([4], minval=lo, maxval=hi, seed=2)
    glo, ghi = tape.gradient(u, [lo, hi])
    r = (u.numpy() - 1) / 2
    assert np.isclose(ghi.numpy(), r.sum()) and np.isclose(glo.numpy(), (1 - r).sum())
    x = fg.constant([1., 2., 3.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.random.shuffle(x)
    assert tape.gradient(y, x) is None   # TensorFlow's RandomShuffle has no gradient


def test_bad_arguments_name_the_function_and_argument():
    with pytest.raises(ValueError, match=r"finegrad.random.uniform: .*needs maxval"):
        fg.random.uniform([2], dtype=fg.int32)
    with pytest.raises(TypeError, match=r"finegrad.random.normal: dtype"):
        fg.random.normal([2], dtype=fg.int32)
    with pytest.raises(TypeError, match=r"finegrad.random.normal: shape"):
        fg.random.normal([2.5])
    with pytest.raises(ValueError, match=r"finegrad.random.normal: shape must not be negative"):
        fg.random.normal([-1])
    with pytest.raises(ValueError, match=r"stateless_normal: seed must be"):
        fg.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match=r"finegrad.random.categorical: logits must be 2-D"):
        fg.random.categorical([0., 1.], 2)
    with pytest.raises(ValueError, match=r"minval < maxval"):
        fg.random.uniform([2], 3, 3, dtype=fg.int32)


# ---- nn.dropout ------------------------------------------------------------------------------

def test_dropout_scales_kept_values_and_its_gradient_is_the_scaled_mask():
    x = fg.constant(np.arange(1., 2001.).reshape(40, 50))
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.nn.dropout(x, 0.25, seed=3)
    kept = y.numpy() != 0
    assert np.allclose(y.numpy()[kept], x.numpy()[kept] / 0.75)
    assert abs(kept.mean() - 0.75) < 0.03
    assert np.allclose(tape.gradient(y, x).numpy(), kept / 0.75)
    r = fg.constant(0.5)
    assert set(np.unique(fg.nn.dropout(fg.ones([100]), r).numpy())) <= {0., 2.}


def test_dropout_noise_shape_broadcasts_one_draw():
    y = fg.nn.dropout(fg.ones([30, 4]), 0.5, noise_shape=[30, 1]).numpy()
    assert (y == y[:, :1]).all()
    y = fg.nn.dropout(fg.ones([3, 40]), 0.5, noise_shape=[1, None]).numpy()
    assert (y == y[:1]).all()
    with pytest.raises(ValueError, match="finegrad.nn.dropout: noise_shape"):
        fg.nn.dropout(fg.ones([3, 4]), 0.5, noise_shape=[2, 4])


def test_dropout_traced_draws_a_new_mask_per_call():
    f = fg.function(lambda x: fg.nn.dropout(x, 0.5))
    x = fg.ones([64])
    assert not _eq(f(x), f(x))


def test_dropout_refuses_bad_rates():
    for rate in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"finegrad.nn.dropout: rate"):
            fg.nn.dropout(fg.ones([2]), rate)
    with pytest.raises(TypeError, match="finegrad.nn.dropout: x must be floating"):
        fg.nn.dropout(fg.constant([1, 2]), 0.5)
    assert _eq(fg.nn.dropout(fg.ones([3]), 0.0), fg.ones([3]))


def test_float16_draws():
    assert fg.random.uniform([1000], dtype=fg.float16).numpy().max() < 1
    assert np.abs(fg.random.normal([1000], dtype=fg.float16).numpy()).max() > 1


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("seed", [[1, 2], [-1, 2 ** 40], [0, 0]])
def test_stateless_uniform_is_tensorflows_bit_for_bit(dtype, seed):
    tf = pytest.importorskip("tensorflow")
    for shape in ([7], [2, 3], []):
        ours = fg.random.stateless_uniform(shape, seed, dtype=getattr(fg, dtype)).numpy()
        theirs = tf.random.stateless_uniform(shape, seed, dtype=getattr(tf, dtype)).numpy()
        assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_stateless_uniform_integers_are_tensorflows(dtype):
    tf = pytest.importorskip("tensorflow")
    ours = fg.random.stateless_uniform([9], [5, 6], -3, 10, getattr(fg, dtype)).numpy()
    theirs = tf.random.stateless_uniform([9], [5, 6], -3, 10, getattr(tf, dtype)).numpy()
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12)])
def test_stateless_normal_is_tensorflows(dtype, tol):
    """Box-Muller's log/sin/cos are NumPy's, not Eigen's: float32 may differ in the last bits."""
    tf = pytest.importorskip("tensorflow")
    ours = fg.random.stateless_normal([3, 5], [7, 8], dtype=getattr(fg, dtype)).numpy()
    theirs = tf.random.stateless_normal([3, 5], [7, 8], dtype=getattr(tf, dtype)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_dropout_in_a_function_serves_every_batch_size():
    f = fg.function(lambda x: fg.nn.dropout(x, 0.5), input_signature=[fg.TensorSpec([None, 3])])
    assert f(fg.ones([2, 3])).shape == (2, 3)
    y = f(fg.ones([50, 3])).numpy()
    assert y.shape == (50, 3) and set(np.unique(y)) <= {0., 2.}
    assert f.experimental_get_tracing_count() == 1
    g = fg.function(lambda x: fg.nn.dropout(x, 0.5, noise_shape=[None, 1]),
                    input_signature=[fg.TensorSpec([None, 3])])
    with pytest.warns(UserWarning, match="dropout with a noise_shape"):
        assert g(fg.ones([2, 3])).shape == (2, 3) and g(fg.ones([5, 3])).shape == (5, 3)


def test_poisson():
    fg.random.set_seed(4)
    x = fg.random.poisson([5000], [0.5, 4.])
    assert x.shape == (5000, 2) and x.dtype == fg.float32
    assert np.allclose(x.numpy().mean(0), [0.5, 4.], atol=0.15)
    assert fg.random.poisson([3], 2., dtype=fg.int64).dtype == fg.int64
    lam = fg.constant(2.)
    with fg.GradientTape() as tape:
        tape.watch(lam)
        y = fg.random.poisson([3], lam)
    assert tape.gradient(y, lam) is None
    f = fg.function(lambda: fg.random.poisson([20], 3.))
    assert not _eq(f(), f())
    with pytest.raises(TypeError, match="finegrad.random.poisson: lam"):
        fg.random.poisson([2], fg.constant([1, 2]))

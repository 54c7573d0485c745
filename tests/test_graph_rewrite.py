"""The graph rewrite passes of `graph/compile/rewrite.py`: each happens where it should (seen in the
compiled source) and gives the same values, to the bit, as the unrewritten ops run eagerly."""
import numpy as np

import finegrad as tf
from finegrad._src.graph.compile import jit


def _grad_of_slices(x, slices):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = 0.
        for k, s in enumerate(slices):
            y = y + tf.reduce_sum(tf.square(x[s]) * float(k + 1))
    return tape.gradient(y, x)


def _bitwise(a, b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_merge_scatters_adds_disjoint_slices_into_one_array():
    """The gradient of x[0::2] and x[1::2]: one scatter of both into one array of zeros."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10)
    x[3] = -0.0        # signed zeros stay as the unmerged ops give them
    slices = (slice(0, None, 2), slice(1, None, 2))
    f = tf.function(lambda x: _grad_of_slices(x, slices))
    src = f.get_concrete_function(tf.constant(x)).compiled_source
    assert src.count("= scatter_sum_into_zeros(") == 1 and "scatter_add_into_zeros" not in src
    _bitwise(f(tf.constant(x)).numpy(), _grad_of_slices(tf.constant(x), slices).numpy())
    want = np.empty_like(x)
    want[0::2], want[1::2] = 2 * x[0::2], 4 * x[1::2]
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), want, rtol=1e-15)


def test_merge_scatters_chains_three_and_keeps_overlapping_apart():
    """Three disjoint slices merge into one node; overlapping ones are left as they are (a
    merged sum would round in another order)."""
    x = np.random.default_rng(1).standard_normal(12).astype(np.float32)
    three = (slice(0, 4), slice(4, 8), slice(8, 12))
    f = tf.function(lambda x: _grad_of_slices(x, three))
    src = f.get_concrete_function(tf.constant(x)).compiled_source
    assert src.count("= scatter_sum_into_zeros(") == 1 and "scatter_add_into_zeros" not in src
    _bitwise(f(tf.constant(x)).numpy(), _grad_of_slices(tf.constant(x), three).numpy())
    overlap = (slice(0, 8), slice(4, 12))
    g = tf.function(lambda x: _grad_of_slices(x, overlap))
    src = g.get_concrete_function(tf.constant(x)).compiled_source
    assert "scatter_sum_into_zeros" not in src and src.count("scatter_add_into_zeros(") == 2
    _bitwise(g(tf.constant(x)).numpy(), _grad_of_slices(tf.constant(x), overlap).numpy())


def test_merge_scatters_with_gathered_indices():
    """Disjoint integer-array indices (np.add.at scatters) merge too, with the same values."""
    x = np.random.default_rng(2).standard_normal(8)
    idx = (np.array([0, 2, 2, 5]), np.array([1, 3, 7]))

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x[idx[0]] ** 2) + tf.reduce_sum(x[idx[1]] ** 3)
        return tape.gradient(y, x)

    f = tf.function(grad)
    src = f.get_concrete_function(tf.constant(x)).compiled_source
    assert src.count("= scatter_sum_into_zeros(") == 1 and "scatter_add_into_zeros" not in src
    _bitwise(f(tf.constant(x)).numpy(), grad(tf.constant(x)).numpy())


def test_fold_negations_into_scalar_multipliers():
    """-(c * -x) is c * x and -(c * x) * d is x * (-c) * d: no negative left, same bits."""
    def f(x):
        return -(3. * -x) + (-(x * 0.7)) * 1.3 + 2. * -tf.exp(x)

    x = tf.constant(np.random.default_rng(3).standard_normal(9))
    g = tf.function(f)
    src = g.get_concrete_function(x).compiled_source
    assert "negative(" not in src, src
    _bitwise(g(x).numpy(), f(x).numpy())


def test_fold_negations_keeps_a_negative_read_twice():
    """A negation whose value is used again (or returned) stays; values unchanged."""
    def f(x):
        n = -x
        return n * 2., n + 1., -(x * 4.)

    x = tf.constant(np.array([1.5, -0.0, np.inf, np.nan], np.float32))
    g = tf.function(f)
    src = g.get_concrete_function(x).compiled_source
    assert src.count(" = negative(") == 1, src
    for got, want in zip(g(x), f(x), strict=True):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.numpy().dtype == want.numpy().dtype


def rosenbrock_hvp(x, v):
    """The Hessian-vector product of the extended Rosenbrock function at ``x`` along ``v``,
    forward over reverse through strided slices (bench g4)."""
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            a, b = x[0::2], x[1::2]
            y = tf.reduce_sum(100. * tf.square(b - tf.square(a)) + tf.square(1. - a))
        g = tape.gradient(y, x)
    return acc.jvp(g)


def test_traced_hessian_vector_product_after_the_rewrites():
    """Forward over reverse through strided slices (the Rosenbrock HVP of bench g4): both
    passes apply, and the traced result is the eager one to the bit."""
    rng = np.random.default_rng(4)
    x, v = (tf.constant(rng.standard_normal(10)) for _ in range(2))
    f = tf.function(rosenbrock_hvp)
    src = f.get_concrete_function(x, v).compiled_source
    assert "scatter_sum_into_zeros(" in src and "scatter_add_into_zeros" not in src
    assert "negative(" not in src, src
    _bitwise(f(x, v).numpy(), rosenbrock_hvp(x, v).numpy())


def test_copy_slices_into_recycled_buffers(monkeypatch):
    """A large strided slice (copied by strided_slice) is copied into a recycled buffer in a
    compiled graph: same values, the inputs and earlier results left intact. One read by a
    single (unfused) elementwise op is a view instead: that op reads it directly. (NumPy's
    ufuncs: compiled chains read views, tests/test_jit.py.)"""
    monkeypatch.setattr(jit, "enabled", lambda: False)
    def f(x):
        a = x[0::2]
        return a * 2. + x[1::2] * a, tf.reduce_sum(x[::3])

    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(20000) for _ in range(3)]
    g = tf.function(f)
    src = g.get_concrete_function(tf.constant(xs[0])).compiled_source
    assert src.count("= strided_slice_copy(") == 2, src
    assert src.count("= strided_slice_view(") == 1, src
    kept = [(x.copy(), g(tf.constant(x)), f(tf.constant(x))) for x in xs]
    for _, got, want in kept:       # each result still its own after the later calls
        _bitwise(got[0].numpy(), want[0].numpy())
        _bitwise(got[1].numpy(), want[1].numpy())
    for x, (saved, _, _) in zip(xs, kept, strict=True):
        _bitwise(x, saved)
    small = tf.function(f).get_concrete_function(tf.constant(xs[0][:100])).compiled_source
    assert "strided_slice_copy" not in small and "strided_slice_view" not in small


def test_merge_scatters_covering_every_element_and_with_integer_indices():
    """Slices covering the whole array write each element once (no zeros first); an
    integer index among them, or a gap, keeps the zeroed path; values identical."""
    x = np.random.default_rng(6).standard_normal(9)
    x[4] = -0.0
    for slices in ((slice(0, 4), slice(4, 9)), (slice(0, 4), 4, slice(5, 9)),
                   (slice(0, 3), slice(5, 9))):
        f = tf.function(lambda x, slices=slices: _grad_of_slices(x, slices))
        src = f.get_concrete_function(tf.constant(x)).compiled_source
        assert "= scatter_sum_into_zeros(" in src, src
        assert ("covers=True" in src) == (slices == (slice(0, 4), slice(4, 9))), src
        for _ in range(2):    # the second call writes into a recycled buffer
            _bitwise(f(tf.constant(x)).numpy(), _grad_of_slices(tf.constant(x), slices).numpy())

"""Under ``jit_compile=True``, a Jacobian's products of its identity seed with a matrix
(`structure.diagonal_matmuls`, the executor's pass) are lowered as scalings too: the program
holds a ``lax.cond`` between the scaling and the dense product (run where a nan or an
infinity could make them differ), never an n^3 product on the scaling's path. Values and
gradients equal the uncompiled graph's (float32 1e-5, float64 1e-12) and the closed forms."""
import numpy as np
import pytest

import finegrad as tf

pytest.importorskip("jax")

FORMS = {
    "cols": lambda w, x: tf.tanh(tf.linalg.matvec(w, x)),
    "rows": lambda w, x: tf.sin(tf.reshape(tf.matmul(tf.reshape(x, (1, -1)), w), (-1,))),
    "chain": lambda w, x: tf.tanh(tf.linalg.matvec(w, x)) * 3. * x,
}
TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _jacobian(f, method="jacobian"):
    def jac(w, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(w, x)
        return getattr(tape, method)(y, x)
    return jac


def _compare(fn, *args, dtype=np.float32, scaled=True):
    """fn compiled with XLA against the same traced without it; the XLA listing."""
    xla, plain = tf.function(fn, jit_compile=True), tf.function(fn)
    args = [tf.constant(a) for a in args]
    got, want = xla(*args).numpy(), plain(*args).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    src = xla.get_concrete_function(*args).compiled_source
    assert "host callbacks: none" in src, src
    if scaled is not None:   # (None: either)
        assert ("cond[" in src) == scaled, src
    return got


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_jacobians_compile_to_scalings_with_the_graph_values(form, dtype):
    rng = np.random.default_rng(3)
    for n in (2, 30):
        w = rng.standard_normal((n, n)).astype(dtype)
        x = rng.standard_normal(n).astype(dtype)
        got = _compare(_jacobian(FORMS[form]), w, x, dtype=dtype)
        if form == "cols":
            y = np.tanh(w @ x)
            np.testing.assert_allclose(got, (1 - y * y)[:, None] * w, rtol=10 * TOL[dtype],
                                       atol=10 * TOL[dtype])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_infinity_take_the_dense_branch(bad):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 6))
    x = rng.standard_normal(6)
    w[2, 3] = bad
    got = _compare(_jacobian(FORMS["rows"]), w, x, dtype=np.float64)
    assert np.isnan(got).any()


@pytest.mark.parametrize("form", ["rows", "cols"])
def test_infinities_that_cancel_in_a_row_take_the_dense_branch(form):
    """The finiteness check sums the other operand's rows: inf and -inf in one row sum to
    nan, which the check sees, and the dense product's nans come through."""
    rng = np.random.default_rng(6)
    w, x = rng.standard_normal((6, 6)), rng.standard_normal(6)
    w[1, 2], w[1, 4] = np.inf, -np.inf
    got = _compare(_jacobian(FORMS[form]), w, x, dtype=np.float64)
    assert np.isnan(got).any()


def test_finite_values_whose_sum_overflows_give_the_scaling_values():
    """Huge finite entries overflow the check's row sums (so the dense product runs): the
    values are the executor's and finite."""
    rng = np.random.default_rng(7)
    w, x = rng.standard_normal((6, 6)) * 1e-300, rng.standard_normal(6)
    w[3, :] = 1e308
    got = _compare(_jacobian(FORMS["cols"]), w, x, dtype=np.float64, scaled=None)
    assert np.isfinite(got).all()


def test_batch_jacobian_compiles_to_a_scaling():
    rng = np.random.default_rng(11)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    f = _jacobian(lambda w, x: tf.tanh(tf.matmul(x, w)) * 2., "batch_jacobian")
    got = _compare(f, w, x)
    y = np.tanh(x @ w)
    np.testing.assert_allclose(got, (1 - y * y)[:, :, None] * 2 * w.T[None], rtol=1e-5,
                               atol=1e-6)


def test_the_gradient_of_a_jacobian_through_the_rewrite():
    """d/dW of sum(J * C), J the Jacobian of tanh(W x) (the outer gradient runs through the
    seed's products before the rewrite sees them): the graph's values compiled, and
    the closed form: d/dW_ij sum_k C_ik (1 - y_i^2) W_ik =
    C_ij (1 - y_i^2) - 2 y_i (1 - y_i^2) x_j sum_k C_ik W_ik."""
    rng = np.random.default_rng(2)
    n = 12
    w, x, c = (rng.standard_normal(s) for s in ((n, n), n, (n, n)))

    def f(w, x, c):
        with tf.GradientTape() as outer:
            outer.watch(w)
            total = tf.reduce_sum(_jacobian(FORMS["cols"])(w, x) * c)
        return outer.gradient(total, w)
    got = _compare(f, w, x, c, dtype=np.float64, scaled=None)
    y = np.tanh(w @ x)
    d = 1 - y * y
    want = c * d[:, None] - 2 * (y * d * np.sum(c * w, axis=1))[:, None] * x[None, :]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

"""The structural rewrite `diagonal_matmuls` (compile/structure.py): a traced Jacobian's products
of a diagonal matrix with a matrix become scalings, seen in the compiled source, with the same
values as the dense products run eagerly (compared with ``assert_array_equal``: equal
elements, nan where nan; only a zero's sign may differ, which that comparison allows), and
the dense ops again when a nan or an infinity could make them differ."""
import numpy as np
import pytest

import finegrad as tf


def _jacobian_fn(f, method="jacobian"):
    """``(w, x) -> tape.<method>(f(w, x), x)`` (``jacobian`` or ``batch_jacobian``)."""
    def jac(w, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(w, x)
        return getattr(tape, method)(y, x)
    return jac


FORMS = {
    # matvec: the VJP multiplies W^T with a batch of columns of diag(1 - y^2)
    "cols": lambda w, x: tf.tanh(tf.linalg.matvec(w, x)),
    # a row times W: a batch of rows of diag(cos(xW)) times W^T
    "rows": lambda w, x: tf.sin(tf.reshape(tf.matmul(tf.reshape(x, (1, -1)), w), (-1,))),
    # scalars and vectors along the chain: diag((1 - y^2) * 3 * x) times W^T, plus diag(3y)
    "chain": lambda w, x: tf.tanh(tf.linalg.matvec(w, x)) * 3. * x,
}


def _check(f, w, x, rewritten=True):
    eager = _jacobian_fn(f)
    traced = tf.function(eager)
    wt, xt = tf.constant(w), tf.constant(x)
    src = traced.get_concrete_function(wt, xt).compiled_source
    assert ("diagonal_matmul(" in src) == rewritten
    got, want = traced(wt, xt).numpy(), eager(wt, xt).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_diagonal_products_become_scalings_with_the_same_values(form, dtype):
    rng = np.random.default_rng(7)
    for n in (2, 7, 40):
        w = rng.standard_normal((n, n)).astype(dtype)
        x = rng.standard_normal(n).astype(dtype)
        _check(FORMS[form], w, x)


def test_the_jacobian_of_tanh_wx_is_the_closed_form():
    """J = (1 - y^2)[:, None] * W, as NumPy by hand computes it (benchmark g5)."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((30, 30)).astype(np.float32)
    x = rng.standard_normal(30).astype(np.float32)
    got = _check(FORMS["cols"], w, x)
    y = np.tanh(w @ x)
    np.testing.assert_allclose(got, (1 - y * y)[:, None] * w, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("where", ["x", "w"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_infinity_give_what_the_dense_products_give(where, bad):
    """0 * inf and 0 * nan are nan in the dense product: the node then runs it densely."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 6))
    x = rng.standard_normal(6)
    (x if where == "x" else w)[2] = bad
    got = _check(FORMS["rows"], w, x)
    assert np.isnan(got).any()


def test_a_diagonal_read_elsewhere_is_left_dense():
    """A chain value also returned is needed whole: the product stays a matmul."""
    def f(w, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.linalg.matvec(w, x))
        return tape.jacobian(y, x), tf.eye(4) * 2. * y
    rng = np.random.default_rng(1)
    w = tf.constant(rng.standard_normal((4, 4)).astype(np.float32))
    x = tf.constant(rng.standard_normal(4).astype(np.float32))
    traced = tf.function(f)
    got, want = traced(w, x), f(w, x)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("form", ["left", "right", "cols", "rows"])
def test_the_node_on_each_form_and_operand_kind(form):
    """`diag_matmul_p` itself: chains with a scalar held as a (1, 1) array, a row or a
    column vector give the dense product's values in every form."""
    from finegrad._src.graph.compile.structure import Chain, diag_matmul_p
    rng = np.random.default_rng(9)
    n = 5
    eye = np.eye(n)
    other = rng.standard_normal((3, n) if form in ("right", "cols") else (n, 4))
    shape = {"left": (n, n), "right": (n, n), "cols": (n, n, 1), "rows": (n, 1, n)}[form]
    for ext in ((np.full((1, 1), 3.), rng.standard_normal(n)),
                (rng.standard_normal((n, 1)), np.float64(2.))):
        plan = Chain(((np.multiply, (None, 0)), (np.multiply, (1, None))), ["a", "b"])
        got = diag_matmul_p.impl(eye, other, *ext, plan=plan, form=form, shape=shape)
        dense = np.reshape(ext[1] * (eye * ext[0]), shape)
        want = dense @ other if form in ("left", "rows") else other @ dense
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_jacobians_of_a_layer_become_scalings(dtype):
    """batch_jacobian(tanh(x W) * 2, x): its seed (n, b, n) is an identity along the first
    and last axes; the product with W^T is a scaling, with the dense product's values (and
    those of the closed form (1 - y^2)[:, :, None] * 2 W^T[None])."""
    rng = np.random.default_rng(11)
    f = lambda w, x: tf.tanh(tf.matmul(x, w)) * 2.  # noqa: E731
    for b, n in ((1, 3), (4, 6), (16, 32)):
        w = rng.standard_normal((n, n)).astype(dtype)
        x = rng.standard_normal((b, n)).astype(dtype)
        eager = _jacobian_fn(f, "batch_jacobian")
        traced = tf.function(eager)
        src = traced.get_concrete_function(tf.constant(w), tf.constant(x)).compiled_source
        assert "diagonal_matmul(" in src, src
        got = traced(tf.constant(w), tf.constant(x)).numpy()
        np.testing.assert_array_equal(got, eager(tf.constant(w), tf.constant(x)).numpy())
        y = np.tanh(x @ w)
        want = (1 - y * y)[:, :, None] * 2 * w.T[None]
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-6)
        x[0, 1] = np.nan               # the dense product's nans, by the dense product
        got = traced(tf.constant(w), tf.constant(x)).numpy()
        np.testing.assert_array_equal(got, eager(tf.constant(w), tf.constant(x)).numpy())

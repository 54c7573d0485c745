"""tf.nn.batch_normalization, weighted_cross_entropy_with_logits, log_poisson_loss and the
composites of tf.linalg (logdet): values and gradients against TensorFlow when installed, and
finite differences to second order through the shared checker."""
import numpy as np
import pytest

import finegrad as fg

from compare_tf import value_and_grads

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(3, 4))
_SPD = _RNG.normal(size=(2, 3, 3))
_SPD = _SPD @ np.swapaxes(_SPD, -1, -2) + 3 * np.eye(3)

CASES = {
    "batch_normalization": (
        lambda lib, x, m, v, o, s: lib.nn.batch_normalization(x, m, v, o, s, 1e-3),
        [_X, [0.1, -0.2, 0.3, 0.0], [1.0, 2.0, 0.5, 1.5], [0.0, 1.0, -1.0, 2.0],
         [1.0, 0.5, 2.0, -1.0]]),
    "batch_normalization(no offset, scale)": (
        lambda lib, x, m, v: lib.nn.batch_normalization(x, m, v, None, None, 1e-3),
        [_X, [0.1, -0.2, 0.3, 0.0], [1.0, 2.0, 0.5, 1.5]]),
    "weighted_cross_entropy_with_logits": (
        lambda lib, z, x: lib.nn.weighted_cross_entropy_with_logits(z, x, 3.0),
        [[0.0, 1.0, 0.3, 1.0, 0.0], [-50.0, -1.0, 0.0, 2.0, 60.0]]),
    "log_poisson_loss": (
        lambda lib, z, c: lib.nn.log_poisson_loss(z, c),
        [[0.0, 0.5, 2.0, 5.0], [0.3, -1.0, 0.0, 2.0]]),
    "log_poisson_loss(full)": (
        lambda lib, z, c: lib.nn.log_poisson_loss(z, c, compute_full_loss=True),
        [[0.2, 0.5, 2.0, 5.0], [0.3, -1.0, 0.0, 2.0]]),
    # symmetrized, as cholesky reads only the lower triangle (and finite differences move all)
    "linalg.logdet": (lambda lib, a: lib.linalg.logdet(a + lib.linalg.matrix_transpose(a)),
                      [_SPD]),
    "linalg.expm": (lambda lib, a: lib.linalg.expm(a), [_RNG.normal(size=(2, 3, 3)) * 0.4]),
    "linalg.expm(large norm)": (lambda lib, a: lib.linalg.expm(a),
                                [_RNG.normal(size=(2, 3, 3)) * [[[0.01]], [[3.0]]]]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name, dtype):
    tf = pytest.importorskip("tensorflow")
    fn, args = CASES[name]
    args = [np.asarray(a, dtype) for a in args]
    got, want = value_and_grads(fg, fn, *args), value_and_grads(tf, fn, *args)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# finite differences away from the kink of |logits| at 0
_FD_ARGS = {"weighted_cross_entropy_with_logits": [[0.0, 1.0, 0.3, 1.0, 0.0],
                                                   [-5.0, -1.0, 0.2, 2.0, 6.0]]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_finite_differences(name):
    fn, args = CASES[name]
    args = _FD_ARGS.get(name, args)
    fg.testing.check_gradients(lambda *xs: fn(fg, *xs), [np.asarray(a) for a in args])


def test_closed_forms():
    z = fg.constant([0.0, 1.0], fg.float64)
    full = fg.nn.log_poisson_loss(fg.constant([1.0, 4.0], fg.float64), z, compute_full_loss=True)
    want = [1.0, np.e - 4 + 4 * np.log(4) - 4 + 0.5 * np.log(2 * np.pi * 4)]
    np.testing.assert_allclose(full.numpy(), want, rtol=1e-12)
    x = fg.nn.weighted_cross_entropy_with_logits(fg.constant([1.0], fg.float64),
                                                 fg.constant([0.5], fg.float64), 2.0)
    np.testing.assert_allclose(x.numpy(), [-2 * np.log(1 / (1 + np.exp(-0.5)))], rtol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.nn\.log_poisson_loss: labels"):
        fg.nn.log_poisson_loss(fg.ones([2]), fg.ones([3]))
    with pytest.raises(ValueError, match=r"finegrad\.nn\.weighted_cross_entropy_with_logits"):
        fg.nn.weighted_cross_entropy_with_logits(fg.ones([2]), fg.ones([3]), 2.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("scale", [0.003, 0.05, 0.2, 0.7, 1.5, 3.0, 10.0])
def test_expm_values_match_tensorflow(scale, dtype):
    # every Pade degree TensorFlow picks, and scaling and squaring, with batch members on
    # different branches
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 4, 4)) * scale / 4 * np.array([1.0, 0.2, 2.5])[:, None, None]
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=a.shape) * scale / 4
    a = a.astype(dtype)
    tol = 2e-5 if dtype in (np.float32, np.complex64) else 1e-12
    want = tf.linalg.expm(a).numpy()
    np.testing.assert_allclose(fg.linalg.expm(a).numpy(), want, rtol=tol, atol=tol)


def test_expm_closed_forms():
    # a rotation generator: expm([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]]
    t = 2.5
    got = fg.linalg.expm(fg.constant([[0.0, -t], [t, 0.0]], fg.float64)).numpy()
    np.testing.assert_allclose(got, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]],
                               rtol=1e-13, atol=1e-13)
    # d/dt trace(expm(t A)) = trace(A expm(t A))
    a = np.array([[1.0, 2.0], [0.5, -1.0]])
    x = fg.constant(1.0, fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.linalg.trace(fg.linalg.expm(x * a))
    want = np.trace(a @ fg.linalg.expm(a).numpy())
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-12)
    assert fg.linalg.expm(fg.zeros((2, 0, 0))).shape == (2, 0, 0)
    assert np.isnan(fg.linalg.expm(fg.constant([[np.inf, 0.0], [0.0, 1.0]])).numpy()).all()


def test_linalg_bad_input():
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.expm: input must be square"):
        fg.linalg.expm(fg.ones([2, 3]))
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.expm: input must be float"):
        fg.linalg.expm(fg.constant([[1]]))
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.logdet: matrix must have rank"):
        fg.linalg.logdet(fg.ones([3]))


_LU_A = np.random.default_rng(5).normal(size=(3, 4, 4))
LU_HELPERS = {
    "lu_reconstruct": lambda lib, x, p: lib.linalg.lu_reconstruct(x, p),
    "lu_matrix_inverse": lambda lib, x, p: lib.linalg.lu_matrix_inverse(x, p),
    "lu_solve": lambda lib, x, p: lib.linalg.lu_solve(x, p, x[..., :2] * 2 + 1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_matches_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    a = _LU_A.astype(dtype)
    (lu, p), (want_lu, want_p) = fg.linalg.lu(a), tf.linalg.lu(a)
    np.testing.assert_array_equal(p.numpy(), want_p.numpy())
    assert p.dtype == fg.int32
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(lu.numpy(), want_lu.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(LU_HELPERS))
def test_lu_helpers_match_tensorflow(name):
    # TensorFlow registers no gradient for the Lu op itself; its helpers differentiate in
    # the packed factor
    tf = pytest.importorskip("tensorflow")
    packed, perm = tf.linalg.lu(_LU_A)
    fn = LU_HELPERS[name]
    got = value_and_grads(fg, lambda lib, x: fn(lib, x, perm.numpy()), packed.numpy())
    want = value_and_grads(tf, lambda lib, x: fn(lib, x, perm), packed.numpy())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)


def test_lu_closed_forms():
    a = fg.constant(_LU_A)
    lu, p = fg.linalg.lu(a)
    low = np.tril(lu.numpy(), -1) + np.eye(4)
    np.testing.assert_allclose(low @ np.triu(lu.numpy()),
                               np.take_along_axis(_LU_A, p.numpy()[..., None], -2), atol=1e-12)
    np.testing.assert_allclose(fg.linalg.lu_reconstruct(lu, p).numpy(), _LU_A, atol=1e-12)
    np.testing.assert_allclose(fg.linalg.lu_matrix_inverse(lu, p).numpy(),
                               np.linalg.inv(_LU_A), atol=1e-10)
    # the factor's derivatives: finite differences, both modes, second order
    fg.testing.check_gradients(lambda x: fg.linalg.lu(x)[0], [_LU_A[:2]])
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.lu: input must be square"):
        fg.linalg.lu(fg.ones([2, 3]))


def _eig_loss(lib, x):
    # independent of the eigenvalues' order and the eigenvectors' phases
    e, v = lib.linalg.eig(x)
    return (lib.reduce_sum(lib.math.real(e * e * e))
            + lib.reduce_sum(lib.abs(v) ** 2 * lib.math.real(lib.expand_dims(e, -2))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_eig_matches_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(7)
    a = rng.normal(size=(2, 4, 4))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=a.shape)
    a = a.astype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    got, want = fg.linalg.eigvals(a).numpy(), tf.linalg.eigvals(a).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), rtol=tol, atol=tol)
    results = []
    for lib in (fg, tf):
        x = lib.constant(a)
        with lib.GradientTape() as tape:
            tape.watch(x)
            loss = _eig_loss(lib, x)
        results.append((loss.numpy(), tape.gradient(loss, x).numpy()))
    for g, w in zip(*results, strict=True):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_eig_closed_forms():
    a = np.random.default_rng(8).normal(size=(3, 3))
    e, v = fg.linalg.eig(fg.constant(a))
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * e.numpy(), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(v.numpy(), axis=0), 1.0, rtol=1e-12)
    fg.testing.check_gradients(lambda x: fg.linalg.eigvals(x), [a])
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.eig: tensor must be square"):
        fg.linalg.eig(fg.ones([2, 3]))

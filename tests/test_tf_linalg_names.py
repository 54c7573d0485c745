"""The tf.linalg names of ops/linalg/diag_cross_rank.py (normalize, cross, set_diag, tensor_diag,
tensor_diag_part, matrix_rank): values, gradients and errors against the installed
TensorFlow, and closed forms where it is absent."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

from compare_tf import value_and_grads

_RNG = np.random.default_rng(0)
_X23, _Y23 = _RNG.normal(size=(2, 3)), _RNG.normal(size=(2, 3))
CASES = {
    "normalize": (lambda lib, x: lib.linalg.normalize(x)[0], [_X23]),
    "normalize(norm)": (lambda lib, x: lib.linalg.normalize(x)[1], [_X23]),
    "normalize(axis=1)": (lambda lib, x: lib.linalg.normalize(x, axis=1)[0], [_X23]),
    "normalize(ord=1, axis=0)": (lambda lib, x: lib.linalg.normalize(x, ord=1, axis=0)[0],
                                 [_X23]),
    "normalize(fro)": (lambda lib, x: lib.linalg.normalize(x, ord="fro", axis=[0, 1])[0],
                       [_X23]),
    "normalize(inf)": (lambda lib, x: lib.linalg.normalize(x, ord=np.inf, axis=1)[1],
                       [_X23]),
    "cross": (lambda lib, a, b: lib.linalg.cross(a, b), [_X23, _Y23]),
    "cross(vector)": (lambda lib, a, b: lib.linalg.cross(a, b), [[1.0, 2.0, 3.0],
                                                                 [-1.0, 0.5, 2.0]]),
    "set_diag(square)": (lambda lib, x, d: lib.linalg.set_diag(x, d),
                         [_RNG.normal(size=(3, 3)), [1.0, 2.0, 3.0]]),
    "set_diag(wide, batched)": (lambda lib, x, d: lib.linalg.set_diag(x, d),
                                [_RNG.normal(size=(2, 2, 3)), _RNG.normal(size=(2, 2))]),
    "set_diag(tall)": (lambda lib, x, d: lib.linalg.set_diag(x, d),
                       [_RNG.normal(size=(4, 2)), [5.0, 6.0]]),
    "set_diag(k=1, batched)": (lambda lib, x, d: lib.linalg.set_diag(x, d, k=1),
                               [_RNG.normal(size=(2, 3, 4)), _RNG.normal(size=(2, 3))]),
    "set_diag(k=-2)": (lambda lib, x, d: lib.linalg.set_diag(x, d, k=-2),
                       [_RNG.normal(size=(4, 3)), [1.0, 2.0]]),
    "set_diag(k=(2, 2))": (lambda lib, x, d: lib.linalg.set_diag(x, d, k=(2, 2)),
                           [_RNG.normal(size=(3, 3)), [7.0]]),
    "tridiagonal_matmul": (lambda lib, d, r: lib.linalg.tridiagonal_matmul(d, r),
                           [_RNG.normal(size=(3, 4)), _RNG.normal(size=(4, 2))]),
    "tridiagonal_matmul(batched)": (lambda lib, d, r: lib.linalg.tridiagonal_matmul(d, r),
                                    [_RNG.normal(size=(2, 3, 4)), _RNG.normal(size=(2, 4, 3))]),
    "tridiagonal_matmul(sequence)": (
        lambda lib, a, b, c, r: lib.linalg.tridiagonal_matmul((a, b, c), r,
                                                              diagonals_format="sequence"),
        [_RNG.normal(size=(4,)), _RNG.normal(size=(4,)), _RNG.normal(size=(4,)),
         _RNG.normal(size=(4, 2))]),
    "tridiagonal_matmul(matrix)": (
        lambda lib, m, r: lib.linalg.tridiagonal_matmul(m, r, diagonals_format="matrix"),
        [_RNG.normal(size=(4, 4)), _RNG.normal(size=(4, 2))]),
    "tridiagonal_matmul(M=1)": (lambda lib, d, r: lib.linalg.tridiagonal_matmul(d, r),
                                [_RNG.normal(size=(3, 1)), _RNG.normal(size=(1, 2))]),
    "tensor_diag": (lambda lib, d: lib.linalg.tensor_diag(d), [[1.0, 2.0, 3.0]]),
    "tensor_diag(rank 2)": (lambda lib, d: lib.linalg.tensor_diag(d), [_X23]),
    "tensor_diag_part": (lambda lib, x: lib.linalg.tensor_diag_part(x),
                         [_RNG.normal(size=(3, 3))]),
    "tensor_diag_part(rank 4)": (lambda lib, x: lib.linalg.tensor_diag_part(x),
                                 [_RNG.normal(size=(2, 3, 2, 3))]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_tensorflow(name, dtype):
    tf = pytest.importorskip("tensorflow")
    fn, args = CASES[name]
    args = [np.asarray(a, dtype) for a in args]
    got, want = value_and_grads(fg, fn, *args), value_and_grads(tf, fn, *args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_normalize_zero_norm_is_nan_as_tensorflow():
    unit, n = fg.linalg.normalize(fg.constant([[3.0, 4.0], [0.0, 0.0]]), axis=1)
    np.testing.assert_allclose(unit.numpy()[0], [0.6, 0.8])
    assert np.isnan(unit.numpy()[1]).all() and n.numpy().tolist() == [[5.0], [0.0]]
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.normalize: finegrad\.norm: ord "
                                         r"must be .* got -1"):
        fg.linalg.normalize(fg.constant([1.0]), ord=-1)
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.normalize: .*axis 3 is out of "
                                         r"range"):
        fg.linalg.normalize(fg.constant([1.0]), axis=3)
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.normalize: tensor must be a "
                                        r"floating or complex tensor, got int32"):
        fg.linalg.normalize(fg.constant([1, 2]))


def test_linalg_bad_input():
    with pytest.raises(InvalidArgumentError, match=r"finegrad\.linalg\.cross: a and b must "
                                                   r"have one shape, got \[2, 3\] and \[3\]"):
        fg.linalg.cross(fg.ones([2, 3]), fg.ones([3]))
    with pytest.raises(InvalidArgumentError, match=r"cross: a and b must have a last axis of "
                                                   r"size 3"):
        fg.linalg.cross(fg.ones([2, 4]), fg.ones([2, 4]))
    with pytest.raises(InvalidArgumentError, match=r"finegrad\.linalg\.set_diag: diagonal must "
                                                   r"have shape \[2\] for input of shape"):
        fg.linalg.set_diag(fg.ones([2, 3]), fg.ones([3]))
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.cross: a and b must have one "
                                        r"dtype, got int32 and float32"):
        fg.linalg.cross(fg.constant([1, 2, 3]), fg.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.set_diag: input and diagonal must "
                                        r"have one dtype, got float32 and float64"):
        fg.linalg.set_diag(fg.ones([2, 2]), fg.constant([1.0, 2.0], fg.float64))
    with pytest.raises(InvalidArgumentError, match=r"set_diag: input must have rank >= 2"):
        fg.linalg.set_diag(fg.ones([3]), fg.ones([3]))
    with pytest.raises(NotImplementedError, match=r"set_diag: only one diagonal .* got the "
                                                  r"band k=\(0, 1\)"):
        fg.linalg.set_diag(fg.ones([3, 3]), fg.ones([2, 3]), k=(0, 1))
    with pytest.raises(InvalidArgumentError, match=r"set_diag: k must be in \(-3, 4\) for 3 x 4 "
                                                   r"matrices, got 4"):
        fg.linalg.set_diag(fg.ones([3, 4]), fg.ones([1]), k=4)
    with pytest.raises(InvalidArgumentError, match=r"set_diag: diagonal must have shape \[2\] "
                                                   r"for input of shape \[3, 4\] and k=-1"):
        fg.linalg.set_diag(fg.ones([3, 4]), fg.ones([3]), k=-1)
    with pytest.raises(TypeError, match=r"set_diag: k must be an int, got float"):
        fg.linalg.set_diag(fg.ones([3, 3]), fg.ones([3]), k=0.0)
    with pytest.raises(InvalidArgumentError, match=r"tensor_diag: diagonal must have rank >= 1"):
        fg.linalg.tensor_diag(fg.constant(1.0))
    with pytest.raises(InvalidArgumentError, match=r"tensor_diag_part: input's rank must be "
                                                   r"even and positive, got shape \[2, 3, 2\]"):
        fg.linalg.tensor_diag_part(fg.ones([2, 3, 2]))
    with pytest.raises(InvalidArgumentError, match=r"tensor_diag_part: input's shape must be "
                                                   r"s \+ s, got \[2, 3\]"):
        fg.linalg.tensor_diag_part(fg.ones([2, 3]))
    with pytest.raises(TypeError, match=r"finegrad\.linalg\.matrix_rank: a must be a floating "
                                        r"or complex tensor, got int32"):
        fg.linalg.matrix_rank(fg.constant([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match=r"matrix_rank: a must have rank >= 2, got shape \[3\]"):
        fg.linalg.matrix_rank(fg.ones([3]))


def test_tridiagonal_matmul_bad_input():
    r = fg.ones([3, 1])
    with pytest.raises(ValueError, match=r"finegrad\.linalg\.tridiagonal_matmul: "
                                         r"diagonals_format must be .* got 'foo'"):
        fg.linalg.tridiagonal_matmul(fg.ones([3, 3]), r, diagonals_format="foo")
    with pytest.raises(InvalidArgumentError, match=r"tridiagonal_matmul: diagonals in 'compact' "
                                                   r"format must have shape \[\.\.\., 3, M\], "
                                                   r"got \[2, 3\]"):
        fg.linalg.tridiagonal_matmul(fg.ones([2, 3]), r)
    with pytest.raises(InvalidArgumentError, match=r"tridiagonal_matmul: each diagonal must have "
                                                   r"rhs's length M = 4"):
        fg.linalg.tridiagonal_matmul(fg.ones([3, 3]), fg.ones([4, 1]))
    with pytest.raises(ValueError, match=r"tridiagonal_matmul: diagonals in 'sequence' format "
                                         r"must be a tuple of 3 tensors"):
        fg.linalg.tridiagonal_matmul(fg.ones([3, 3]), r, diagonals_format="sequence")
    with pytest.raises(ValueError, match=r"tridiagonal_matmul: rhs must have rank >= 2"):
        fg.linalg.tridiagonal_matmul(fg.ones([3, 3]), fg.ones([3]))


def _rank_cases():
    rng = np.random.default_rng(1)
    low = rng.normal(size=(4, 2)) @ rng.normal(size=(2, 5))     # rank 2
    return [(low, None), (low.astype(np.float32), None), (np.zeros((3, 3)), None),
            (np.eye(4), None), (np.stack([np.eye(3), np.diag([1.0, 1e-3, 0.0])]), None),
            (np.stack([np.eye(3), np.diag([1.0, 1e-3, 0.0])]), 0.01),
            (rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5)), None)]


@pytest.mark.parametrize("case", range(len(_rank_cases())))
def test_matrix_rank_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    a, tol = _rank_cases()[case]
    got, want = fg.linalg.matrix_rank(fg.constant(a), tol=tol), tf.linalg.matrix_rank(a, tol=tol)
    assert got.dtype.name == want.dtype.name == "int32"
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(got.numpy(), np.linalg.matrix_rank(a, tol=tol))


def test_traced_matches_eager():
    x, d = fg.constant(_RNG.normal(size=(3, 3))), fg.constant([1.0, 2.0, 3.0], fg.float64)

    def f(x, d):
        return (fg.linalg.set_diag(x, d), fg.linalg.tensor_diag_part(x),
                fg.linalg.cross(x, x[::-1]), fg.linalg.normalize(x, axis=0)[0])

    for got, want in zip(fg.function(f)(x, d), f(x, d), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)

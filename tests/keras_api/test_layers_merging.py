"""Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot: closed forms,
gradients, masks, and Keras 3's values."""
import numpy as np
import pytest

import finegrad as fg
from layer_parity import assert_config_keys_match, assert_matches_keras, keras_module, randn

L = fg.keras.layers
A, B, C = randn(2, 3, 4, seed=1), randn(2, 3, 4, seed=2), randn(2, 3, 4, seed=3)


def test_closed_forms():
    np.testing.assert_allclose(L.Add()([A, B, C]).numpy(), A + B + C, rtol=1e-6)
    np.testing.assert_allclose(L.Subtract()([A, B]).numpy(), A - B, rtol=1e-6)
    np.testing.assert_allclose(L.Multiply()([A, B]).numpy(), A * B, rtol=1e-6)
    np.testing.assert_allclose(L.Average()([A, B]).numpy(), (A + B) / 2, rtol=1e-6)
    np.testing.assert_allclose(L.Maximum()([A, B, C]).numpy(), np.maximum(np.maximum(A, B), C))
    np.testing.assert_allclose(L.Minimum()([A, B]).numpy(), np.minimum(A, B))
    np.testing.assert_allclose(L.Concatenate(axis=1)([A, B]).numpy(),
                               np.concatenate([A, B], 1))
    np.testing.assert_allclose(L.Dot(axes=(2, 2))([A, B]).numpy(),
                               np.einsum("bik,bjk->bij", A, B), rtol=1e-5)
    np.testing.assert_allclose(L.Dot(axes=1)([A[:, 0], B[:, 0]]).numpy(),
                               (A[:, 0] * B[:, 0]).sum(1, keepdims=True), rtol=1e-5)


def test_errors_and_masks():
    with pytest.raises(ValueError, match="exactly 2"):
        L.Subtract()([A, B, C])
    with pytest.raises(ValueError, match="list"):
        L.Add()(A)
    m1, m2 = fg.constant([[True, False, False]] * 2), fg.constant([[False, False, True]] * 2)
    assert L.Add().compute_mask([A, B], [m1, m2]).numpy().tolist() == [[True, False, True]] * 2
    assert L.Add().compute_mask([A, B], [m1, None]) is None
    cm = L.Concatenate().compute_mask([A, B], [m1, None])
    assert cm.numpy().tolist() == [[True, True, True]] * 2


def test_dot_normalize_gradient_by_finite_differences():
    a, b = randn(2, 4, dtype=np.float64), randn(2, 4, seed=5, dtype=np.float64)
    layer = L.Dot(axes=1, normalize=True, dtype="float64")
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(layer([a, b]).numpy()[:, 0], cos, rtol=1e-10)
    fg.testing.check_gradients(lambda x, y: layer([x, y]), [a, b])


CASES = [("Add", {}, 3), ("Subtract", {}, 2), ("Multiply", {}, 3), ("Average", {}, 3),
         ("Maximum", {}, 3), ("Minimum", {}, 2), ("Concatenate", {}, 3),
         ("Concatenate", dict(axis=1), 2), ("Dot", dict(axes=2), 2),
         ("Dot", dict(axes=(1, 1)), 2), ("Dot", dict(axes=-1, normalize=True), 2)]


@pytest.mark.parametrize("name,kwargs,n", CASES)
def test_matches_keras(name, kwargs, n):
    keras = keras_module()
    ours, theirs = getattr(L, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    inputs = [A, B, C][:n]
    out = assert_matches_keras(ours, theirs, inputs)
    assert tuple(out[0].shape) == tuple(ours.compute_output_shape([x.shape for x in inputs]))
    assert_config_keys_match(ours, theirs)


def test_dot_on_rank_2_matches_keras():
    keras = keras_module()
    assert_matches_keras(L.Dot(axes=1), keras.layers.Dot(axes=1), [A[:, 0], B[:, 0]])

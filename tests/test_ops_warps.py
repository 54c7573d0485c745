"""`keras.ops`'s image warps and filters, ``conv_transpose``, ``fold`` and ``istft`` on each
finegrad.ops backend against Keras 3.15 on the same backend (the finegrad backend against
Keras on JAX, whose algorithms it follows), and their gradients on the finegrad backend
against finite differences."""
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import ops_warp_cases
from finegrad import ops

HERE = pathlib.Path(__file__).resolve().parent
KERAS_OF = {"finegrad": "jax", "jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}
# where Keras 3.15 itself fails or is wrong, and finegrad.ops does not follow it
# Known differences of Keras 3.15 not followed (so not among the cases): gaussian_blur with
# data_format=None on Keras's jax and torch backends blurs a channels_last image as if it
# were channels_first; Keras's tensorflow map_coordinates with fill_mode="mirror" gathers
# out of range (GatherNd fails; clipped here); elastic_transform's noise is NumPy's seeded
# generator, the same on every backend, not each Keras backend's own generator.


@pytest.fixture(scope="module", params=sorted(KERAS_OF))
def backend_and_reference(request, tmp_path_factory):
    name = request.param
    pytest.importorskip("keras")
    pytest.importorskip(KERAS_OF[name])
    if name != "finegrad":
        pytest.importorskip(name)
    keras_backend = KERAS_OF[name]
    if keras_backend not in _REFERENCES:       # finegrad and jax share Keras on JAX's
        path = tmp_path_factory.mktemp("keras") / f"{keras_backend}.pkl"
        env = {**os.environ, "KERAS_BACKEND": keras_backend, "PYTHONPATH": str(HERE),
               "TF_CPP_MIN_LOG_LEVEL": "3"}
        done = subprocess.run([sys.executable, str(HERE / "ops_warp_cases.py"), str(path)],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        with open(path, "rb") as f:
            _REFERENCES[keras_backend] = pickle.load(f)
    return name, _REFERENCES[keras_backend]


_REFERENCES: dict = {}


def test_values_like_keras(backend_and_reference):
    name, reference = backend_and_reference
    checked = 0
    with ops.backend_scope(name):
        for case, call in ops_warp_cases.CASES.items():
            want = reference[case]
            assert not isinstance(want, tuple), f"Keras on {KERAS_OF[name]}: {case}: {want}"
            got = np.asarray(ops.convert_to_numpy(call(ops)))
            assert got.shape == want.shape and got.dtype == want.dtype, (case, got.shape,
                                                                         want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5, err_msg=case)
            checked += 1
    assert checked == len(ops_warp_cases.CASES)


def _check_grad(f, x0, h=1e-6, tol=1e-5):
    x0 = np.asarray(x0, np.float64)

    def total(x):
        return ops.sum(ops.multiply(f(x), weights))
    weights = np.random.default_rng(1).random(np.shape(ops.convert_to_numpy(f(x0))))
    g = np.asarray(ops.grad(total)(ops.convert_to_tensor(x0))).ravel()
    want = np.zeros(x0.size)
    for i in range(x0.size):
        step = np.zeros(x0.size)
        step[i] = h
        up = float(total(x0 + step.reshape(x0.shape)))
        down = float(total(x0 - step.reshape(x0.shape)))
        want[i] = (up - down) / (2 * h)
    np.testing.assert_allclose(g, want, rtol=tol, atol=tol)


R = np.random.default_rng(2)
SMALL = R.random((1, 4, 5, 2))
KERNEL = R.random((3, 2, 3, 2))
VOLUME = (1, 2, 4, 5, 1)     # SMALL's 40 values as a volume
KERNEL3 = np.random.default_rng(4).random((2, 2, 3, 2, 2))
GRADS = {
    "map_coordinates (values)": lambda x: ops.image.map_coordinates(
        x[0, ..., 0], np.array([[0.3, 2.6, -0.4], [1.2, 3.7, 4.4]]), 1),
    "map_coordinates (coordinates)": lambda c: ops.image.map_coordinates(
        SMALL[0, ..., 0], ops.reshape(c, (2, 3)), 1, "reflect"),
    "affine_transform": lambda x: ops.image.affine_transform(
        x, np.array([0.9, 0.2, 0.3, -0.1, 1.1, 0.4, 0.0, 0.0]), fill_mode="nearest"),
    "perspective_transform": lambda x: ops.image.perspective_transform(
        x, ops_warp_cases.START * 0.5, ops_warp_cases.END * 0.5),
    "gaussian_blur": lambda x: ops.image.gaussian_blur(x, (3, 3), (0.7, 1.3)),
    "sobel_edges": lambda x: ops.image.sobel_edges(x),
    "ssim": lambda x: ops.image.ssim(x, SMALL * 0.8, filter_size=3),
    "extract_patches_3d": lambda x: ops.image.extract_patches_3d(
        ops.reshape(x, (1, 2, 2, 5, 2)), (1, 2, 2), 1, padding="same"),
    "scale_and_translate": lambda x: ops.image.scale_and_translate(
        x, (1, 6, 3, 2), [1.5, 0.6], [0.2, -0.3], (1, 2), "bicubic"),
    "elastic_transform": lambda x: ops.image.elastic_transform(x, 2.0, 1.0, seed=3),
    "conv_transpose": lambda x: ops.conv_transpose(x, KERNEL, 2, "same"),
    "conv 3d": lambda x: ops.conv(ops.reshape(x, VOLUME), KERNEL3[..., :1, :], (1, 2, 1), "same",
                                  dilation_rate=1),
    "conv 3d channels_first dilated": lambda x: ops.conv(
        ops.reshape(x, (1, 2, 2, 2, 5)), KERNEL3[:1], 1, "valid", "channels_first", (1, 1, 2)),
    "conv_transpose 3d": lambda x: ops.conv_transpose(ops.reshape(x, VOLUME),
                                                      KERNEL3[..., :1], 2, "same"),
    "max_pool 3d": lambda x: ops.max_pool(ops.reshape(x, VOLUME), 2, (1, 2, 2), "same"),
    "average_pool 3d": lambda x: ops.average_pool(ops.reshape(x, VOLUME), (2, 3, 2), 2, "same"),
    "fold": lambda x: ops.fold(ops.reshape(x, (1, 8, 5)), (2, 6), 2, 1, 0, 1),
    "istft": lambda x: ops.istft((x[0, :, :, 0], x[0, :, :, 1]), 8, 4, 8),
}
START_POINTS = {"map_coordinates (coordinates)": np.array([0.3, 2.6, 1.4, 1.2, 3.7, 4.4])}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_on_finegrad_against_finite_differences(name):
    _check_grad(GRADS[name], START_POINTS.get(name, SMALL))


def test_elastic_transform_moves_pixels_and_keeps_the_seed():
    a = ops.image.elastic_transform(ops_warp_cases.IMG, 5.0, 1.0, seed=4)
    b = ops.image.elastic_transform(ops_warp_cases.IMG, 5.0, 1.0, seed=4)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert np.abs(np.asarray(a) - ops_warp_cases.IMG).max() > 0.05


def test_bad_arguments_name_the_function():
    with pytest.raises(ValueError, match=r"map_coordinates: fill_mode must be one of"):
        ops.image.map_coordinates(SMALL[0, ..., 0], np.zeros((2, 3)), 1, "edge")
    with pytest.raises(ValueError, match=r"affine_transform: interpolation must be one of"):
        ops.image.affine_transform(SMALL, np.zeros(8), "bicubic")
    with pytest.raises(ValueError, match=r"conv_transpose: padding must be 'valid' or 'same'"):
        ops.conv_transpose(SMALL, np.ones((2, 2, 2, 2)), 1, "full")

"""Calls of the image warps and filters, conv_transpose, fold and istft of `keras.ops`, each
a function of the ops module (``keras.ops`` or ``finegrad.ops``), for tests/test_ops_warps.py.
Run as a script under ``KERAS_BACKEND=...`` it pickles Keras's values of every call (Keras
fixes its backend at import, so each backend's reference comes from its own process)."""
import pickle
import sys

import numpy as np

_R = np.random.default_rng(0)
IMG = _R.random((2, 7, 8, 3)).astype("float32")
T = np.array([[1.1, 0.2, -1.3, 0.1, 0.9, 0.7, 0.0, 0.0],
              [0.8, -0.1, 1.5, 0.2, 1.2, -0.4, 0.0, 0.0]], "float32")
START = np.array([[0, 0], [7, 0], [7, 6], [0, 6]], "float32")
END = np.array([[1, 0.5], [6, 1], [7.5, 5], [0.2, 6.1]], "float32")
VOL = _R.random((2, 4, 6, 6, 2)).astype("float32")
X1 = _R.random((2, 5, 6, 3)).astype("float32")
K1 = _R.random((3, 3, 4, 3)).astype("float32")
X8 = np.concatenate([X1, X1[..., ::-1] * 0.5, X1[..., :2]], -1)        # 8 channels: 2 groups
SIG = _R.random((2, 40)).astype("float32")
COORDS = np.stack([np.linspace(-3.5, 9.5, 10), np.linspace(-2, 10.7, 10)]).astype("float32")
SCALE, SHIFT = np.array([0.7, 1.4], "float32"), np.array([0.5, -1.0], "float32")
K3 = np.random.default_rng(3).random((2, 3, 2, 2, 3)).astype("float32")  # D, H, W, in, out
VOL4 = np.concatenate([VOL, VOL[..., ::-1] * 0.5], -1)                   # 4 channels: 2 groups


def _map(mode, order=1):
    return lambda m: m.image.map_coordinates(IMG[0, ..., 0], COORDS, order, mode, 0.5)


def _scale(method, antialias=True):
    return lambda m: m.image.scale_and_translate(IMG, (2, 5, 11, 3), SCALE, SHIFT, (1, 2),
                                                 method, antialias)


CASES = {
    "map_coordinates constant": _map("constant"),
    "map_coordinates nearest": _map("nearest"),
    "map_coordinates wrap": _map("wrap"),
    "map_coordinates reflect": _map("reflect"),
    "map_coordinates reflect order 0": _map("reflect", 0),
    "affine_transform": lambda m: m.image.affine_transform(IMG, T),
    "affine_transform unbatched": lambda m: m.image.affine_transform(IMG[0], T[0], "nearest"),
    "affine_transform channels_first": lambda m: m.image.affine_transform(
        np.moveaxis(IMG, -1, 1), T, "bilinear", "wrap", data_format="channels_first"),
    "affine_transform nearest reflect": lambda m: m.image.affine_transform(
        IMG, T, "nearest", "reflect"),
    "perspective_transform": lambda m: m.image.perspective_transform(
        IMG, np.stack([START, START]), np.stack([END, END + 0.3])),
    "perspective_transform nearest": lambda m: m.image.perspective_transform(
        IMG[0], START, END, "nearest", 0.25),
    # square kernels: for (3, 5) Keras's torch and tensorflow backends reshape the kernel
    # (5, 3) into (3, 5) instead of transposing it
    "gaussian_blur": lambda m: m.image.gaussian_blur(IMG, (3, 3), (1.0, 2.0), "channels_last"),
    "gaussian_blur 5": lambda m: m.image.gaussian_blur(IMG[0], (5, 5), (1.5, 0.7),
                                                      "channels_last"),
    "gaussian_blur channels_first": lambda m: m.image.gaussian_blur(
        np.moveaxis(IMG, -1, 1), (3, 3), (0.8, 1.1), "channels_first"),
    "sobel_edges": lambda m: m.image.sobel_edges(IMG),
    "ssim": lambda m: m.image.ssim(IMG, IMG[::-1], filter_size=3),
    "ssim unbatched": lambda m: m.image.ssim(IMG[0], IMG[1] * 0.5, 2.0, 5, 1.0),
    "extract_patches_3d": lambda m: m.image.extract_patches_3d(VOL, (2, 3, 3), (2, 2, 3)),
    "extract_patches_3d same": lambda m: m.image.extract_patches_3d(VOL[0], 2, 1,
                                                                    padding="same"),
    "scale_and_translate bilinear": _scale("bilinear"),
    "scale_and_translate bicubic": _scale("bicubic"),
    "scale_and_translate lanczos3": _scale("lanczos3", False),
    "elastic_transform alpha 0": lambda m: m.image.elastic_transform(IMG, 0.0, 1.0, seed=1),
    "conv_transpose": lambda m: m.conv_transpose(X1, K1, 2),
    "conv_transpose same": lambda m: m.conv_transpose(X1, K1, 2, "same"),
    "conv_transpose output_padding": lambda m: m.conv_transpose(X1, K1, (2, 3), "same",
                                                                output_padding=1),
    "conv_transpose dilated": lambda m: m.conv_transpose(X1, K1, 1, dilation_rate=2),
    "conv_transpose 1d": lambda m: m.conv_transpose(X1[0], K1[0], 3, "same"),
    "conv_transpose channels_first": lambda m: m.conv_transpose(
        np.moveaxis(X1, -1, 1), K1, 2, data_format="channels_first"),
    "fold": lambda m: m.fold(m.convert_to_tensor(
        np.arange(2 * 12 * 12, dtype="float32").reshape(2, 12, 12)), (5, 6), 2, 1, 0, (1, 2)),
    "fold padded": lambda m: m.fold(m.convert_to_tensor(
        np.arange(2 * 12 * 24, dtype="float32").reshape(2, 12, 24)), (5, 6), 2, 1, 1, (1, 2)),
    # PyTorch has no padding="same" with strides: Keras pads first (TensorFlow's amounts)
    "conv same strided": lambda m: m.conv(X1, K1[:, :, :3], 2, "same"),
    "conv same strided 1d dilated": lambda m: m.conv(X1[0], K1[0, :, :3], 2, "same",
                                                     dilation_rate=1),
    "conv same strided channels_first": lambda m: m.conv(
        np.moveaxis(IMG, -1, 1), K1[:2, :, :3], (2, 3), "same", "channels_first"),
    "conv grouped": lambda m: m.conv(X8, K1[..., :2], 1, "valid"),
    "conv grouped same strided": lambda m: m.conv(X8, K1[..., :2], 2, "same"),
    "conv grouped channels_first": lambda m: m.conv(np.moveaxis(X8, -1, 1), K1[..., :2], 1,
                                                    data_format="channels_first"),
    "max_pool same strided": lambda m: m.max_pool(IMG, 3, 2, "same"),
    "max_pool same odd": lambda m: m.max_pool(IMG, (2, 3), (2, 2), "same"),
    "average_pool same strided": lambda m: m.average_pool(IMG, 3, 2, "same"),
    "average_pool same 1d": lambda m: m.average_pool(SIG[..., None], 4, 3, "same"),
    # 3-D convolutions and pools
    "conv 3d same strided": lambda m: m.conv(VOL, K3, (2, 1, 2), "same"),
    "conv 3d valid dilated": lambda m: m.conv(VOL, K3, 1, "valid", dilation_rate=(1, 2, 2)),
    "conv 3d grouped": lambda m: m.conv(VOL4, K3[..., :2], 1, "same"),
    "conv 3d channels_first": lambda m: m.conv(np.moveaxis(VOL, -1, 1), K3, (1, 2, 1), "same",
                                               "channels_first"),
    "conv_transpose 3d": lambda m: m.conv_transpose(VOL, np.swapaxes(K3, -1, -2), 2),
    "conv_transpose 3d same output_padding": lambda m: m.conv_transpose(
        VOL, np.swapaxes(K3, -1, -2), (2, 1, 3), "same", output_padding=(1, 0, 2)),
    "conv_transpose 3d channels_first": lambda m: m.conv_transpose(
        np.moveaxis(VOL, -1, 1), np.swapaxes(K3, -1, -2), 2, "same",
        data_format="channels_first"),
    "max_pool 3d same strided": lambda m: m.max_pool(VOL, (2, 3, 3), (2, 2, 1), "same"),
    "max_pool 3d channels_first": lambda m: m.max_pool(np.moveaxis(VOL, -1, 1), 2, 2,
                                                       data_format="channels_first"),
    "average_pool 3d same strided": lambda m: m.average_pool(VOL, 3, 2, "same"),
    "average_pool 3d valid": lambda m: m.average_pool(VOL, (2, 2, 3), (1, 2, 3), "valid"),
    "depthwise_conv 1d": lambda m: m.depthwise_conv(X1[0], K1[0, :, :3, :2], 2, "same"),
    "istft": lambda m: m.istft(m.stft(SIG, 8, 4, 8), 8, 4, 8),
    "istft length": lambda m: m.istft(m.stft(SIG, 6, 3, 8), 6, 3, 8, length=35),
    "istft not centred": lambda m: m.istft(m.stft(SIG, 8, 4, 8, center=False), 8, 4, 8,
                                           center=False),
    "istft any spectrum": lambda m: m.istft((SIG[:, :35].reshape(2, 7, 5),
                                             SIG[:, 5:40].reshape(2, 7, 5)), 8, 4, 8),
}


def main(path):
    import keras
    out = {}
    for name, call in CASES.items():
        try:
            out[name] = np.asarray(keras.ops.convert_to_numpy(call(keras.ops)))
        except Exception as e:      # recorded: where Keras fails, the test says so
            out[name] = ("raises", f"{type(e).__name__}: {e}"[:300])
    with open(path, "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])

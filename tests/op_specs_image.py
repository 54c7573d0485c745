"""Op-table rows for ``finegrad.image`` (registered into the shared table by `op_specs`).

``image.resize`` returns float32 like TensorFlow, too coarse for finite differences, so the
resampling rows apply the very weight matrices `resize` builds (TensorFlow's kernels) to a
float64 batch with the same `resample` step; ``"nearest"`` keeps the dtype and is checked
through the public function."""
import finegrad as fg
from finegrad._src.ops.image.resize import _axis_weights, resample

from op_table import OpSpec, _add, _named


def _resampler(method, antialias):
    def fn(x):
        return resample(x, _axis_weights(method, antialias, 4, 3),
                        _axis_weights(method, antialias, 3, 5))
    return _named(f"image.resize({method},antialias={antialias})", fn)


_add(*(OpSpec(_resampler(m, aa), shapes=((1, 4, 3, 2),), prims=("einsum",))
       for m in ("bilinear", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                 "mitchellcubic") for aa in ((False, True) if m != "area" else (False,))))
_add(OpSpec(_named("image.resize(nearest)", lambda x: fg.image.resize(x, [5, 2], "nearest")),
            shapes=((4, 3, 2), (1, 4, 3, 2)), prims=("gather",)))

# geometry and filters keep float64 (the color and statistics ops compute in float32 as
# TensorFlow does, so tests/test_image.py compares their gradients with TensorFlow's instead)
_I = fg.image
_GEOMETRY = (
    ("flip_left_right", _I.flip_left_right, ("strided_slice",)),
    ("flip_up_down", _I.flip_up_down, ("strided_slice",)),
    ("transpose", _I.transpose, ("transpose",)),
    ("rot90", _I.rot90, ("strided_slice", "transpose")),
    ("rot90(k=3)", lambda x: _I.rot90(x, 3), ("strided_slice", "transpose")),
    ("crop_to_bounding_box", lambda x: _I.crop_to_bounding_box(x, 1, 0, 2, 2),
     ("strided_slice",)),
    ("pad_to_bounding_box", lambda x: _I.pad_to_bounding_box(x, 1, 1, 5, 4), ("concat",)),
    ("central_crop", lambda x: _I.central_crop(x, 0.5), ("strided_slice",)),
    ("resize_with_crop_or_pad", lambda x: _I.resize_with_crop_or_pad(x, 2, 5),
     ("strided_slice", "concat")),
    ("total_variation", _I.total_variation, ("abs", "reduce_sum")),
    ("image_gradients", _I.image_gradients, ("strided_slice", "concat")),
    ("sobel_edges", _I.sobel_edges, ("strided_slice", "concat")),
)
_add(*(OpSpec(_named(f"image.{label}", fn), shapes=((3, 3, 2), (2, 3, 3, 2))
              if label not in ("image_gradients", "sobel_edges") else ((2, 3, 3, 2),),
              domain=(0.1, 0.9) if label != "total_variation" else (-1.0, 1.0),
              prims=prims)
       for label, fn, prims in _GEOMETRY))

# TensorFlow registers no gradient for these kernels; their rules raise its LookupError
# (tests/test_image.py checks that), so they are neither differentiable rows nor NONDIFF
NO_GRADIENT = {name: f"TensorFlow has no gradient for {name}: its rules raise TensorFlow's "
                     "LookupError, checked in tests/test_image.py"
               for name in ("adjust_contrast", "adjust_saturation", "adjust_hue")}

_add(OpSpec(_named("image.rgb_to_hsv", _I.rgb_to_hsv), shapes=((3,), (2, 2, 3)),
            prims=("maximum", "minimum", "select", "concat")))
_add(OpSpec(_named("image.extract_patches(SAME)", lambda x: _I.extract_patches(
         x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")), shapes=((1, 4, 5, 2),),
            prims=("strided_slice", "concat", "reshape")))
# ssim computes in float32 (as TensorFlow); its blur is `resample`, the einsum checked above

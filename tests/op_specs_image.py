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

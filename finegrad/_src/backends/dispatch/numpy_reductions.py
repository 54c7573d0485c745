"""`keras.ops.numpy`'s reductions, statistics and cumulative functions.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`). Re-exported by
`finegrad._src.backends.dispatch.numpy_arrays`.
"""

from typing import Any

from finegrad._src.backends.dispatch.selection import on as _on
from finegrad._src.types import TensorLike


def all(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.all` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.all([[True, False, True], [False, True, True]]))
    array(False)
    """
    return _on(x).all(x, axis, keepdims)


def amax(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.amax` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.amax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.453, dtype=float32)
    """
    return _on(x).amax(x, axis, keepdims)


def amin(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.amin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.amin([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(-1.866, dtype=float32)
    """
    return _on(x).amin(x, axis, keepdims)


def any(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.any` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.any([[True, False, True], [False, True, True]]))
    array(True)
    """
    return _on(x).any(x, axis, keepdims)


def argmax(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.argmax` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.argmax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(4, dtype=int32)
    """
    return _on(x).argmax(x, axis, keepdims)


def argmin(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.argmin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.argmin([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1, dtype=int32)
    """
    return _on(x).argmin(x, axis, keepdims)


def average(x: TensorLike, axis: Any = None, weights: TensorLike | None = None) -> Any:
    """Keras 3's `keras.ops.average` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.average(x, axis=1, weights=[1.0, 2.0, 3.0]))
    array([0.07583332, 0.35116664], dtype=float32)
    """
    return _on(x, weights).average(x, axis, weights)


def count_nonzero(x: TensorLike, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.count_nonzero` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.count_nonzero([[1, 5, 2], [4, 0, 3]]))
    array(5, dtype=int32)
    """
    return _on(x).count_nonzero(x, axis)


def cumprod(x: TensorLike, axis: Any = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.cumprod` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cumprod([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], axis=0))
    array([[ 1.43    , -1.866   ,  0.919   ],
           [-1.85471 , -2.711298,  0.152554]], dtype=float32)
    """
    return _on(x).cumprod(x, axis, dtype)


def cumsum(x: TensorLike, axis: Any = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.cumsum` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cumsum([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], axis=1))
    array([[ 1.43      , -0.4360001 ,  0.48299992],
           [-1.297     ,  0.1559999 ,  0.3219999 ]], dtype=float32)
    """
    return _on(x).cumsum(x, axis, dtype)


def max(x: TensorLike, axis: Any = None, keepdims: Any = False, initial: Any = None) -> Any:
    """Maximum over ``axis`` (all axes when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.max([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.453, dtype=float32)
    """
    return _on(x, initial).max(x, axis, keepdims, initial)


def mean(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Mean over ``axis`` (all axes when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.mean([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.13416664, dtype=float32)
    """
    return _on(x).mean(x, axis, keepdims)


def median(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.median` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.median([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.5425, dtype=float32)
    """
    return _on(x).median(x, axis, keepdims)


def min(x: TensorLike, axis: Any = None, keepdims: Any = False, initial: Any = None) -> Any:
    """Minimum over ``axis`` (all axes when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.min([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(-1.866, dtype=float32)
    """
    return _on(x, initial).min(x, axis, keepdims, initial)


def nanargmax(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanargmax` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanargmax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(4, dtype=int32)
    """
    return _on(x).nanargmax(x, axis, keepdims)


def nanargmin(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanargmin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanargmin([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1, dtype=int32)
    """
    return _on(x).nanargmin(x, axis, keepdims)


def nancumprod(x: TensorLike, axis: Any = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.nancumprod` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.nancumprod(x, axis=1))
    array([[ 1.43     , -2.66838  , -2.4522414],
           [-1.297    , -1.884541 , -0.3128338]], dtype=float32)
    """
    return _on(x).nancumprod(x, axis, dtype)


def nancumsum(x: TensorLike, axis: Any = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.nancumsum` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.nancumsum(x, axis=1))
    array([[ 1.43      , -0.4360001 ,  0.48299992],
           [-1.297     ,  0.1559999 ,  0.3219999 ]], dtype=float32)
    """
    return _on(x).nancumsum(x, axis, dtype)


def nanmax(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanmax` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanmax([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.453, dtype=float32)
    """
    return _on(x).nanmax(x, axis, keepdims)


def nanmean(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanmean` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanmean([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.13416664, dtype=float32)
    """
    return _on(x).nanmean(x, axis, keepdims)


def nanmedian(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanmedian` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanmedian([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.5425, dtype=float32)
    """
    return _on(x).nanmedian(x, axis, keepdims)


def nanmin(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanmin` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanmin([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(-1.866, dtype=float32)
    """
    return _on(x).nanmin(x, axis, keepdims)


def nanpercentile(
    x: TensorLike,
    q: Any,
    axis: Any = None,
    method: Any = "linear",
    keepdims: Any = False,
) -> Any:
    """Keras 3's `keras.ops.nanpercentile` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.nanpercentile(x, 30.0))
    array(-0.5655, dtype=float32)
    """
    return _on(x, q).nanpercentile(x, q, axis, method, keepdims)


def nanprod(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanprod` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanprod([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.76714396, dtype=float32)
    """
    return _on(x).nanprod(x, axis, keepdims)


def nanquantile(
    x: TensorLike,
    q: Any,
    axis: Any = None,
    method: Any = "linear",
    keepdims: Any = False,
) -> Any:
    """Keras 3's `keras.ops.nanquantile` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.nanquantile(x, 0.3))
    array(-0.5655, dtype=float32)
    """
    return _on(x, q).nanquantile(x, q, axis, method, keepdims)


def nanstd(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanstd` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanstd([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.2964302, dtype=float32)
    """
    return _on(x).nanstd(x, axis, keepdims)


def nansum(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nansum` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nansum([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.8049998, dtype=float32)
    """
    return _on(x).nansum(x, axis, keepdims)


def nanvar(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.nanvar` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.nanvar([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.6807313, dtype=float32)
    """
    return _on(x).nanvar(x, axis, keepdims)


def percentile(
    x: TensorLike,
    q: Any,
    axis: Any = None,
    method: Any = "linear",
    keepdims: Any = False,
) -> Any:
    """Keras 3's `keras.ops.percentile` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.percentile(x, 40.0, axis=0))
    array([-0.2062    , -0.53840005,  0.46719998], dtype=float32)
    """
    return _on(x, q).percentile(x, q, axis, method, keepdims)


def prod(x: TensorLike, axis: Any = None, keepdims: Any = False, dtype: Any = None) -> Any:
    """Product over ``axis`` (all axes when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.prod([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.76714396, dtype=float32)
    """
    return _on(x).prod(x, axis, keepdims, dtype)


def ptp(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.ptp` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.ptp([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(3.319, dtype=float32)
    """
    return _on(x).ptp(x, axis, keepdims)


def quantile(
    x: TensorLike,
    q: Any,
    axis: Any = None,
    method: Any = "linear",
    keepdims: Any = False,
) -> Any:
    """Keras 3's `keras.ops.quantile` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.quantile([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 0.3))
    array(-0.5655, dtype=float32)
    """
    return _on(x, q).quantile(x, q, axis, method, keepdims)


def std(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.std` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.std([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.2964302, dtype=float32)
    """
    return _on(x).std(x, axis, keepdims)


def sum(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Sum over ``axis`` (all axes when None).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.sum([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(0.8049998, dtype=float32)
    """
    return _on(x).sum(x, axis, keepdims)


def var(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """Keras 3's `keras.ops.var` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.var([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(1.6807313, dtype=float32)
    """
    return _on(x).var(x, axis, keepdims)

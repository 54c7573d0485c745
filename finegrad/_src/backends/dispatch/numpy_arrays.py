"""`keras.ops.numpy`'s functions of arrays: creation, shapes, reductions, indexing.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def all(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.all` on the active backend."""
    return _on(x).all(x, axis, keepdims)


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Keras 3's `keras.ops.allclose` on the active backend."""
    return _on(x1, x2).allclose(x1, x2, rtol, atol, equal_nan)


def amax(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.amax` on the active backend."""
    return _on(x).amax(x, axis, keepdims)


def amin(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.amin` on the active backend."""
    return _on(x).amin(x, axis, keepdims)


def any(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.any` on the active backend."""
    return _on(x).any(x, axis, keepdims)


def append(x1, x2, axis=None):
    """Keras 3's `keras.ops.append` on the active backend."""
    return _on(x1, x2).append(x1, x2, axis)


def arange(start, stop=None, step=None, dtype=None):
    """Keras 3's `keras.ops.arange` on the active backend."""
    return _on(start, stop, step).arange(start, stop, step, dtype)


def argmax(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.argmax` on the active backend."""
    return _on(x).argmax(x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.argmin` on the active backend."""
    return _on(x).argmin(x, axis, keepdims)


def argpartition(x, kth, axis=-1):
    """Keras 3's `keras.ops.argpartition` on the active backend."""
    return _on(x, kth).argpartition(x, kth, axis)


def argsort(x, axis=-1):
    """Keras 3's `keras.ops.argsort` on the active backend."""
    return _on(x).argsort(x, axis)


def array(x, dtype=None):
    """Keras 3's `keras.ops.array` on the active backend."""
    return _on(x).array(x, dtype)


def array_split(x, indices_or_sections, axis=0):
    """Keras 3's `keras.ops.array_split` on the active backend."""
    return _on(x, indices_or_sections).array_split(x, indices_or_sections, axis)


def average(x, axis=None, weights=None):
    """Keras 3's `keras.ops.average` on the active backend."""
    return _on(x, weights).average(x, axis, weights)


def bincount(x, weights=None, minlength=0, sparse=False):
    """Keras 3's `keras.ops.bincount` on the active backend."""
    return _on(x, weights).bincount(x, weights, minlength, sparse)


def clip(x, x_min, x_max):
    """``x`` limited to ``[x_min, x_max]``."""
    return _on(x, x_min, x_max).clip(x, x_min, x_max)


def concatenate(xs, axis=0):
    """The tensors ``xs`` joined along the existing ``axis``."""
    return _on(xs).concatenate(xs, axis)


def correlate(x1, x2, mode="valid"):
    """Keras 3's `keras.ops.correlate` on the active backend."""
    return _on(x1, x2).correlate(x1, x2, mode)


def count_nonzero(x, axis=None):
    """Keras 3's `keras.ops.count_nonzero` on the active backend."""
    return _on(x).count_nonzero(x, axis)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Keras 3's `keras.ops.cross` on the active backend."""
    return _on(x1, x2).cross(x1, x2, axisa, axisb, axisc, axis)


def cumprod(x, axis=None, dtype=None):
    """Keras 3's `keras.ops.cumprod` on the active backend."""
    return _on(x).cumprod(x, axis, dtype)


def cumsum(x, axis=None, dtype=None):
    """Keras 3's `keras.ops.cumsum` on the active backend."""
    return _on(x).cumsum(x, axis, dtype)


def diag(x, k=0):
    """Keras 3's `keras.ops.diag` on the active backend."""
    return _on(x).diag(x, k)


def diagflat(x, k=0):
    """Keras 3's `keras.ops.diagflat` on the active backend."""
    return _on(x).diagflat(x, k)


def diagonal(x, offset=0, axis1=0, axis2=1):
    """Keras 3's `keras.ops.diagonal` on the active backend."""
    return _on(x).diagonal(x, offset, axis1, axis2)


def diff(a, n=1, axis=-1):
    """Keras 3's `keras.ops.diff` on the active backend."""
    return _on(a).diff(a, n, axis)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation of ``operands`` as ``subscripts`` says (e.g. ``"ij,jk->ik"``)."""
    return _on(*operands).einsum(subscripts, *operands, **kwargs)


def empty(shape, dtype=None):
    """Keras 3's `keras.ops.empty` on the active backend."""
    return _on().empty(shape, dtype)


def empty_like(x, dtype=None):
    """Keras 3's `keras.ops.empty_like` on the active backend."""
    return _on(x).empty_like(x, dtype)


def eye(N, M=None, k=0, dtype=None):
    """Keras 3's `keras.ops.eye` on the active backend."""
    return _on(N, M).eye(N, M, k, dtype)


def flip(x, axis=None):
    """Keras 3's `keras.ops.flip` on the active backend."""
    return _on(x).flip(x, axis)


def full(shape, fill_value, dtype=None):
    """Keras 3's `keras.ops.full` on the active backend."""
    return _on(fill_value).full(shape, fill_value, dtype)


def full_like(x, fill_value, dtype=None):
    """Keras 3's `keras.ops.full_like` on the active backend."""
    return _on(x, fill_value).full_like(x, fill_value, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Keras 3's `keras.ops.geomspace` on the active backend."""
    return _on(start, stop).geomspace(start, stop, num, endpoint, dtype, axis)


def histogram(x, bins=10, range=None):
    """Keras 3's `keras.ops.histogram` on the active backend."""
    return _on(x, range).histogram(x, bins, range)


def identity(n, dtype=None):
    """Keras 3's `keras.ops.identity` on the active backend."""
    return _on(n).identity(n, dtype)


def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Keras 3's `keras.ops.isclose` on the active backend."""
    return _on(x1, x2).isclose(x1, x2, rtol, atol, equal_nan)


def isin(x1, x2, assume_unique=False, invert=False):
    """Keras 3's `keras.ops.isin` on the active backend."""
    return _on(x1, x2).isin(x1, x2, assume_unique, invert)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Keras 3's `keras.ops.linspace` on the active backend."""
    return _on(start, stop).linspace(start, stop, num, endpoint, retstep, dtype, axis)


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """Keras 3's `keras.ops.logspace` on the active backend."""
    return _on(start, stop).logspace(start, stop, num, endpoint, base, dtype, axis)


def max(x, axis=None, keepdims=False, initial=None):
    """Maximum over ``axis`` (all axes when None)."""
    return _on(x, initial).max(x, axis, keepdims, initial)


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (all axes when None)."""
    return _on(x).mean(x, axis, keepdims)


def median(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.median` on the active backend."""
    return _on(x).median(x, axis, keepdims)


def meshgrid(*x, indexing="xy"):
    """Keras 3's `keras.ops.meshgrid` on the active backend."""
    return _on(*x).meshgrid(*x, indexing=indexing)


def min(x, axis=None, keepdims=False, initial=None):
    """Minimum over ``axis`` (all axes when None)."""
    return _on(x, initial).min(x, axis, keepdims, initial)


def moveaxis(x, source, destination):
    """Keras 3's `keras.ops.moveaxis` on the active backend."""
    return _on(x, source, destination).moveaxis(x, source, destination)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Keras 3's `keras.ops.nan_to_num` on the active backend."""
    return _on(x, posinf, neginf).nan_to_num(x, nan, posinf, neginf)


def nanargmax(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanargmax` on the active backend."""
    return _on(x).nanargmax(x, axis, keepdims)


def nanargmin(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanargmin` on the active backend."""
    return _on(x).nanargmin(x, axis, keepdims)


def nancumprod(x, axis=None, dtype=None):
    """Keras 3's `keras.ops.nancumprod` on the active backend."""
    return _on(x).nancumprod(x, axis, dtype)


def nancumsum(x, axis=None, dtype=None):
    """Keras 3's `keras.ops.nancumsum` on the active backend."""
    return _on(x).nancumsum(x, axis, dtype)


def nanmax(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanmax` on the active backend."""
    return _on(x).nanmax(x, axis, keepdims)


def nanmean(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanmean` on the active backend."""
    return _on(x).nanmean(x, axis, keepdims)


def nanmedian(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanmedian` on the active backend."""
    return _on(x).nanmedian(x, axis, keepdims)


def nanmin(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanmin` on the active backend."""
    return _on(x).nanmin(x, axis, keepdims)


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """Keras 3's `keras.ops.nanpercentile` on the active backend."""
    return _on(x, q).nanpercentile(x, q, axis, method, keepdims)


def nanprod(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanprod` on the active backend."""
    return _on(x).nanprod(x, axis, keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """Keras 3's `keras.ops.nanquantile` on the active backend."""
    return _on(x, q).nanquantile(x, q, axis, method, keepdims)


def nanstd(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanstd` on the active backend."""
    return _on(x).nanstd(x, axis, keepdims)


def nansum(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nansum` on the active backend."""
    return _on(x).nansum(x, axis, keepdims)


def nanvar(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.nanvar` on the active backend."""
    return _on(x).nanvar(x, axis, keepdims)


def ones(shape, dtype=None):
    """A tensor of ones of ``shape``."""
    return _on().ones(shape, dtype)


def ones_like(x, dtype=None):
    """Keras 3's `keras.ops.ones_like` on the active backend."""
    return _on(x).ones_like(x, dtype)


def pad(x, pad_width, mode="constant", constant_values=None):
    """Keras 3's `keras.ops.pad` on the active backend."""
    return _on(x, pad_width, constant_values).pad(x, pad_width, mode, constant_values)


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """Keras 3's `keras.ops.percentile` on the active backend."""
    return _on(x, q).percentile(x, q, axis, method, keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis`` (all axes when None)."""
    return _on(x).prod(x, axis, keepdims, dtype)


def ptp(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.ptp` on the active backend."""
    return _on(x).ptp(x, axis, keepdims)


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """Keras 3's `keras.ops.quantile` on the active backend."""
    return _on(x, q).quantile(x, q, axis, method, keepdims)


def repeat(x, repeats, axis=None):
    """Keras 3's `keras.ops.repeat` on the active backend."""
    return _on(x, repeats).repeat(x, repeats, axis)


def roll(x, shift, axis=None):
    """Keras 3's `keras.ops.roll` on the active backend."""
    return _on(x, shift).roll(x, shift, axis)


def rot90(array, k=1, axes=(0, 1)):
    """Keras 3's `keras.ops.rot90` on the active backend."""
    return _on(array).rot90(array, k, axes)


def round(x, decimals=0):
    """Keras 3's `keras.ops.round` on the active backend."""
    return _on(x).round(x, decimals)


def searchsorted(sorted_sequence, values, side="left"):
    """Keras 3's `keras.ops.searchsorted` on the active backend."""
    return _on(sorted_sequence, values).searchsorted(sorted_sequence, values, side)


def select(condlist, choicelist, default=0):
    """Keras 3's `keras.ops.select` on the active backend."""
    return _on(condlist, choicelist).select(condlist, choicelist, default)


def sort(x, axis=-1):
    """Keras 3's `keras.ops.sort` on the active backend."""
    return _on(x).sort(x, axis)


def split(x, indices_or_sections, axis=0):
    """Keras 3's `keras.ops.split` on the active backend."""
    return _on(x, indices_or_sections).split(x, indices_or_sections, axis)


def squeeze(x, axis=None):
    """``x`` without its axes of length 1 (or only ``axis``)."""
    return _on(x).squeeze(x, axis)


def stack(x, axis=0):
    """The tensors ``x`` joined along a new ``axis``."""
    return _on(x).stack(x, axis)


def std(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.std` on the active backend."""
    return _on(x).std(x, axis, keepdims)


def sum(x, axis=None, keepdims=False):
    """Sum over ``axis`` (all axes when None)."""
    return _on(x).sum(x, axis, keepdims)


def swapaxes(x, axis1, axis2):
    """Keras 3's `keras.ops.swapaxes` on the active backend."""
    return _on(x, axis1, axis2).swapaxes(x, axis1, axis2)


def take(x, indices, axis=None):
    """Keras 3's `keras.ops.take` on the active backend."""
    return _on(x, indices).take(x, indices, axis)


def take_along_axis(x, indices, axis=None):
    """Keras 3's `keras.ops.take_along_axis` on the active backend."""
    return _on(x, indices).take_along_axis(x, indices, axis)


def tensordot(x1, x2, axes=2):
    """Keras 3's `keras.ops.tensordot` on the active backend."""
    return _on(x1, x2).tensordot(x1, x2, axes)


def trace(x, offset=0, axis1=0, axis2=1):
    """Keras 3's `keras.ops.trace` on the active backend."""
    return _on(x).trace(x, offset, axis1, axis2)


def transpose(x, axes=None):
    """``x`` with its axes permuted by ``axes`` (reversed when None)."""
    return _on(x).transpose(x, axes)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Keras 3's `keras.ops.trapezoid` on the active backend."""
    return _on(y, x).trapezoid(y, x, dx, axis)


def tri(N, M=None, k=0, dtype=None):
    """Keras 3's `keras.ops.tri` on the active backend."""
    return _on(N, M).tri(N, M, k, dtype)


def tril(x, k=0):
    """Keras 3's `keras.ops.tril` on the active backend."""
    return _on(x).tril(x, k)


def triu(x, k=0):
    """Keras 3's `keras.ops.triu` on the active backend."""
    return _on(x).triu(x, k)


def unique(
    x,
    sorted=True,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    size=None,
    fill_value=None,
):
    """Keras 3's `keras.ops.unique` on the active backend."""
    return _on(x, size, fill_value).unique(
        x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value
    )


def vander(x, N=None, increasing=False):
    """Keras 3's `keras.ops.vander` on the active backend."""
    return _on(x, N).vander(x, N, increasing)


def var(x, axis=None, keepdims=False):
    """Keras 3's `keras.ops.var` on the active backend."""
    return _on(x).var(x, axis, keepdims)


def vectorize(pyfunc, *, excluded=None, signature=None):
    """Keras 3's `keras.ops.vectorize` on the active backend."""
    return _on().vectorize(pyfunc, excluded=excluded, signature=signature)


def view(x, dtype=None):
    """Keras 3's `keras.ops.view` on the active backend."""
    return _on(x).view(x, dtype)


def where(condition, x1=None, x2=None):
    """Elementwise ``x1`` where ``condition`` holds, else ``x2`` (broadcasting)."""
    return _on(condition, x1, x2).where(condition, x1, x2)


def zeros(shape, dtype=None):
    """A tensor of zeros of ``shape``."""
    return _on().zeros(shape, dtype)


def zeros_like(x, dtype=None):
    """Keras 3's `keras.ops.zeros_like` on the active backend."""
    return _on(x).zeros_like(x, dtype)

"""`keras.ops.numpy` on ``jax.numpy``: its functions under Keras's names, promotion and
parameter names (``jax_enable_x64`` off: 64-bit results narrowed, as Keras on JAX)."""
import builtins as _builtins

import jax as _jax
import jax.numpy as jnp

from finegrad._src.backends import elementwise as _elementwise
from finegrad._src.backends import promotion as _promotion
from finegrad._src.backends.jax import custom as _custom


def _wide():
    return bool(_jax.config.read("jax_enable_x64"))


_C = _elementwise.Convention(_custom.is_tensor, _custom.convert_to_tensor,
                             lambda x, d: jnp.asarray(x).astype(d), _custom.dtype_name,
                             wide=_wide(), is_float=lambda x: x.dtype.kind == "f",
                             tensor_type=type(jnp.zeros(())))
_elementwise.fill(globals(), _C, jnp)

# Keras's parameters by keyword: jax.numpy's names are NumPy's, as Keras's
_elementwise.fill_by_keyword(globals(), _C, jnp, one="""all any amax amin argmax argmin
argsort average broadcast_to count_nonzero cumprod cumsum diag diagflat diagonal diff flip
full_like histogram max mean median min moveaxis nanargmax nanargmin nancumprod nancumsum
nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar
nan_to_num prod ptp ravel repeat roll rot90 sort std sum swapaxes trace
trapezoid tril triu var vander zeros_like ones_like empty_like array_split hsplit vsplit
dsplit split corrcoef ndim argpartition round""".split(),
                             two="""isin kron tensordot isclose allclose correlate cross
inner outer vdot dot append""".split(),
                             indexed="take take_along_axis searchsorted digitize".split())
tile = _C.by_keyword(jnp.tile, "tile", rename={"repeats": "reps"})
linspace = _C.by_keyword(jnp.linspace, "linspace", 2)
logspace = _C.by_keyword(jnp.logspace, "logspace", 2)
geomspace = _C.by_keyword(jnp.geomspace, "geomspace", 2)


def unravel_index(indices, shape):
    return jnp.unravel_index(indices, shape)


def bincount(x, weights=None, minlength=0, sparse=False):
    return jnp.bincount(x, weights, minlength)


def reshape(x, newshape):
    return jnp.reshape(x, newshape)


def transpose(x, axes=None):
    return jnp.transpose(x, axes)


def expand_dims(x, axis):
    return jnp.expand_dims(x, axis)


def squeeze(x, axis=None):
    return jnp.squeeze(x, axis)


def concatenate(xs, axis=0):
    return jnp.concatenate([_C.tensor(x) for x in xs], axis)


def stack(x, axis=0):
    return jnp.stack([_C.tensor(v) for v in x], axis)


def hstack(xs):
    return jnp.hstack(xs)


def vstack(xs):
    return jnp.vstack(xs)


def dstack(xs):
    return jnp.dstack(xs)


def where(condition, x1=None, x2=None):
    if x1 is None and x2 is None:
        return jnp.nonzero(condition)
    x1, x2 = _C.promote(x1, x2)
    return jnp.where(condition, x1, x2)


def clip(x, x_min, x_max):
    x = _C.tensor(x)
    if x.dtype == jnp.bool_:
        x = x.astype("int32")
    return jnp.clip(x, x_min, x_max)


def einsum(subscripts, *operands, **kwargs):
    return jnp.einsum(subscripts, *_C.int8_as_int32(*[_C.tensor(x) for x in operands]), **kwargs)


def arange(start, stop=None, step=None, dtype=None):
    if dtype is None:
        floats = _builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = "float32" if floats else "int32"
    return jnp.arange(start, stop, step, dtype=dtype)


def zeros(shape, dtype=None):
    return jnp.zeros(shape, dtype=dtype or "float32")


def ones(shape, dtype=None):
    return jnp.ones(shape, dtype=dtype or "float32")


def full(shape, fill_value, dtype=None):
    return jnp.full(shape, fill_value, dtype=dtype or jnp.asarray(fill_value).dtype)


def eye(N, M=None, k=0, dtype=None):  # (Keras's names)
    return jnp.eye(N, M, k, dtype=dtype or "float32")


def tri(N, M=None, k=0, dtype=None):
    return jnp.tri(N, M, k, dtype=dtype or "float32")


def identity(n, dtype=None):
    return jnp.identity(n, dtype=dtype or "float32")


def pad(x, pad_width, mode="constant", constant_values=None):
    if constant_values is None:
        return jnp.pad(x, pad_width, mode=mode)
    return jnp.pad(x, pad_width, mode=mode, constant_values=constant_values)


def meshgrid(*x, indexing="xy"):
    return jnp.meshgrid(*x, indexing=indexing)


def nonzero(x):
    return jnp.nonzero(x)


def unique(x, sorted=True, return_index=False, return_inverse=False,
           return_counts=False, axis=None, size=None, fill_value=None):
    return jnp.unique(x, return_index=return_index, return_inverse=return_inverse,
                      return_counts=return_counts, axis=axis, size=size,
                      fill_value=fill_value)


def select(condlist, choicelist, default=0):
    return jnp.select(condlist, choicelist, default)


def rint(x):
    return jnp.round(x)


def result_type(*dtypes):
    return _promotion.result_type(*dtypes, wide=_wide())


def slogdet(x):
    return tuple(jnp.linalg.slogdet(x))


def get_item(x, key):
    return _C.tensor(x)[key]


def vectorize(pyfunc, *, excluded=None, signature=None):
    return jnp.vectorize(pyfunc, excluded=excluded or set(), signature=signature)


def divide_no_nan(x1, x2):
    x1, x2 = _C.promote(x1, x2, float)
    safe = jnp.where(x2 == 0, 1, x2)
    return jnp.where(x2 == 0, 0, x1 / safe)


def _quantiles(fn):
    def q_function(x, q, axis=None, method="linear", keepdims=False):
        return fn(_C.floating(x), jnp.asarray(q), axis=axis, method=method, keepdims=keepdims)
    return q_function


quantile, percentile = _quantiles(jnp.quantile), _quantiles(jnp.percentile)
nanquantile, nanpercentile = _quantiles(jnp.nanquantile), _quantiles(jnp.nanpercentile)


def ldexp(x1, x2):
    return jnp.ldexp(_C.floating(x1), jnp.asarray(x2))


def matmul(x1, x2):
    return jnp.matmul(*_C.int8_as_int32(*_C.promote(x1, x2)))

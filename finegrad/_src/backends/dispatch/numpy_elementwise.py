"""`keras.ops.numpy`'s elementwise functions of one or two tensors.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def abs(x):
    """Elementwise absolute value."""
    return _on(x).abs(x)


def absolute(x):
    """Keras 3's `keras.ops.absolute` on the active backend."""
    return _on(x).absolute(x)


def add(x1, x2):
    """Elementwise x1 + x2 (broadcasting)."""
    return _on(x1, x2).add(x1, x2)


def angle(x):
    """Keras 3's `keras.ops.angle` on the active backend."""
    return _on(x).angle(x)


def arccos(x):
    """Keras 3's `keras.ops.arccos` on the active backend."""
    return _on(x).arccos(x)


def arccosh(x):
    """Keras 3's `keras.ops.arccosh` on the active backend."""
    return _on(x).arccosh(x)


def arcsin(x):
    """Keras 3's `keras.ops.arcsin` on the active backend."""
    return _on(x).arcsin(x)


def arcsinh(x):
    """Keras 3's `keras.ops.arcsinh` on the active backend."""
    return _on(x).arcsinh(x)


def arctan(x):
    """Keras 3's `keras.ops.arctan` on the active backend."""
    return _on(x).arctan(x)


def arctan2(x1, x2):
    """Keras 3's `keras.ops.arctan2` on the active backend."""
    return _on(x1, x2).arctan2(x1, x2)


def arctanh(x):
    """Keras 3's `keras.ops.arctanh` on the active backend."""
    return _on(x).arctanh(x)


def bartlett(x):
    """Keras 3's `keras.ops.bartlett` on the active backend."""
    return _on(x).bartlett(x)


def bitwise_and(x, y):
    """Keras 3's `keras.ops.bitwise_and` on the active backend."""
    return _on(x, y).bitwise_and(x, y)


def bitwise_invert(x):
    """Keras 3's `keras.ops.bitwise_invert` on the active backend."""
    return _on(x).bitwise_invert(x)


def bitwise_left_shift(x, y):
    """Keras 3's `keras.ops.bitwise_left_shift` on the active backend."""
    return _on(x, y).bitwise_left_shift(x, y)


def bitwise_not(x):
    """Keras 3's `keras.ops.bitwise_not` on the active backend."""
    return _on(x).bitwise_not(x)


def bitwise_or(x, y):
    """Keras 3's `keras.ops.bitwise_or` on the active backend."""
    return _on(x, y).bitwise_or(x, y)


def bitwise_right_shift(x, y):
    """Keras 3's `keras.ops.bitwise_right_shift` on the active backend."""
    return _on(x, y).bitwise_right_shift(x, y)


def bitwise_xor(x, y):
    """Keras 3's `keras.ops.bitwise_xor` on the active backend."""
    return _on(x, y).bitwise_xor(x, y)


def blackman(x):
    """Keras 3's `keras.ops.blackman` on the active backend."""
    return _on(x).blackman(x)


def broadcast_to(x, shape):
    """Keras 3's `keras.ops.broadcast_to` on the active backend."""
    return _on(x).broadcast_to(x, shape)


def cbrt(x):
    """Keras 3's `keras.ops.cbrt` on the active backend."""
    return _on(x).cbrt(x)


def ceil(x):
    """Keras 3's `keras.ops.ceil` on the active backend."""
    return _on(x).ceil(x)


def conj(x):
    """Keras 3's `keras.ops.conj` on the active backend."""
    return _on(x).conj(x)


def conjugate(x):
    """Keras 3's `keras.ops.conjugate` on the active backend."""
    return _on(x).conjugate(x)


def copy(x):
    """Keras 3's `keras.ops.copy` on the active backend."""
    return _on(x).copy(x)


def corrcoef(x):
    """Keras 3's `keras.ops.corrcoef` on the active backend."""
    return _on(x).corrcoef(x)


def cos(x):
    """Elementwise cosine."""
    return _on(x).cos(x)


def cosh(x):
    """Keras 3's `keras.ops.cosh` on the active backend."""
    return _on(x).cosh(x)


def deg2rad(x):
    """Keras 3's `keras.ops.deg2rad` on the active backend."""
    return _on(x).deg2rad(x)


def digitize(x, bins):
    """Keras 3's `keras.ops.digitize` on the active backend."""
    return _on(x, bins).digitize(x, bins)


def divide(x1, x2):
    """Elementwise x1 / x2 (broadcasting)."""
    return _on(x1, x2).divide(x1, x2)


def divide_no_nan(x1, x2):
    """Keras 3's `keras.ops.divide_no_nan` on the active backend."""
    return _on(x1, x2).divide_no_nan(x1, x2)


def dot(x1, x2):
    """Keras 3's `keras.ops.dot` on the active backend."""
    return _on(x1, x2).dot(x1, x2)


def dsplit(x, indices_or_sections):
    """Keras 3's `keras.ops.dsplit` on the active backend."""
    return _on(x, indices_or_sections).dsplit(x, indices_or_sections)


def dstack(xs):
    """Keras 3's `keras.ops.dstack` on the active backend."""
    return _on(xs).dstack(xs)


def equal(x1, x2):
    """Elementwise x1 == x2 (boolean)."""
    return _on(x1, x2).equal(x1, x2)


def exp(x):
    """Elementwise e**x."""
    return _on(x).exp(x)


def exp2(x):
    """Keras 3's `keras.ops.exp2` on the active backend."""
    return _on(x).exp2(x)


def expand_dims(x, axis):
    """``x`` with a new axis of length 1 at ``axis``."""
    return _on(x).expand_dims(x, axis)


def expm1(x):
    """Elementwise e**x - 1."""
    return _on(x).expm1(x)


def fabs(x):
    """Keras 3's `keras.ops.fabs` on the active backend."""
    return _on(x).fabs(x)


def fliplr(x):
    """Keras 3's `keras.ops.fliplr` on the active backend."""
    return _on(x).fliplr(x)


def flipud(x):
    """Keras 3's `keras.ops.flipud` on the active backend."""
    return _on(x).flipud(x)


def floor(x):
    """Elementwise floor."""
    return _on(x).floor(x)


def floor_divide(x1, x2):
    """Keras 3's `keras.ops.floor_divide` on the active backend."""
    return _on(x1, x2).floor_divide(x1, x2)


def fmax(x1, x2):
    """Keras 3's `keras.ops.fmax` on the active backend."""
    return _on(x1, x2).fmax(x1, x2)


def fmin(x1, x2):
    """Keras 3's `keras.ops.fmin` on the active backend."""
    return _on(x1, x2).fmin(x1, x2)


def fmod(x1, x2):
    """Keras 3's `keras.ops.fmod` on the active backend."""
    return _on(x1, x2).fmod(x1, x2)


def gcd(x1, x2):
    """Keras 3's `keras.ops.gcd` on the active backend."""
    return _on(x1, x2).gcd(x1, x2)


def get_item(x, key):
    """Keras 3's `keras.ops.get_item` on the active backend."""
    return _on(x, key).get_item(x, key)


def greater(x1, x2):
    """Elementwise x1 > x2 (boolean)."""
    return _on(x1, x2).greater(x1, x2)


def greater_equal(x1, x2):
    """Elementwise x1 >= x2 (boolean)."""
    return _on(x1, x2).greater_equal(x1, x2)


def hamming(x):
    """Keras 3's `keras.ops.hamming` on the active backend."""
    return _on(x).hamming(x)


def hanning(x):
    """Keras 3's `keras.ops.hanning` on the active backend."""
    return _on(x).hanning(x)


def heaviside(x1, x2):
    """Keras 3's `keras.ops.heaviside` on the active backend."""
    return _on(x1, x2).heaviside(x1, x2)


def hsplit(x, indices_or_sections):
    """Keras 3's `keras.ops.hsplit` on the active backend."""
    return _on(x, indices_or_sections).hsplit(x, indices_or_sections)


def hstack(xs):
    """Keras 3's `keras.ops.hstack` on the active backend."""
    return _on(xs).hstack(xs)


def hypot(x1, x2):
    """Keras 3's `keras.ops.hypot` on the active backend."""
    return _on(x1, x2).hypot(x1, x2)


def i0(x):
    """Keras 3's `keras.ops.i0` on the active backend."""
    return _on(x).i0(x)


def imag(x):
    """Keras 3's `keras.ops.imag` on the active backend."""
    return _on(x).imag(x)


def inner(x1, x2):
    """Keras 3's `keras.ops.inner` on the active backend."""
    return _on(x1, x2).inner(x1, x2)


def isfinite(x):
    """Keras 3's `keras.ops.isfinite` on the active backend."""
    return _on(x).isfinite(x)


def isinf(x):
    """Keras 3's `keras.ops.isinf` on the active backend."""
    return _on(x).isinf(x)


def isnan(x):
    """Keras 3's `keras.ops.isnan` on the active backend."""
    return _on(x).isnan(x)


def isneginf(x):
    """Keras 3's `keras.ops.isneginf` on the active backend."""
    return _on(x).isneginf(x)


def isposinf(x):
    """Keras 3's `keras.ops.isposinf` on the active backend."""
    return _on(x).isposinf(x)


def isreal(x):
    """Keras 3's `keras.ops.isreal` on the active backend."""
    return _on(x).isreal(x)


def kaiser(x, beta):
    """Keras 3's `keras.ops.kaiser` on the active backend."""
    return _on(x, beta).kaiser(x, beta)


def kron(x1, x2):
    """Keras 3's `keras.ops.kron` on the active backend."""
    return _on(x1, x2).kron(x1, x2)


def lcm(x1, x2):
    """Keras 3's `keras.ops.lcm` on the active backend."""
    return _on(x1, x2).lcm(x1, x2)


def ldexp(x1, x2):
    """Keras 3's `keras.ops.ldexp` on the active backend."""
    return _on(x1, x2).ldexp(x1, x2)


def left_shift(x, y):
    """Keras 3's `keras.ops.left_shift` on the active backend."""
    return _on(x, y).left_shift(x, y)


def less(x1, x2):
    """Elementwise x1 < x2 (boolean)."""
    return _on(x1, x2).less(x1, x2)


def less_equal(x1, x2):
    """Elementwise x1 <= x2 (boolean)."""
    return _on(x1, x2).less_equal(x1, x2)


def log(x):
    """Elementwise natural logarithm."""
    return _on(x).log(x)


def log10(x):
    """Keras 3's `keras.ops.log10` on the active backend."""
    return _on(x).log10(x)


def log1p(x):
    """Elementwise log(1 + x)."""
    return _on(x).log1p(x)


def log2(x):
    """Keras 3's `keras.ops.log2` on the active backend."""
    return _on(x).log2(x)


def logaddexp(x1, x2):
    """Keras 3's `keras.ops.logaddexp` on the active backend."""
    return _on(x1, x2).logaddexp(x1, x2)


def logaddexp2(x1, x2):
    """Keras 3's `keras.ops.logaddexp2` on the active backend."""
    return _on(x1, x2).logaddexp2(x1, x2)


def logical_and(x1, x2):
    """Keras 3's `keras.ops.logical_and` on the active backend."""
    return _on(x1, x2).logical_and(x1, x2)


def logical_not(x):
    """Keras 3's `keras.ops.logical_not` on the active backend."""
    return _on(x).logical_not(x)


def logical_or(x1, x2):
    """Keras 3's `keras.ops.logical_or` on the active backend."""
    return _on(x1, x2).logical_or(x1, x2)


def logical_xor(x1, x2):
    """Keras 3's `keras.ops.logical_xor` on the active backend."""
    return _on(x1, x2).logical_xor(x1, x2)


def matmul(x1, x2):
    """Matrix product of x1 and x2 (batched over leading axes)."""
    return _on(x1, x2).matmul(x1, x2)


def maximum(x1, x2):
    """Elementwise maximum (broadcasting)."""
    return _on(x1, x2).maximum(x1, x2)


def minimum(x1, x2):
    """Elementwise minimum (broadcasting)."""
    return _on(x1, x2).minimum(x1, x2)


def mod(x1, x2):
    """Keras 3's `keras.ops.mod` on the active backend."""
    return _on(x1, x2).mod(x1, x2)


def multiply(x1, x2):
    """Elementwise x1 * x2 (broadcasting)."""
    return _on(x1, x2).multiply(x1, x2)


def ndim(x):
    """Keras 3's `keras.ops.ndim` on the active backend."""
    return _on(x).ndim(x)


def negative(x):
    """Elementwise -x."""
    return _on(x).negative(x)


def nextafter(x1, x2):
    """Keras 3's `keras.ops.nextafter` on the active backend."""
    return _on(x1, x2).nextafter(x1, x2)


def nonzero(x):
    """Keras 3's `keras.ops.nonzero` on the active backend."""
    return _on(x).nonzero(x)


def not_equal(x1, x2):
    """Elementwise x1 != x2 (boolean)."""
    return _on(x1, x2).not_equal(x1, x2)


def outer(x1, x2):
    """Keras 3's `keras.ops.outer` on the active backend."""
    return _on(x1, x2).outer(x1, x2)


def power(x1, x2):
    """Elementwise x1 ** x2 (broadcasting)."""
    return _on(x1, x2).power(x1, x2)


def rad2deg(x):
    """Keras 3's `keras.ops.rad2deg` on the active backend."""
    return _on(x).rad2deg(x)


def ravel(x):
    """Keras 3's `keras.ops.ravel` on the active backend."""
    return _on(x).ravel(x)


def real(x):
    """Keras 3's `keras.ops.real` on the active backend."""
    return _on(x).real(x)


def reciprocal(x):
    """Keras 3's `keras.ops.reciprocal` on the active backend."""
    return _on(x).reciprocal(x)


def reshape(x, newshape):
    """``x`` with shape ``newshape`` (one size may be -1)."""
    return _on(x, newshape).reshape(x, newshape)


def right_shift(x, y):
    """Keras 3's `keras.ops.right_shift` on the active backend."""
    return _on(x, y).right_shift(x, y)


def sign(x):
    """Elementwise sign (-1, 0 or 1)."""
    return _on(x).sign(x)


def signbit(x):
    """Keras 3's `keras.ops.signbit` on the active backend."""
    return _on(x).signbit(x)


def sin(x):
    """Elementwise sine."""
    return _on(x).sin(x)


def sinc(x):
    """Keras 3's `keras.ops.sinc` on the active backend."""
    return _on(x).sinc(x)


def sinh(x):
    """Keras 3's `keras.ops.sinh` on the active backend."""
    return _on(x).sinh(x)


def size(x):
    """Keras 3's `keras.ops.size` on the active backend."""
    return _on(x).size(x)


def slogdet(x):
    """Keras 3's `keras.ops.slogdet` on the active backend."""
    return _on(x).slogdet(x)


def sqrt(x):
    """Elementwise square root."""
    return _on(x).sqrt(x)


def square(x):
    """Elementwise x**2."""
    return _on(x).square(x)


def subtract(x1, x2):
    """Elementwise x1 - x2 (broadcasting)."""
    return _on(x1, x2).subtract(x1, x2)


def tan(x):
    """Elementwise tangent."""
    return _on(x).tan(x)


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return _on(x).tanh(x)


def tile(x, repeats):
    """Keras 3's `keras.ops.tile` on the active backend."""
    return _on(x, repeats).tile(x, repeats)


def true_divide(x1, x2):
    """Keras 3's `keras.ops.true_divide` on the active backend."""
    return _on(x1, x2).true_divide(x1, x2)


def trunc(x):
    """Keras 3's `keras.ops.trunc` on the active backend."""
    return _on(x).trunc(x)


def unravel_index(indices, shape):
    """Keras 3's `keras.ops.unravel_index` on the active backend."""
    return _on(indices).unravel_index(indices, shape)


def vdot(x1, x2):
    """Keras 3's `keras.ops.vdot` on the active backend."""
    return _on(x1, x2).vdot(x1, x2)


def vsplit(x, indices_or_sections):
    """Keras 3's `keras.ops.vsplit` on the active backend."""
    return _on(x, indices_or_sections).vsplit(x, indices_or_sections)


def vstack(xs):
    """Keras 3's `keras.ops.vstack` on the active backend."""
    return _on(xs).vstack(xs)

"""Complex numbers: ``complex``, ``real``, ``imag``, ``conj``, ``angle``, and the convention
every rule follows for complex values.

Gradients follow TensorFlow's convention. The cotangent of a complex value ``z = x + iy`` is
``dL/dx + i dL/dy`` for a real loss ``L``; so the VJP of a holomorphic ``f`` is
``ct * conj(f'(z))`` (``x * x`` at ``1+2j`` has gradient ``2-4j``), which is why the rules
of multiply, divide, exp, log, matmul, ... conjugate their inputs (`conj_if_complex`) before
using them. Tangents (forward mode) are plain: the JVP of ``f`` is ``f'(z) * z_dot``. The
VJP is then the adjoint of the JVP for the real inner product ``Re(sum(conj(a) * b))``, which
is what `finegrad.testing.check_gradients` checks for complex inputs.

Complex numbers have no order: the ops that compare (``less``, ``maximum``, ``relu``,
``reduce_max``, ``softmax``, ...) refuse them with a TypeError (`no_order`, `ordered`), as
TensorFlow has no complex kernel for them, rather than answer with NumPy's lexicographic order.

These rules depend only on the core and `array` (their arithmetic goes through the Tensor
operators, attached when the ops package is imported), so `elementwise` can build on them.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import _t, cast, unbroadcast

from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


def _complex_dtype(real_dtype):
    """complex64 for float32 (and smaller), complex128 for float64, as TensorFlow pairs them."""
    return np.complex128 if real_dtype == np.float64 else np.complex64


def _real_dtype(complex_dtype):
    return np.float64 if complex_dtype == np.complex128 else np.float32


def _is_complex(x):
    return x._value.dtype.kind == "c"


def conj_if_complex(x):
    """``conj(x)`` for a complex tensor, ``x`` itself otherwise (no op recorded): what a VJP
    rule applies to the inputs it multiplies the cotangent by."""
    return conj(x) if x._value.dtype.kind == "c" else x


def _as_complex(x, like):
    """A real cotangent ``x`` as a complex tensor of ``like``'s dtype (imaginary part 0)."""
    return x if _is_complex(x) else cast(x, like._value.dtype)


def no_order(name, *values):
    """Refuse complex NumPy values in an op that compares (TensorFlow has no complex kernel
    for it; NumPy's lexicographic order would give a silent answer)."""
    for v in values:
        if np.asarray(v).dtype.kind == "c":
            raise TypeError(f"finegrad.{name}: complex tensors have no order; compare "
                            f"finegrad.math.real or finegrad.abs of them")


def ordered(name, impl):
    """Binary ``impl`` with complex inputs refused (`no_order`); the ufunc stays the kernel."""
    def checked(x, y):
        if x.dtype.kind == "c" or y.dtype.kind == "c":
            no_order(name, x, y)
        return impl(x, y)
    return checked


# ---- conj ------------------------------------------------------------------------------------

conj_p = Primitive("conj", batch_rule=True, kernel=np.conjugate, lower_jax="conj")


def conj(x: Any, name: str | None = None) -> Any:
    """Elementwise complex conjugate; a real tensor is returned unchanged, as in TensorFlow.

    Primitive ``conj``; its VJP and JVP are both the conjugate of the incoming value.

    >>> import finegrad as fg
    >>> fg.math.conj(fg.constant(1 + 2j)).numpy()
    np.complex128(1-2j)
    """
    x = _t(x)
    if not _is_complex(x):
        if x._value.dtype.kind not in "fiub":
            raise TypeError(f"finegrad.math.conj: expected a numeric tensor, got "
                            f"{x._value.dtype}")
        return x
    return bind(conj_p, x)


conj_p.def_impl(np.conjugate)
conj_p.def_jvp(lambda primals, tangents, *, out: conj(tangents[0]))
conj_p.def_vjp(lambda ct, x, *, out, needs, batch: (conj(ct),))


# ---- real and imag ---------------------------------------------------------------------------

def _real_kernel(x, out=None):
    if out is None:
        return x.real.copy()
    np.copyto(out, x.real)
    return out


real_p = Primitive("real", batch_rule=True, kernel=_real_kernel, lower_jax="real")


def real(input: TensorLike,  # TensorFlow's argument name
         name: str | None = None) -> Tensor:
    """The real part of a complex tensor (a real tensor is returned unchanged, as in
    TensorFlow). Primitive ``real``; its VJP is ``complex(ct, 0)``.

    >>> import finegrad as fg
    >>> fg.math.real(fg.constant([1 + 2j, 3 - 1j])).numpy()
    array([1., 3.])
    """
    x = _t(input)
    if not _is_complex(x):
        return x
    return bind(real_p, x)


real_p.def_impl(_real_kernel)
real_p.def_jvp(lambda primals, tangents, *, out: real(tangents[0]))
real_p.def_vjp(lambda ct, x, *, out, needs, batch: (_as_complex(ct, x),))

def _imag_kernel(x, out=None):
    if out is None:
        return x.imag.copy()
    np.copyto(out, x.imag)
    return out


imag_p = Primitive("imag", batch_rule=True, kernel=_imag_kernel, lower_jax="imag")


def imag(input: TensorLike,  # TensorFlow's argument name
         name: str | None = None) -> Tensor:
    """The imaginary part of a complex tensor (zeros for a real tensor, as in TensorFlow).

    Primitive ``imag``; its VJP is ``complex(0, ct)``.

    >>> import finegrad as fg
    >>> fg.math.imag(fg.constant([1 + 2j, 3 - 1j])).numpy()
    array([ 2., -1.])
    """
    x = _t(input)
    if not _is_complex(x):
        return x * 0
    return bind(imag_p, x)


imag_p.def_impl(_imag_kernel)
imag_p.def_jvp(lambda primals, tangents, *, out: imag(tangents[0]))


@imag_p.def_vjp
def _imag_vjp(ct, x, *, out, needs, batch):
    """VJP of imag: i * ct (TensorFlow's ``complex(0, ct)``)."""
    return (_as_complex(ct, x) * x._value.dtype.type(1j),)


# ---- complex ---------------------------------------------------------------------------------

complex_p = Primitive("complex", batch_rule=True, elementwise=True, fresh=True)


def complex(real: Any, imag: Any,  # TensorFlow's public name
            name: str | None = None) -> Tensor:
    """The complex tensor ``real + i * imag`` (float32 parts give complex64, float64 parts
    complex128, as in TensorFlow); the parts broadcast. Primitive ``complex``.

    >>> import finegrad as fg
    >>> fg.complex(fg.constant(1.), fg.constant(2.)).numpy()
    np.complex64(1+2j)

    Raises:
        TypeError: when a part is not floating, or the parts' dtypes differ.
    """
    re, im = core.unify_args(complex_p, [real, imag])
    for part, what in ((re, "real"), (im, "imag")):
        if part._value.dtype.kind != "f":
            raise TypeError(f"finegrad.complex: argument {what!r} must be float32 or float64, "
                            f"got {part._value.dtype}")
    return bind(complex_p, re, im)


@complex_p.def_impl
def _complex_impl(re, im):
    return np.asarray(re + 1j * im, _complex_dtype(re.dtype))[()]


@complex_p.def_lowering
def _complex_lower(re, im):
    import jax.numpy as jnp
    from jax import lax
    part = _real_dtype(_complex_dtype(re.dtype))
    re, im = jnp.broadcast_arrays(re.astype(part), im.astype(part))
    return lax.complex(re, im)


@complex_p.def_jvp
def _complex_jvp(primals, tangents, *, out):
    re_dot, im_dot = tangents
    parts = []
    if re_dot is not None:
        parts.append(cast(re_dot, out._value.dtype))
    if im_dot is not None:
        parts.append(cast(im_dot, out._value.dtype) * out._value.dtype.type(1j))
    t = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    return t if t._value.shape == out._value.shape else t + out * 0


@complex_p.def_vjp
def _complex_vjp(ct, re, im, *, out, needs, batch):
    """VJP of complex: (real(ct), imag(ct)), unbroadcast."""
    return (unbroadcast(real(ct), re, batch) if needs[0] else None,
            unbroadcast(imag(ct), im, batch) if needs[1] else None)


# ---- angle -----------------------------------------------------------------------------------

angle_p = Primitive("angle", batch_rule=True, elementwise=True, fresh=True,
                   lower_jax="angle")


def angle(input: TensorLike,  # TensorFlow's argument name
          name: str | None = None) -> Tensor:
    """The argument (phase) of each element, ``atan2(imag, real)``; for a real tensor 0 or pi
    (by sign, as TensorFlow's), with no gradient. Primitive ``angle``.

    Gradient: ``ct * i / conj(z)`` (that is ``(-y + i x) / |z|^2`` per unit ``ct``); at 0
    it is inf/nan, as TensorFlow's.

    >>> import finegrad as fg
    >>> round(float(fg.math.angle(fg.constant(1j))), 6)
    1.570796
    """
    return bind(angle_p, input)


angle_p.def_impl(np.angle)


@angle_p.def_jvp
def _angle_jvp(primals, tangents, *, out):
    (z,), (z_dot,) = primals, tangents
    if not _is_complex(z):
        return z_dot * 0
    return imag(z_dot / z)


@angle_p.def_vjp
def _angle_vjp(ct, z, *, out, needs, batch):
    """VJP of angle: ct * i / conj(z) for complex z, 0 for real z."""
    if not _is_complex(z):
        return (ct * 0,)
    return (_as_complex(ct, z) * z._value.dtype.type(1j) / conj(z),)

"""``tf.linalg.eig`` and ``eigvals`` of general (non-symmetric) real or complex matrices: a
primitive ``eig`` with complex outputs and TensorFlow's gradient.

For ``A V = V diag(e)`` with unit-norm eigenvector columns, ``M = V^-1 dA V`` gives
``de = diag(M)`` and ``dV = W - V diag(Re(diag(V^H W)))`` with ``W = V (F * M)`` and
``F[i, j] = 1 / (e[j] - e[i])`` (0 on the diagonal): the column norms stay 1. The VJP is
TensorFlow's, ``V^-H (diag(ct_e) + conj(F) * (V^H ct_v - V^H V diag(Re(diag(V^H ct_v)))))
V^H``, made real for a real ``A``. Both are written with finegrad ops (differentiable again).
"""

from __future__ import annotations

import numpy as np

from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import cast, expand_dims
from finegrad._src.ops.batching import leading_vmap
from finegrad._src.ops.math.complex_numbers import real, conj
from finegrad._src.ops.linalg.cholesky_eigh import matrix_shapes, off_diag
from finegrad._src.ops.linalg.products import matmul
from finegrad._src.ops.linalg.diag_inv_det import diag, diag_part
from finegrad._src.ops.linalg.checks import matrix_arg
from finegrad._src.ops.linalg.solvers import solve, _adj

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike

eig_p = Primitive("eig", multiple_results=True, batch_rule=True, fresh=True,
                  shape_rule=matrix_shapes(lambda m, n: (n,), lambda m, n: (m, n)))


def _complex_dtype(dtype):
    return np.complex64 if dtype in (np.float32, np.complex64) else np.complex128


def eig(tensor: TensorLike, name: str | None = None) -> tuple[Tensor, ...]:
    """Eigenvalues and unit-norm eigenvectors ``(e, v)`` of each square matrix, complex
    (complex64 for float32/complex64 input, complex128 otherwise): ``tensor @ v == v * e``.

    The order of the eigenvalues and the phase of each eigenvector are NumPy's (LAPACK's),
    which may differ from TensorFlow's; losses that depend on neither have TensorFlow's
    values and gradients. Distinct eigenvalues are needed for a finite gradient.

    >>> import finegrad as fg
    >>> e, v = fg.linalg.eig(fg.constant([[2., 0.], [0., 3.]]))
    >>> e.numpy()
    array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    return bind(eig_p, matrix_arg(tensor, "linalg.eig", "tensor", square=True))


def eigvals(tensor: TensorLike, name: str | None = None) -> Tensor:
    """The (complex) eigenvalues of each square matrix, in NumPy's order (see `eig`).

    >>> import finegrad as fg
    >>> fg.linalg.eigvals(fg.constant([[0., -1.], [1., 0.]])).numpy()
    array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return bind(eig_p, matrix_arg(tensor, "linalg.eigvals", "tensor", square=True))[0]


eig_p.def_vmap(leading_vmap(eig_p))   # leading axes are batch axes


@eig_p.def_impl
def _eig_impl(a):
    e, v = np.linalg.eig(a)
    dt = _complex_dtype(a.dtype)
    return e.astype(dt), v.astype(dt)


def _gaps(e):
    """``F[i, j] = 1 / (e[j] - e[i])``, 0 on the diagonal."""
    diff = expand_dims(e, -2) - expand_dims(e, -1)
    return off_diag(1 / (diff + diag(e * 0 + 1)))


def _as_c(x, like):
    return x if x._value.dtype == like._value.dtype else cast(x, like.dtype)


@eig_p.def_jvp
def _eig_jvp(primals, tangents, *, out):
    e, v = out
    m = solve(v, matmul(_as_c(tangents[0], v), v))
    w = matmul(v, _gaps(e) * m)
    norm = _as_c(real(diag_part(matmul(_adj(v), w))), v)
    return diag_part(m), w - v * expand_dims(norm, -2)


@eig_p.def_vjp
def _eig_vjp(ct, a, *, out, needs, batch):
    ge, gv = ct
    e, v = out
    vh = _adj(v)
    vgv = matmul(vh, gv)
    fix = matmul(vh, v * expand_dims(_as_c(real(diag_part(vgv)), v), -2))
    mid = diag(ge) + conj(_gaps(e)) * (vgv - fix)
    g = solve(vh, matmul(mid, vh))
    return (g if a._value.dtype.kind == "c" else real(g),)

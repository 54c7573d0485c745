"""Keras's linalg and math groups on ``torch.linalg``, ``torch.special`` and ``torch.fft``."""
import torch

from finegrad._src.backends.torch import custom as _custom


def _f(x):
    x = _custom.convert_to_tensor(x)
    return x if x.is_floating_point() or x.is_complex() else x.to(torch.float32)


def cholesky(x, upper=False):
    return torch.linalg.cholesky(_f(x), upper=upper)


def det(x):
    return torch.linalg.det(_f(x))


def eig(x):
    return tuple(torch.linalg.eig(_f(x)))


def eigh(x):
    return tuple(torch.linalg.eigh(_f(x)))


def inv(x):
    return torch.linalg.inv(_f(x))


def lu_factor(x):
    lu, piv = torch.linalg.lu_factor(_f(x))
    return lu, (piv - 1).to(torch.int32)


def qr(x, mode="reduced"):
    return tuple(torch.linalg.qr(_f(x), mode=mode))


def solve(a, b):
    return torch.linalg.solve(_f(a), _f(b))


def solve_triangular(a, b, lower=False):
    b = _f(b)
    vec = b.ndim == 1
    out = torch.linalg.solve_triangular(_f(a), b.unsqueeze(-1) if vec else b, upper=not lower)
    return out.squeeze(-1) if vec else out


def svd(x, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return torch.linalg.svdvals(_f(x))
    return tuple(torch.linalg.svd(_f(x), full_matrices=full_matrices))


def jvp(fun, primals, tangents, has_aux=False):
    return torch.func.jvp(fun, primals, tangents, has_aux=has_aux)


def erf(x):
    return torch.special.erf(_f(x))


def erfinv(x):
    return torch.special.erfinv(_f(x))


def logsumexp(x, axis=None, keepdims=False):
    x = _f(x)
    return torch.logsumexp(x, dim=tuple(range(x.ndim)) if axis is None else axis,
                           keepdim=keepdims)


def top_k(x, k, sorted=True):  # (Keras's name)
    values, indices = torch.topk(_custom.convert_to_tensor(x), k, sorted=sorted)
    return values, indices.to(torch.int32)


def fft(x):
    real, imag = x
    out = torch.fft.fft(torch.complex(_f(real), _f(imag)))
    return out.real, out.imag


def rfft(x, fft_length=None):
    out = torch.fft.rfft(_f(x), n=fft_length)
    return out.real, out.imag


def irfft(x, fft_length=None):
    real, imag = x
    return torch.fft.irfft(torch.complex(_f(real), _f(imag)), n=fft_length)


def view_as_complex(x):
    return torch.view_as_complex(_f(x).contiguous())


def view_as_real(x):
    return torch.view_as_real(_custom.convert_to_tensor(x))

"""Rules written for PyTorch (any function of torch tensors, ``autograd.Function.apply``
included), run through torch's own autodiff: ``torch.autograd.grad`` (with
``create_graph`` for order 2) and forward-mode dual numbers (``torch.autograd.forward_ad``,
forward over reverse for order 2). torch is imported when a rule is checked."""
import numpy as np

from finegrad._src.testing.frameworks.base import UPSTREAM, FrameworkEvaluator


def _torch():
    import torch
    return torch


def _tdtype(dtype):
    torch = _torch()
    return torch.float64 if np.dtype(dtype) == np.float64 else torch.float32


def _output(fn, xs, shape):
    """``fn(*xs)`` as one tensor of ``shape`` (outputs summed on a single point)."""
    y = fn(*xs)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    if len(ys) == 1 and tuple(ys[0].shape) == tuple(shape):
        return ys[0]
    if shape:
        raise ValueError(f"the output has shape {[tuple(o.shape) for o in ys]}, not {shape}")
    return sum(o.sum() for o in ys)


def _np(t, like):
    if t is None:
        return np.zeros(np.shape(like))
    return t.detach().to(_torch().float64).numpy().copy()


class TorchEvaluator(FrameworkEvaluator):
    """A torch function on a set of points (see `FrameworkEvaluator`)."""

    name = "torch"
    without_graph = False

    def _values(self, cols, dtype):
        torch = _torch()
        xs = [torch.tensor(np.asarray(c), dtype=_tdtype(dtype)) for c in cols]
        with torch.no_grad():
            return _np(_output(self.fn, xs, np.shape(cols[0])), cols[0])

    def _derivatives(self, cols, dtype, modes, order):
        torch = _torch()
        shape = np.shape(cols[0])
        xs = [torch.tensor(np.asarray(c), dtype=_tdtype(dtype), requires_grad=True)
              for c in cols]
        y = _output(self.fn, xs, shape)
        out = {}
        if "rev" in modes:
            # at order 2 the upstream requires grad, as inside a larger graph: torch then
            # raises for a backward marked @once_differentiable ("not available")
            up = torch.full_like(y, UPSTREAM).requires_grad_(order >= 2)
            g = torch.autograd.grad(y, xs, up, create_graph=order >= 2, allow_unused=True)
            out["rev", 1] = [_np(gi, c) / UPSTREAM for gi, c in zip(g, cols, strict=True)]
            if order >= 2 and _once_differentiable(self.fn):
                for mode in modes:
                    self.not_available(mode, 2, NotImplementedError(
                        "the autograd.Function's backward is marked @once_differentiable"))
            elif order >= 2:
                self.attempt("rev", 2, out, lambda: [self._second(gi, x, c) for gi, x, c
                                                     in zip(g, xs, cols, strict=True)])
        if "fwd" in modes and _function_without_jvp(self.fn):
            for m in range(1, order + 1):
                self.not_available("fwd", m, NotImplementedError(
                    "the autograd.Function has no jvp staticmethod (forward mode)"))
        elif "fwd" in modes:
            self.attempt("fwd", 1, out, lambda: [self._forward(cols, dtype, k, 1)
                                                 for k in range(len(cols))])
            if order >= 2 and not _once_differentiable(self.fn):
                self.attempt("fwd", 2, out, lambda: [self._forward(cols, dtype, k, 2)
                                                     for k in range(len(cols))])
        return _np(y, cols[0]), out

    # order 2 is 0 where torch's gradient has no graph: a function linear in x, or a backward
    # that is not differentiable (detach, NumPy, no_grad inside it). torch cannot tell the two
    # apart: with a constant upstream it raises on double backward, inside a larger graph it
    # gives these zeros silently, so a failing order 2 stays a MISMATCH, with this note. A
    # backward marked @once_differentiable is told apart (torch raises): "not available".
    NO_GRAPH = ("torch's gradient does not depend on x in its graph where order 2 fails: the "
                "backward is not differentiable (detach, NumPy or no_grad inside it; mark it "
                "@once_differentiable to say so), and a double backward through it gives 0")

    def _second(self, g, x, col):
        torch = _torch()
        if g is None or not g.requires_grad:    # linear in x, or a backward with no graph
            self.without_graph = self.without_graph or g is not None
            return np.zeros(np.shape(col))
        (h,) = torch.autograd.grad(g, x, torch.ones_like(g), allow_unused=True)
        self.without_graph = self.without_graph or h is None
        return _np(h, col) / UPSTREAM

    def _forward(self, cols, dtype, k, order):
        """Forward mode along input ``k`` (order 1), or forward over reverse (order 2)."""
        torch = _torch()
        import torch.autograd.forward_ad as fwad
        shape = np.shape(cols[0])
        with fwad.dual_level():
            prim = [torch.tensor(np.asarray(c), dtype=_tdtype(dtype)) for c in cols]
            if order == 2:
                prim[k].requires_grad_(True)
            xs = [fwad.make_dual(p, torch.ones_like(p) if i == k else torch.zeros_like(p))
                  for i, p in enumerate(prim)]
            y = _output(self.fn, xs, shape)
            if order == 2:
                (y,) = torch.autograd.grad(y, xs[k], torch.full_like(y, UPSTREAM),
                                           create_graph=True)
            tangent = fwad.unpack_dual(y).tangent
        if order == 2 and tangent is None:
            self.without_graph = True
        return _np(tangent, cols[0]) / (UPSTREAM if order == 2 else 1.0)


def _function_without_jvp(fn):
    """Whether ``fn`` is ``apply`` of an ``autograd.Function`` that defines no ``jvp``
    (asking torch would say so too, after a one-time import of about 2 s)."""
    torch = _torch()
    owner = getattr(fn, "__self__", None)
    return (isinstance(owner, type) and issubclass(owner, torch.autograd.Function) and
            owner.jvp is torch.autograd.Function.jvp)


def _once_differentiable(fn):
    """Whether ``fn`` is ``apply`` of an ``autograd.Function`` whose backward is marked
    ``@once_differentiable`` (its wrapper's code is the same for every function it marks)."""
    from torch.autograd.function import once_differentiable
    owner = getattr(fn, "__self__", None)
    backward = getattr(owner, "backward", None) if isinstance(owner, type) else None
    code = once_differentiable(lambda ctx: None).__code__
    return getattr(backward, "__code__", None) is code

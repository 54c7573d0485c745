"""The ``torch`` backend of `finegrad.ops`: Keras 3's names on PyTorch.

``custom_gradient`` is a ``torch.autograd.Function`` over the flat tensor leaves of the inputs,
written with ``setup_context`` (so ``torch.func.grad``, ``vjp`` and ``vmap`` accept it), with
several outputs and nested inputs. Its backward pass calls the user's checked ``grad``. When
the backward pass is itself recorded (``create_graph=True``, ``torch.func.grad`` of a
gradient), the function is run again on the saved inputs with autograd on, so that the values
``grad`` closed over carry their history and second derivatives go through the user's rule.
Forward mode (``torch.func.jvp``, ``torch.autograd.forward_ad``) transposes ``grad``, which
is linear in the upstream gradient.
"""
import functools

import numpy as np
import torch

from finegrad._src import backends as _backends
from finegrad._src.ad import linearity
from finegrad._src.ad.functional import check_scalar
from finegrad._src.backends import rule as _rule

name = "torch"
framework = "torch"


def is_tensor(x):
    return isinstance(x, torch.Tensor)


def is_float(x):
    return x.is_floating_point()


def static_shape(x):
    return tuple(x.shape)


def dtype_name(x):
    return str(x.dtype).rpartition(".")[2]


def convert_to_tensor(x, dtype=None):
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    if isinstance(x, float) and dtype is None:
        dtype = torch.float32
    if isinstance(x, np.ndarray) and min(x.strides, default=0) < 0:
        x = x.copy()     # torch refuses negative strides (a reversed view)
    t = torch.as_tensor(x, dtype=dtype)
    if dtype is None and t.dtype == torch.int64 and not isinstance(x, (torch.Tensor,
                                                                       np.ndarray, np.generic)):
        t = t.to(torch.int32)   # Python ints are int32, as in Keras
    return t


def convert_to_numpy(x):
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


class _Call:
    """One call of a decorated function: its inputs, and what the forward pass produced."""

    def __init__(self, f, inputs, jvp=None, linear=None):
        self.f, self.inputs, self.jvp = f, inputs, jvp
        self.linear = linear   # [bool]: grad found linear in the upstream (once per function)
        self.y = self.grad = None

    def run(self, leaves):
        args, kwargs = self.inputs.rebuild(leaves)
        return _rule.run(self.f, args, kwargs, _this)

    def grads(self, grad, leaves, y, cts):
        return _rule.call_grad(grad, self.inputs, leaves, y, cts, self.f.__qualname__, _this)


class _CustomFunction(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(call, *leaves):
        call.y, call.grad = call.run(leaves)
        return tuple(torch.utils._pytree.tree_leaves(call.y))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.call = inputs[0]
        ctx.y, ctx.grad = ctx.call.y, ctx.call.grad
        ctx.save_for_backward(*inputs[1:])
        ctx.save_for_forward(*inputs[1:])

    @staticmethod
    def backward(ctx, *cts):
        call, y, grad, leaves = ctx.call, ctx.y, ctx.grad, ctx.saved_tensors
        if torch.is_grad_enabled():   # the backward pass is recorded: rerun f with history
            y, grad = call.run(leaves)
        return (None, *call.grads(grad, leaves, y, cts))

    @staticmethod
    def jvp(ctx, call_tangent, *tangents):
        """J t as the transpose of grad (linear in the upstream): a VJP of cts -> grad(cts)."""
        call, leaves = ctx.call, ctx.saved_tensors
        tangents = [torch.zeros_like(x) if t is None else t
                    for t, x in zip(tangents, leaves, strict=True)]
        if call.jvp is not None:   # the user's forward rule
            with _backends.scope(name):
                out = call.jvp(list(leaves), tangents)
            return tuple(torch.utils._pytree.tree_leaves(out))
        y, grad = call.run(leaves)
        flat_y = torch.utils._pytree.tree_leaves(y)

        def grads_of(*cts):
            gs = call.grads(grad, leaves, y, cts)
            return tuple(torch.zeros_like(t) if g is None else g
                         for g, t in zip(gs, leaves, strict=True))
        if call.linear is not None and not call.linear[0]:
            _check_linear(call, grads_of, flat_y)
        _, transpose = torch.func.vjp(grads_of, *[torch.zeros_like(o) for o in flat_y])
        return transpose(tuple(tangents))


def _check_linear(call, grads_of, flat_y):
    """The first forward-mode use: ``grad`` must be linear in the upstream (ad/linearity.py)."""
    def run(scale):
        us = [torch.as_tensor(linearity.upstream_probe(tuple(o.shape), np.float64, scale),
                              dtype=o.dtype) for o in flat_y]
        with torch.no_grad():
            return [None if g is None else _plain_numpy(g) for g in grads_of(*us)]
    why = linearity.scaling_problem(run(1.), run(2.))
    if why is not None:
        raise linearity.not_linear_error(call.f.__qualname__, why,
                                         "finegrad.ops.custom_gradient (torch backend)")
    call.linear[0] = True


def _plain_numpy(t):
    """A tensor's values, also from under torch.func's transforms (which wrap tensors)."""
    try:
        return t.detach().cpu().numpy()
    except (RuntimeError, TypeError):
        return np.asarray(torch._C._functorch.get_unwrapped(t).detach().cpu().tolist())


try:   # what Function.apply runs, for _apply (private: the standard apply if they move)
    from torch._functorch.utils import unwrap_dead_wrappers as _unwrap_dead_wrappers
    _transforms_active = torch._C._are_functorch_transforms_active
except (ImportError, AttributeError):
    _transforms_active = None  # type: ignore[assignment, unused-ignore]  # (old/moved torch)


def _apply(call, leaves):
    """``_CustomFunction.apply(call, *leaves)``. ``Function.apply`` of a Function with
    ``setup_context`` binds its arguments to ``forward``'s signature with
    ``inspect.signature`` on every call (a third of a scalar call's dispatch); ``forward(call,
    *leaves)`` has no defaults, so that binding changes nothing and is skipped here. Under
    ``torch.func`` transforms the standard path runs."""
    if _transforms_active is None or _transforms_active():
        return _CustomFunction.apply(call, *leaves)
    return super(torch.autograd.Function, _CustomFunction).apply(
        *_unwrap_dead_wrappers((call, *leaves)))


def custom_gradient(f, forward="none", jvp=None):
    """``f`` as a ``torch.autograd.Function`` whose backward is the user's checked ``grad``."""
    names_by_count = {}
    linear = [False]

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        call = _Call(f, _rule.Inputs(f, args, kwargs, _this, names_by_count), jvp, linear)
        outs = _apply(call, call.inputs.tensors)
        spec = torch.utils._pytree.tree_structure(call.y)
        return torch.utils._pytree.tree_unflatten(list(outs), spec)
    return decorated


def value_and_grad(f, argnums=0):
    """``f`` -> ``(f(*args), gradient)`` with ``torch.autograd.grad`` (the graph kept, so
    gradients can be differentiated again)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def value_and_grad_f(*args, **kwargs):
        args = list(args)
        for i in nums:
            t = convert_to_tensor(args[i])
            args[i] = t if t.requires_grad else t.detach().requires_grad_(True)
        y = f(*args, **kwargs)
        check_scalar(y, "finegrad.ops.value_and_grad (torch backend)")
        if not (isinstance(y, torch.Tensor) and y.requires_grad):   # y ignores the arguments
            grads = [torch.zeros_like(args[i]) for i in nums]
        else:
            grads = torch.autograd.grad(y, [args[i] for i in nums], create_graph=True,
                                        allow_unused=True, materialize_grads=True)
        return y, grads[0] if isinstance(argnums, int) else tuple(grads)
    return value_and_grad_f


import sys as _sys  # noqa: E402 (the module itself, for the shared rule's backend argument)
_this = _sys.modules[__name__]

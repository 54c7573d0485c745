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
    return torch.as_tensor(x, dtype=dtype)


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
        grads = torch.autograd.grad(y, [args[i] for i in nums], create_graph=True,
                                    allow_unused=True, materialize_grads=True)
        return y, grads[0] if isinstance(argnums, int) else tuple(grads)
    return value_and_grad_f


def _binary(fn):
    def op(x1, x2):
        if not isinstance(x1, torch.Tensor):
            x1 = _like(x1, x2)
        elif not isinstance(x2, torch.Tensor):
            x2 = _like(x2, x1)
        return fn(x1, x2)
    return op


def _like(x, other):
    """A NumPy array, list or number beside a torch tensor, converted as the other backends
    convert it: a float array takes the tensor's float dtype (TensorFlow's rule)."""
    t = torch.as_tensor(x, device=getattr(other, "device", None))
    if isinstance(other, torch.Tensor) and t.is_floating_point() and \
            other.is_floating_point() and t.dtype != other.dtype:
        t = t.to(other.dtype)
    return t


def _reduction(fn):
    def reduce(x, axis=None, keepdims=False):
        if axis is None:
            axis = tuple(range(x.ndim))
        return fn(x, dim=axis, keepdim=keepdims)
    return reduce


def _prod(x, dim, keepdim):
    for d in sorted((dim,) if isinstance(dim, int) else dim, reverse=True):
        x = torch.prod(x, dim=d, keepdim=keepdim)
    return x


abs = torch.abs  # Keras's name
exp, log, log1p, expm1 = torch.exp, torch.log, torch.log1p, torch.expm1
sqrt, square, sin, cos, tan, tanh = torch.sqrt, torch.square, torch.sin, torch.cos, \
    torch.tan, torch.tanh
sign, negative, floor = torch.sign, torch.negative, torch.floor
sigmoid, softplus, relu = torch.sigmoid, torch.nn.functional.softplus, torch.relu
add, subtract, multiply = _binary(torch.add), _binary(torch.subtract), _binary(torch.multiply)
divide, power = _binary(torch.divide), _binary(torch.pow)
maximum, minimum, matmul = _binary(torch.maximum), _binary(torch.minimum), torch.matmul
equal, not_equal, less = _binary(torch.eq), _binary(torch.ne), _binary(torch.lt)
less_equal, greater, greater_equal = _binary(torch.le), _binary(torch.gt), _binary(torch.ge)
sum, mean = _reduction(torch.sum), _reduction(torch.mean)
max, min = _reduction(torch.amax), _reduction(torch.amin)
prod, logsumexp = _reduction(_prod), _reduction(torch.logsumexp)


def stop_gradient(x):
    return x.detach()


def cast(x, dtype):
    return convert_to_tensor(x).to(getattr(torch, dtype) if isinstance(dtype, str) else dtype)


def reshape(x, newshape):
    return torch.reshape(x, tuple(newshape) if not isinstance(newshape, int) else (newshape,))


def transpose(x, axes):
    return x.permute(*(reversed(range(x.ndim)) if axes is None else axes))


def expand_dims(x, axis):
    return torch.unsqueeze(x, axis)


def squeeze(x, axis):
    return torch.squeeze(x) if axis is None else torch.squeeze(x, axis)


def concatenate(xs, axis):
    return torch.cat(xs, dim=axis)


def stack(xs, axis):
    return torch.stack(xs, dim=axis)


def where(condition, x1, x2):
    return torch.where(convert_to_tensor(condition), x1, x2)


def clip(x, x_min, x_max):
    return torch.clamp(x, x_min, x_max)


def einsum(subscripts, *operands):
    return torch.einsum(subscripts, *operands)


def softmax(x, axis):
    return torch.softmax(x, dim=axis)


def log_softmax(x, axis):
    return torch.log_softmax(x, dim=axis)


def zeros(shape, dtype):
    return torch.zeros(shape, dtype=getattr(torch, dtype) if isinstance(dtype, str) else dtype)


def ones(shape, dtype):
    return torch.ones(shape, dtype=getattr(torch, dtype) if isinstance(dtype, str) else dtype)


import sys as _sys  # noqa: E402 (the module itself, for the shared rule's backend argument)
_this = _sys.modules[__name__]

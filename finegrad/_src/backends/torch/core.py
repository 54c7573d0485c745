"""Keras's core group on PyTorch: Python control flow (eager, as Keras on PyTorch),
``torch.func.vmap``, and scatter by index_put."""
import torch

from finegrad._src.backends.torch import custom as _custom


def cast(x, dtype):
    x = _custom.convert_to_tensor(x)
    return x.to(getattr(torch, dtype) if isinstance(dtype, str) else dtype)


def cond(pred, true_fn, false_fn):
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)
    i = 0
    while bool(cond(*state)) and (maximum_iterations is None or i < maximum_iterations):
        out = body(*state)
        state = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        i += 1
    return state if is_tuple else state[0]


def vectorized_map(function, elements):
    return torch.func.vmap(function)(elements)


def scatter_update(inputs, indices, updates, reduction=None):
    x = _custom.convert_to_tensor(inputs).clone()
    idx = tuple(_custom.convert_to_tensor(indices).to(torch.int64).unbind(-1))
    u = _custom.convert_to_tensor(updates).to(x.dtype)
    if reduction is None:
        return x.index_put(idx, u)
    if reduction == "add":
        return x.index_put(idx, u, accumulate=True)
    raise NotImplementedError(f"finegrad.ops.scatter_update on the 'torch' backend: "
                              f"reduction={reduction!r}; use the jax backend")


def slice_update(inputs, start_indices, updates):
    x = _custom.convert_to_tensor(inputs).clone()
    u = _custom.convert_to_tensor(updates)
    key = tuple(slice(int(s), int(s) + n) for s, n in zip(start_indices, u.shape, strict=True))
    x[key] = u.to(x.dtype)
    return x


def unstack(x, num=None, axis=0):
    return list(torch.unbind(_custom.convert_to_tensor(x), axis))

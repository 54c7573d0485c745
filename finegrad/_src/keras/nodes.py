"""Nodes of the functional graph, and the structure helpers calls share.

A layer called on symbolic tensors (`Input`'s) records a node: the layer, its call's
arguments and its outputs. Masks (Keras's ``_keras_mask``) ride beside tensors here, keyed
by the tensor (finegrad tensors have fixed slots).
"""
import weakref

from finegrad._src.tensor import Tensor

_masks = {}   # id(tensor) -> (weak reference to the tensor, mask)


def map_structure(fn, value, tuple_shapes=False):
    """``fn`` applied to each leaf of nested lists, tuples and dicts."""
    if isinstance(value, list):
        return [map_structure(fn, v, tuple_shapes) for v in value]
    if isinstance(value, tuple) and not (tuple_shapes and _is_shape(value)):
        return tuple(map_structure(fn, v, tuple_shapes) for v in value)
    if isinstance(value, dict):
        return {k: map_structure(fn, v, tuple_shapes) for k, v in value.items()}
    return fn(value)


def _is_shape(value):
    return all(v is None or isinstance(v, int) for v in value)


def set_mask(outputs, mask):
    for t in (outputs if isinstance(outputs, (list, tuple)) else [outputs]):
        if isinstance(t, Tensor):
            key = id(t)
            _masks[key] = (weakref.ref(t, lambda _, k=key: _masks.pop(k, None)), mask)
            if isinstance(mask, (list, tuple)):
                break


def mask_of(x):
    """The mask a masking layer attached to ``x`` (None when none)."""
    if isinstance(x, (list, tuple)):
        masks = [mask_of(v) for v in x]
        return None if all(m is None for m in masks) else masks
    entry = _masks.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def is_symbolic_call(args, kwargs):
    return False


def symbolic_call(layer, args, kwargs, call):
    raise NotImplementedError("functional API: not yet")


def output_spec(layer, *args, **kwargs):
    raise NotImplementedError(f"{type(layer).__name__}.compute_output_shape: not yet")

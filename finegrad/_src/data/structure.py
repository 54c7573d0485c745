"""Element structures of ``finegrad.data``: tuples, namedtuples and dicts nest (as in
``tf.data``); every other value (a list included, as ``tf.data`` converts it) is one
component, a tensor. Elements travel as nested structures of finegrad Tensors; their
``element_spec`` is the same structure of `TensorSpec`.
"""
from typing import Any
import numpy as np

from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_structure(x: Any) -> Any:
    """Whether ``x`` nests (a tuple or a dict) rather than being one component."""
    return isinstance(x, (tuple, dict))


def flatten(x: Any) -> Any:
    """The components of ``x`` in order (dict entries by sorted key, as ``tf.nest``)."""
    if isinstance(x, dict):
        return [c for k in sorted(x) for c in flatten(x[k])]
    if isinstance(x, tuple):
        return [c for v in x for c in flatten(v)]
    return [x]


def pack(structure: Any, flat: Any) -> Any:
    """``structure`` rebuilt with the components of ``flat`` in order."""
    it = iter(flat)
    out = _pack(structure, it)
    return out


def _pack(x, it):
    if isinstance(x, dict):
        vals = {k: _pack(x[k], it) for k in sorted(x)}
        return type(x)((k, vals[k]) for k in x)
    if _is_namedtuple(x):
        return type(x)(*[_pack(v, it) for v in x])
    if isinstance(x, tuple):
        return tuple(_pack(v, it) for v in x)
    return next(it)


def map_structure(fn: Any, *structures) -> Any:
    """``fn`` applied component by component to structures of the same shape."""
    flats = [flatten(s) for s in structures]
    n = len(flats[0])
    for f in flats[1:]:
        if len(f) != n:
            raise ValueError(f"finegrad.data: structures with {n} and {len(f)} components do "
                             f"not match")
    return pack(structures[0], [fn(*c) for c in zip(*flats, strict=True)])


def to_tensors(x: Any, fn: Any) -> Any:
    """The element ``x`` with every component converted to a Tensor.

    Raises:
        TypeError: for a component that is not convertible (naming ``fn``).
    """
    def convert(c):
        if isinstance(c, Tensor):
            return c
        if c is None:
            raise TypeError(f"{fn}: a component of the element is None; expected tensors")
        if hasattr(c, "read_value"):      # a Variable: its current value
            return c.read_value()
        return convert_to_tensor(c)
    return map_structure(convert, x)


def spec_of(x: Any) -> Any:
    """The `TensorSpec` structure of an element."""
    return map_structure(lambda t: TensorSpec(tuple(t.shape), t.dtype), x)


def relax(spec: Any, other: Any) -> Any:
    """The most specific spec compatible with both ``spec`` and ``other`` (dims that differ
    become None; ranks that differ give an unknown shape)."""
    def one(a, b):
        if a.dtype != b.dtype:
            raise TypeError(f"finegrad.data: components of dtypes {a.dtype.name} and "
                            f"{b.dtype.name} cannot be combined")
        if not isinstance(a.shape, tuple) or not isinstance(b.shape, tuple) or \
                len(a.shape) != len(b.shape):
            return TensorSpec(None, a.dtype)
        return TensorSpec(tuple(x if x == y else None for x, y in
                                zip(a.shape, b.shape, strict=True)), a.dtype)
    return map_structure(one, spec, other)


def numpy_of(x: Any) -> Any:
    """The element with each component as a NumPy value (``as_numpy_iterator``)."""
    return map_structure(lambda t: np.asarray(t._value)[()], x)   # scalars as NumPy scalars


def call_with(fn: Any, element: Any) -> Any:
    """``fn`` on an element: a (non-named) tuple is spread over the arguments."""
    if isinstance(element, tuple) and not _is_namedtuple(element):
        return fn(*element)
    return fn(element)

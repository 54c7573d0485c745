"""The lowest ops module: what every other ops module (indexing included) builds on.

Static arguments (`_static`, axes, shapes), symbolic zeros (`instantiate_zeros`,
`zeros_cotangent`), reshape targets that keep a dynamic axis open, and the nondifferentiable
primitives ``fill_like`` and ``count`` that take a shape from a tensor when the graph runs.
It imports only the core modules; every other ops module may import it.
"""

import numpy as np

from finegrad._src import core
from finegrad._src import tensor as tensor_module
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.shapes import as_int, as_ints
from finegrad._src.tensor import Tensor


def as_tensor(x):
    """``x`` as a Tensor by the core conversion: a list holding tensors is not packed with a
    recorded stack (that is `array.convert_to_tensor`, a module above this one)."""
    return x if type(x) is Tensor else tensor_module.convert_to_tensor(x)


def _static(t, what):
    """The value of a tensor used as a static argument (shape, axis, index); inside
    finegrad.function it must not be traced, since it fixes the graph's structure."""
    tensor_module._concrete(t, what)
    return t._value


def no_strings(name, x):
    """TypeError naming ``finegrad.<name>`` for a string tensor's NumPy value ``x`` (NumPy
    would add bytes, or order them; TensorFlow has no such kernel)."""
    if x.dtype.kind == "O":
        raise TypeError(f"finegrad.{name}: not defined for string tensors")


def normalize_axes(axis, ndim, fn):
    """``axis`` (None, int, sequence, or integer tensor) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = _static(axis, "an axis").tolist()
    axes = as_ints(axis, fn, "axis")
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1 if ndim == 0 and a in (0, -1) else ndim):
            raise ValueError(f"{fn}: axis {a} is out of range for a tensor of rank {ndim}")
        out.append(int(a) % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axis {axis!r} repeats an axis")
    return tuple(sorted(out))


def _normalize_axis(axis, ndim, fn):
    """A single axis as a non-negative int (``ndim`` counts the new axis for stack)."""
    if isinstance(axis, Tensor):
        axis = int(_static(axis, "an axis"))
    axis = as_int(axis, fn, "axis")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis!r} is out of range for rank {ndim}")
    return int(axis) % ndim


def zeros_cotangent(x, batch=()):
    """A zero cotangent for input ``x``, with leading ``batch`` axes (a VJP rule's ``batch``
    argument) when a Jacobian is computed."""
    if core.dynamic_axes(x):
        return bind(fill_like_p, x, value=0, dtype=x._value.dtype, lead=tuple(batch))
    return Tensor(np.zeros(tuple(batch) + x._value.shape, x._value.dtype))


def dynamic_target(x, lead=(), ones=()):
    """``lead + x.shape``, with the axes in ``ones`` as 1 (a reduction's kept shape), as a
    reshape target: inside a shape-polymorphic trace, the one dynamic axis of ``x`` it keeps
    is written -1 (so the graph serves every size of it)."""
    shape = tuple(1 if i in ones else s for i, s in enumerate(x._value.shape))
    dyn = core.dynamic_axes(x) - set(ones)
    if not dyn:
        return lead + shape
    if len(dyn) > 1:
        core.not_polymorphic(f"a reshape to the shape of a tensor with {len(dyn)} dynamic "
                             f"axes")
        return lead + shape
    return lead + tuple(-1 if i in dyn else s for i, s in enumerate(shape))


def _shape_arg(shape, fn, arg="shape"):
    if isinstance(shape, Tensor):
        shape = _static(shape, "a shape").tolist()
    shape = as_ints(shape, fn, arg)
    if any(s < 0 for s in shape):
        raise ValueError(f"{fn}: shape must not be negative, got {shape}")
    return shape


def instantiate_zeros(primals, tangents):
    """``tangents`` with each None (a symbolic zero) made zeros shaped like its primal: for
    the JVP rules that need a tangent for every input."""
    return [zeros_of(as_tensor(p)) if t is None else t
            for p, t in zip(primals, tangents, strict=True)]


def zeros_of(x, dt=None):
    """Zeros with the shape of the Tensor ``x`` and dtype ``dt`` (by default its own): a
    ``fill_like`` op when an axis of ``x`` is dynamic, else a constant."""
    dt = x._value.dtype if dt is None else dt
    if core.dynamic_axes(x):
        return bind(fill_like_p, x, value=0, dtype=dt, lead=())
    return Tensor(np.zeros(x._value.shape, dt) if x._value.ndim else dt.type(0))


# --- ops that take a shape from a tensor when the graph runs ----------------------------------
# Inside a shape-polymorphic trace (an input_signature with None dimensions), a rule must not
# write a dynamic size into the graph. These take the shape from a reference input instead;
# eager code and fixed-shape graphs never use them.

fill_like_p = def_nondiff(Primitive("fill_like", unify=False))
count_p = def_nondiff(Primitive("count", unify=False))


def _target(g, ref, nbatch):
    return g.shape[:nbatch] + np.shape(ref)


def _lead_and_reference_out_axes(dins, ins, params, outs):
    """Ops shaped ``lead + ref.shape`` (``nbatch`` lead axes from input 0, the rest from the
    reference, input 1)."""
    n = params["nbatch"]
    return [frozenset({a for a in dins[0] if a < n} | {n + a for a in dins[1]})]


@fill_like_p.def_out_axes
def _fill_like_out_axes(dins, ins, params, outs):
    """``lead + ref.shape``: the reference's axes, after the fixed lead."""
    n = len(params["lead"])
    return [frozenset(n + a for a in dins[0])]


@fill_like_p.def_impl
def _fill_like_impl(ref, *, value, dtype, lead):
    """``value`` in the shape ``lead + ref.shape``."""
    shape = lead + np.shape(ref)
    return np.full(shape, value, dtype) if shape else dtype.type(value)


count_p.def_out_axes(lambda dins, ins, params, outs: [core.NO_AXES])   # a scalar


@count_p.def_impl
def _count_impl(x, *, axis, dtype):
    """The number of elements of ``x`` over ``axis`` (a reduction's divisor), as ``dtype``."""
    return dtype.type(int(np.prod([np.shape(x)[a] for a in axis], dtype=np.int64)))


def count(x, axis, dtype):
    """How many elements a reduction of ``x`` over ``axis`` combines, as a ``dtype`` scalar;
    a graph op when an axis is dynamic, else a constant."""
    if any(a in core.dynamic_axes(x) for a in axis):
        return bind(count_p, x, axis=tuple(axis), dtype=np.dtype(dtype))
    return Tensor(_count_impl(x._value, axis=axis, dtype=np.dtype(dtype)))

"""Static arguments and axes, symbolic zeros and constants of a symbolic shape: the lowest
ops module, what every other ops module (indexing included) builds on.

Static arguments (`_static`, axes, shapes), symbolic zeros (`instantiate_zeros`,
`zeros_cotangent`), reshape targets (`shape_with`), and constants whose shape may be symbolic
(`filled`: the nondifferentiable primitive ``full`` when it is).
It imports only the core modules; every other ops module may import it.
"""

import numpy as np

from finegrad._src import core, dims
from finegrad._src import tensor as tensor_module
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.shapes import as_int, as_ints
from finegrad._src.state import state as _state
from finegrad._src.tensor import Tensor


def as_tensor(x):
    """``x`` as a Tensor by the core conversion: a list holding tensors is not packed with a
    recorded stack (that is `array.convert_to_tensor`, a module above this one)."""
    return x if type(x) is Tensor else tensor_module.convert_to_tensor(x)


def _static(t, what):
    """The value of a tensor used as a static argument (shape, axis, index); inside
    finegrad.function it must not be traced, since it fixes the graph's structure."""
    return tensor_module._static_value(t, what)


def no_strings(name, x):
    """TypeError naming ``finegrad.<name>`` for a string tensor's NumPy value ``x`` (NumPy
    would add bytes, or order them; TensorFlow has no such kernel)."""
    if x.dtype.kind == "O":
        raise TypeError(f"finegrad.{name}: not defined for string tensors")


def normalize_axes(axis, ndim, fn, reduction=False):
    """``axis`` (None, int, sequence, or integer tensor) as a sorted tuple of non-negative ints.
    A scalar accepts axis 0 (or -1) as TensorFlow's cumsum does, but not in a ``reduction``,
    where an axis out of range is TensorFlow's InvalidArgumentError (a ValueError)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = _static(axis, "an axis").tolist()
    axes = as_ints(axis, fn, "axis")
    out = []
    scalar_ok = ndim == 0 and not reduction
    for a in axes:
        if not -ndim <= a < max(ndim, 1 if scalar_ok and a in (0, -1) else ndim):
            error = InvalidArgumentError if reduction else ValueError
            valid = f"axes {-ndim}..{ndim - 1}" if ndim else "a scalar has no axis to reduce"
            raise error(f"{fn}: axis {a} is out of range for a tensor of rank {ndim} ({valid})")
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
    return filled(tuple(batch) + tuple(core.shape_of(x)), 0, x._value.dtype)


def shape_with(x, lead=(), ones=()):
    """``lead + shape_of(x)``, with the axes in ``ones`` as 1 (a reduction's kept shape): a
    reshape target, whose sizes are symbolic inside a shape-polymorphic trace."""
    return tuple(lead) + tuple(1 if i in ones else s for i, s in enumerate(core.shape_of(x)))


def symbolic_shape(shape):
    """``shape`` (a shape argument) with the entries a shape-polymorphic trace knows as
    symbolic sizes (``[shape(x)[0], 3]``) as Dims, or None when it has none: the op then
    builds a node of that symbolic shape instead of guarding the traced value."""
    if _state.tracer is None:
        return None
    if isinstance(shape, Tensor):
        v = tensor_module._static_size(shape)
        return tuple(v) if isinstance(v, tuple) else None
    if not isinstance(shape, (list, tuple)) or not any(isinstance(d, Tensor) for d in shape):
        return None
    out = [tensor_module._static_size(d) if isinstance(d, Tensor) else None for d in shape]
    if all(v is None or isinstance(v, tuple) for v in out):
        return None
    return tuple(as_int(d, "finegrad: a shape", "shape") if v is None else v
                 for d, v in zip(shape, out, strict=True))


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


def multilinear_jvp(prim):
    """The JVP rule of a primitive linear in each input separately (matmul, einsum, the
    convolutions): the sum, over the inputs with a tangent, of ``prim`` with that input
    replaced by its tangent. A symbolic zero (None) adds nothing; all None gives None."""
    def jvp(primals, tangents, *, out, **params):
        total = None
        for k, t in enumerate(tangents):
            if t is not None:
                args = list(primals)
                args[k] = t
                term = bind(prim, *args, **params)
                total = term if total is None else total + term
        return total
    return jvp


def zeros_of(x, dt=None):
    """Zeros with the shape of the Tensor ``x`` and dtype ``dt`` (by default its own)."""
    return filled(core.shape_of(x), 0, x._value.dtype if dt is None else dt)


# --- constants of a symbolic shape --------------------------------------------------------------
# A constant whose shape holds a symbolic size (inside a shape-polymorphic trace) is an op with
# the shape as its param, resolved at each call; a fixed shape stays a constant.

full_p = def_nondiff(Primitive("full", unify=False))


@full_p.def_impl
def _full_impl(*, shape, value, dtype):
    """``value`` in ``shape`` (a symbolic size resolved negative, ``zeros([b - 1])`` at
    ``b = 0``: TensorFlow's InvalidArgumentError)."""
    for d in shape:
        if d < 0:
            raise InvalidArgumentError(None, None, f"finegrad.zeros/ones/fill: Dimension {d} "
                                       f"must be >= 0 (a size computed when the graph runs)")
    return np.full(shape, value, dtype) if shape else dtype.type(value)


full_p.def_shape(lambda *, shape, value, dtype: tuple(shape))


@full_p.def_lowering
def _full_lower(*, shape, value, dtype):
    import jax.numpy as jnp
    return jnp.full(tuple(shape), value, dtype)


def filled(shape, value, dt):
    """``value`` (an int or a symbolic size) in ``shape`` as dtype ``dt``: a constant, or a
    ``full`` op when ``shape`` or ``value`` is symbolic."""
    dt = np.dtype(dt)
    if dims.has_dims(shape) or type(value) is dims.Dim:
        return bind(full_p, shape=tuple(shape), value=value, dtype=dt)
    return Tensor(np.full(shape, value, dt) if shape else dt.type(value))


def count(x, axis, dtype):
    """How many elements a reduction of ``x`` over ``axis`` combines, as a ``dtype`` scalar
    (an op when a size is symbolic, else a constant)."""
    shape = core.shape_of(x)
    return filled((), dims.size_product(shape[a] for a in axis), dtype)


# --- batching rules of vectorized_map (`Primitive.def_vmap`) ----------------------------------
# A rule gets (args, batched, **params): a batched input has the slices along an extra axis 0.

def shift_axes(axis, rank):
    """Axis param(s) naming axes of one slice (of rank ``rank``), as axes of the batched
    tensor (slices along axis 0): a non-negative axis moves up by one, a negative one (from
    the end) stays, None (every axis) names all of the slice's axes."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(shift_axes(a, rank) for a in axis)
    return axis + 1 if axis >= 0 else axis


def axis_vmap(prim, *names):
    """The batching rule of a one-input primitive whose params ``names`` are axes of its
    input (reductions, cumsum, softmax, argmax): the same primitive, axes shifted by one."""
    def rule(args, batched, **params):
        rank = len(core.shape_of(args[0])) - 1
        return bind(prim, *args, **{k: shift_axes(v, rank) if k in names else v
                                    for k, v in params.items()})
    return rule

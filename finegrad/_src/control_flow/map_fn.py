"""`map_fn`'s loop: apply a function to every slice of tensors along axis 0, unrolled (the
public `map_fn`, in control_flow/scan.py beside `scan`, uses it unless axis 0 is open).

`map_fn` runs ``fn`` once per slice and stacks the results, as TensorFlow's ``tf.map_fn``
(a while loop) does; its vectorized counterpart, `vectorized_map`, is a transform of the
traced ``fn`` (`vectorized_map`), which uses this loop when ``fn`` cannot be traced, and
``unstack_rows`` in its per-slice fallback. Every op ``fn`` runs is an ordinary recorded op,
so tapes, accumulators and `finegrad.function` traces see them and gradients flow. The
slices come from one primitive, ``unstack_rows`` (one output per slice), whose VJP stacks
all the slices' cotangents at once: the reverse pass costs one stack, not one full-size
scatter per slice. Inside a trace the loop is unrolled into the graph, which then serves
only the traced number of slices. It imports the core modules, `ops.zeros_and_axes`, `ops.array` and
`ops.array.constants`.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dims, dtypes, nest
from finegrad._src.core import Primitive, bind
from finegrad._src.ops.array.structural import _t, stack, transpose
from finegrad._src.ops.zeros_and_axes import instantiate_zeros
from finegrad._src.ops.array.constants import zeros
from finegrad._src.tensor import Tensor


unstack_rows_p = Primitive("unstack_rows", multiple_results=True, unify=False, batch_rule=True)


@unstack_rows_p.def_impl
def _unstack_rows_impl(x):
    """The slices ``x[0], x[1], ...`` (views; a string scalar stays a 0-d array)."""
    return tuple(np.array(r, object) if type(r) is bytes else r for r in x)


@unstack_rows_p.def_lowering
def _unstack_rows_lower(x):
    return tuple(x[i] for i in range(x.shape[0]))


@unstack_rows_p.def_shape
def _unstack_rows_shape(x):
    """Each slice has the input's axes but the first (whose size, the number of slices, is
    kept at its traced value)."""
    n = dims.pin(x[:1], "unstack_rows along a dynamic axis")[0]
    return [tuple(x[1:])] * n


@unstack_rows_p.def_jvp
def _unstack_rows_jvp(primals, tangents, *, out):
    return bind(unstack_rows_p, tangents[0])


@unstack_rows_p.def_vmap
def _unstack_rows_vmap(args, batched):
    """The rows of each slice (axis 1 of the batch), each with the batch at axis 0."""
    x = args[0]
    return bind(unstack_rows_p, transpose(x, (1, 0) + tuple(range(2, len(core.shape_of(x))))))


@unstack_rows_p.def_vjp
def _unstack_rows_vjp(ct, x, *, out, needs, batch):
    """VJP of unstacking: the slices' cotangents stacked (after the batch axes)."""
    return (stack(instantiate_zeros(out, list(ct)), axis=len(batch)),)


def _is_spec(x):
    return isinstance(x, dtypes.DType) or hasattr(x, "dtype") and hasattr(x, "shape") and \
        not isinstance(x, Tensor)


def _leading_size(flat, fn):
    """The common size of axis 0 of the tensors in ``flat``."""
    sizes = set()
    for t in flat:
        if t._value.ndim == 0:
            raise ValueError(f"{fn}: elems must have rank >= 1 (their axis 0 is mapped), got "
                             f"a scalar")
        dims.pin(core.shape_of(t)[:1], f"{fn} over a dynamic axis (its loop is unrolled)")
        sizes.add(t._value.shape[0])
    if len(sizes) != 1:
        raise ValueError(f"{fn}: the tensors of elems must have the same size along axis 0, "
                         f"got {sorted(sizes)}")
    return sizes.pop()


def _empty_result(signature, flat_elems, elems, fn):
    """The result for zero slices: empty tensors shaped by the signature (by default the
    slices' own shapes and dtypes, as TensorFlow's)."""
    if signature is None:
        return nest.pack_sequence_as(elems, [zeros((0,) + t._value.shape[1:], t.dtype)
                                             for t in flat_elems])
    if any(isinstance(s, dtypes.DType) or getattr(s, "shape", None) is None
           for s in nest.flatten(signature)):
        raise ValueError(f"{fn}: zero slices with an fn_output_signature of dtypes only: give "
                         f"TensorSpecs (their shapes make the empty result)")
    return nest.map_structure(lambda s: zeros((0,) + tuple(s.shape), s.dtype), signature)


def _check_signature(out, signature, fn):
    """An fn_output_signature must describe what ``fn`` returned (structure and dtypes)."""
    flat_sig = nest.flatten(signature)
    flat_out = nest.flatten(out)
    if len(flat_sig) != len(flat_out):
        raise ValueError(f"{fn}: fn returned {len(flat_out)} tensor(s), its "
                         f"fn_output_signature describes {len(flat_sig)}")
    for i, (s, o) in enumerate(zip(flat_sig, flat_out, strict=True)):
        want = dtypes.as_dtype(s if isinstance(s, dtypes.DType) or not hasattr(s, "dtype")
                               else s.dtype)
        if _t(o).dtype != want:
            raise TypeError(f"{fn}: output {i} of fn has dtype {_t(o).dtype.name}, its "
                            f"fn_output_signature says {want.name}")


def _map(fn, elems, signature, where):
    flat = [_t(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{where}: elems must hold at least one tensor")
    n = _leading_size(flat, where)
    if n == 0:
        return _empty_result(signature, flat, elems, where)
    columns = [bind(unstack_rows_p, t) for t in flat]
    results = []
    for i in range(n):
        out = fn(nest.pack_sequence_as(elems, [c[i] for c in columns]))
        if signature is not None and i == 0:
            _check_signature(out, signature, where)
        results.append(out)
    first = results[0]
    flat_results = [nest.flatten(r) for r in results]
    if any(len(r) != len(flat_results[0]) for r in flat_results):
        raise ValueError(f"{where}: fn returned different structures for different slices")
    for k in range(len(flat_results[0])):
        shapes = {tuple(np.shape(_t(r[k])._value)) for r in flat_results}
        if len(shapes) > 1:   # ragged: TensorFlow refuses these too
            raise ValueError(f"{where}: fn returned outputs of different shapes for different "
                             f"slices (output {k}: {sorted(shapes)}); pad them to one shape, "
                             f"or return a RaggedTensor's parts")
    stacked = [stack([_t(r[k]) for r in flat_results]) for k in range(len(flat_results[0]))]
    return nest.pack_sequence_as(first, stacked) if nest.is_nested(first) else stacked[0]

"""Differentiating a Python function again, under a fresh tape.

Some gradients are not a rule over recorded entries but a re-run: a `cond` branch replayed
for its VJP, a `while_loop` re-run (at any order), `recompute_grad`'s forward recomputed
without saved intermediates, and the JVP of a `custom_gradient` rule obtained by
transposing its VJP. Each is "run ``fn`` on these inputs under a new tape watching them,
then pull these cotangents back", which `vjp_of` does once. The fresh tape sits on top of
whatever recorders are active, so the re-run and its reverse pass are recorded by outer
tapes and accumulators: derivatives of these gradients come for free, to any order.
"""
from finegrad._src import nest
from finegrad._src.ad.tape import GradientTape
from finegrad._src.ops.array.gather import dense_cotangent
from finegrad._src.ops.array.structural import reduce_sum, zeros_like
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


def _differentiable(x):
    """Tensors of a float or complex dtype, and every Variable (its reads decide)."""
    return isinstance(x, Variable) or isinstance(x, Tensor) and x.dtype.is_differentiable


def vjp_of(fn, primals, cts, unconnected_gradients="zero"):
    """The vector-Jacobian product of ``fn`` at ``primals``, by running ``fn`` under a fresh
    tape that watches them.

    Args:
        fn: called as ``fn(*primals)`` (the same tensor objects, so ops that reach them
            through a closure count too); returns a tensor or a (nested) sequence of them.
        primals: tensors and Variables; non-differentiable tensors get None.
        cts: one cotangent per output leaf of ``fn``; outputs whose cotangent is None, and
            integer outputs or cotangents, contribute nothing. ``cts=None``: ones for every
            output (the gradient of their sum).
        unconnected_gradients: ``"zero"`` (default) or ``"none"``, for differentiable
            primals the outputs do not depend on.

    Returns:
        One gradient per primal, in order.

    >>> import finegrad as fg
    >>> from finegrad._src.ad.rediff import vjp_of
    >>> x = fg.constant(3.)
    >>> [g.numpy() for g in vjp_of(lambda x: [x * x], [x], [fg.constant(1.)])]
    [np.float32(6.0)]
    """
    sources = [p for p in primals if _differentiable(p)]
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(sources)
        outs = fn(*primals)
    flat = nest.flatten(outs)
    if cts is None:
        targets, seeds = flat, None
    else:
        pairs = [(o, c) for o, c in zip(flat, cts, strict=True)
                 if c is not None and o.dtype.is_differentiable and c.dtype.is_differentiable]
        targets, seeds = [o for o, _ in pairs], [c for _, c in pairs]
    grads = iter(tape.gradient(targets, sources, output_gradients=seeds,
                               unconnected_gradients=unconnected_gradients))
    return [dense_cotangent(next(grads)) if _differentiable(p) else None for p in primals]


def jvp_by_transposing(vjp, ins, tangents, outs, name):
    """J v from a VJP: the gradient of ``<vjp(u), v>`` with respect to ``u`` (at u = 0).

    ``vjp(us)`` takes one cotangent per output and returns one per input (or None); it is
    linear in ``us``, so this gradient is the JVP. Returns one tangent per output (None for
    outputs of an integer dtype, zeros for those no input reaches).
    """
    us = [zeros_like(o) if o._value.dtype.kind in "fc" else None for o in outs]
    live = [u for u in us if u is not None]
    connected = []

    def inner_product(*_):
        terms = [reduce_sum(c * v) for c, v in zip(vjp(us), tangents, strict=True)
                 if c is not None and v is not None]
        connected.append(bool(terms))
        total = terms[0] if terms else None
        for term in terms[1:]:
            total = total + term
        return [] if total is None else [total]

    grads = vjp_of(inner_product, live, None, unconnected_gradients="none")
    if not connected[0]:
        return [None if u is None else zeros_like(u) for u in us]
    if all(g is None for g in grads):
        raise TypeError(f"finegrad: forward mode through '{name}' needs its gradient function "
                        f"to be differentiable in the upstream gradient (it is linear in it), "
                        f"but the result does not depend on it: compute it with finegrad ops, "
                        f"not NumPy, or give an explicit forward rule")
    it = iter(grads)
    return [None if u is None else _or_zeros(next(it), u) for u in us]


def _or_zeros(g, like):
    return zeros_like(like) if g is None else g

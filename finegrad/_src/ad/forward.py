"""ForwardAccumulator: forward-mode differentiation, a tangent carried beside each primal.

An accumulator is a recorder (see core.py) that, as each op runs, looks up the tangents of
its inputs and applies the primitive's JVP rule, like JAX's `JVPTrace`. The rule runs with
only the recorders outside the accumulator active, so an outer tape records the tangent
computation (reverse-over-forward) and an accumulator outside a tape sees the tape's reverse
pass (forward-over-reverse Hessian-vector products). An input without a tangent reaches the
rule as None, a symbolic zero (`Primitive.run_jvp`), so no zeros are built for constants.

A primitive without a JVP rule, a gradient registered with `RegisterGradient`, and every
`custom_gradient` function get their JVP by transposing their VJP: the VJP is linear in the
cotangent ``u``, so ``J v`` is the gradient of ``<vjp(u), v>`` with respect to ``u``.
"""

from __future__ import annotations

from finegrad._src import core, nest
from finegrad._src.ad.rediff import jvp_by_transposing
from finegrad._src.ad.tape import (UnconnectedGradients, _unconnected,
                                   _shape_of, _zeros_for)
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class ForwardAccumulator(core.Recorder):
    """Compute Jacobian-vector products as ops run (``tf.autodiff.ForwardAccumulator``).

    Args:
        primals: a tensor, Variable or nested structure of them.
        tangents: the matching structure of tangent directions.

    >>> import finegrad as fg
    >>> x = fg.constant(2.)
    >>> with fg.autodiff.ForwardAccumulator(x, fg.constant(1.)) as acc:
    ...     y = x ** 3
    >>> acc.jvp(y).numpy()
    np.float32(12.0)
    """

    runs_rules = True

    def __init__(self, primals: Any, tangents: Any) -> None:
        flat_p, flat_t = nest.flatten(primals), nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(f"finegrad.autodiff.ForwardAccumulator: {len(flat_p)} primals but "
                             f"{len(flat_t)} tangents")
        self._tangents: dict = {}   # id(primal tensor) -> (primal, tangent)
        self._var_tangents: dict = {}
        for p, t in zip(flat_p, flat_t, strict=True):
            if id(p) in self._tangents or id(p) in self._var_tangents:
                raise ValueError("finegrad.autodiff.ForwardAccumulator: a primal is watched "
                                 "multiple times (TensorFlow refuses it too); pass each "
                                 "tensor once, with the sum of its tangents")
            if isinstance(p, Variable):
                self._var_tangents[id(p)] = (p, self._tangent_for(p, t))
            elif type(p) is Tensor:
                self._tangents[id(p)] = (p, self._tangent_for(p, t))
            else:
                raise TypeError(f"finegrad.autodiff.ForwardAccumulator: primals must be tensors "
                                f"or variables, got {type(p).__name__}")

    @staticmethod
    def _tangent_for(p, t):
        t = convert_to_tensor(t, dtype_hint=p.dtype)
        pshape = _shape_of(p)
        if t._value.shape != pshape:
            raise ValueError(f"finegrad.autodiff.ForwardAccumulator: a tangent of shape "
                             f"{tuple(t._value.shape)} for a primal of shape {tuple(pshape)}")
        if t.dtype != p.dtype:
            raise TypeError(f"finegrad.autodiff.ForwardAccumulator: a tangent of dtype "
                            f"{t.dtype.name} for a primal of dtype {p.dtype.name}")
        return t

    def __enter__(self) -> Any:
        if any(r is self for r in core.active_recorders()):
            raise ValueError("finegrad.autodiff.ForwardAccumulator: this accumulator is "
                             "already recording (a `with` block re-entered it)")
        core.push_recorder(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        core.pop_recorder(self)

    def record(self, prim: Any, ins: Any, params: TensorLike, out: Any) -> None:
        tans = self._tangents
        found = [tans.get(id(t)) for t in ins]
        if all(f is None for f in found) or prim.nondiff and prim.gradient_override is None:
            return
        if not core.active_recorders() and prim.jvp is not None and \
                prim.gradient_override is None and not prim.multiple_results:
            # outermost accumulator: nothing would record the rule's ops, so the tangent can
            # wait until it is needed; tangents no one asks for are never computed
            if out._value.dtype.kind in "fc":
                tans[id(out)] = (out, _Lazy(prim, ins, [None if f is None else f[1]
                                                        for f in found], params, out))
            return
        tangents = [None if f is None else _resolve(f[1]) for f in found]
        out_dot = _jvp(prim, ins, tangents, out, params)
        if prim.multiple_results:
            for o, d in zip(out, out_dot, strict=True):
                if d is not None and o._value.dtype.kind in "fc":
                    tans[id(o)] = (o, d)
        elif out_dot is not None and out._value.dtype.kind in "fc":
            tans[id(out)] = (out, out_dot)

    def variable_read(self, variable: Any, tensor: Any) -> None:
        found = self._var_tangents.get(id(variable))
        if found is not None:
            self._tangents[id(tensor)] = (tensor, found[1])

    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """The tangent of each tensor in ``primals`` (None, or zeros, when it has none).

        >>> import finegrad as fg
        >>> x = fg.constant([1., 2.])
        >>> with fg.autodiff.ForwardAccumulator(x, fg.constant([1., 0.])) as acc:
        ...     y = fg.reduce_sum(x * x)
        ...     z = fg.constant(3.) * 2.
        >>> acc.jvp(y).numpy(), acc.jvp(z)
        (np.float32(2.0), None)
        """
        unconnected = _unconnected(unconnected_gradients)

        def one(p):
            if not isinstance(p, (Tensor, Variable)):   # as GradientTape.gradient: never None
                where = "" if p is primals else \
                    f" (in {type(primals).__name__} {primals!r:.60})"
                raise TypeError(f"finegrad.autodiff.ForwardAccumulator.jvp: primals must be "
                                f"tensors, Variables or a nested structure of them, got "
                                f"{type(p).__name__} {p!r:.40}{where}")
            if isinstance(p, Variable):
                found = self._var_tangents.get(id(p))
            else:
                found = self._tangents.get(id(p))
            if found is not None and found[1] is not None:
                t = _resolve(found[1])
                if t is not None:
                    return t
            if unconnected is UnconnectedGradients.ZERO:
                return _zeros_for(p)
            return None
        return nest.map_structure(one, primals)


class _Lazy:
    """A tangent not computed yet: its op's JVP, run when the tangent is first needed."""

    __slots__ = ("prim", "ins", "tangents", "params", "out", "value", "done")

    def __init__(self, prim, ins, tangents, params, out):
        self.prim, self.ins, self.tangents, self.params, self.out = \
            prim, ins, tangents, params, out
        self.value, self.done = None, False


def _resolve(t):
    """The tangent ``t`` (a Tensor, None, or a `_Lazy`), computing deferred JVPs in order.

    Iterative, so a chain of thousands of deferred ops needs no deep recursion. The rules run
    with no recorder active, as they would have when the op was recorded (see record).
    """
    if type(t) is not _Lazy:
        return t
    stack = [t]
    while stack:
        node = stack[-1]
        if node.done:
            stack.pop()
            continue
        pending = [d for d in node.tangents if type(d) is _Lazy and not d.done]
        if pending:
            stack.extend(pending)
            continue
        prim = node.prim
        tangents = [d.value if type(d) is _Lazy else d for d in node.tangents]
        if all(d is None for d in tangents):
            node.value = None
        else:
            with core.inner_stack(()):
                node.value = prim.run_jvp(node.ins, tangents, node.out, node.params)
        node.done = True
        node.ins = node.tangents = node.out = node.params = None
        stack.pop()
    return t.value


def _jvp(prim, ins, tangents, out, params):
    if prim.jvp is not None and prim.gradient_override is None:
        return prim.run_jvp(ins, tangents, out, params)
    if prim.gradient_override is None and prim.vjp is None:
        raise LookupError(f"finegrad: no JVP or VJP rule defined for primitive '{prim.name}' "
                          f"(forward mode)")
    outs = out if prim.multiple_results else (out,)
    needs = [d is not None for d in tangents]

    def vjp(us):
        return prim.run_vjp(tuple(us) if prim.multiple_results else us[0], ins, out, params,
                            needs)
    res = jvp_by_transposing(vjp, ins, tangents, outs, prim.name)
    return res if prim.multiple_results else res[0]

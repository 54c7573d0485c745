"""The ``jax`` backend of `finegrad.ops`: Keras 3's names on ``jax.numpy``.

``custom_gradient`` is a ``jax.custom_vjp`` over the flat tensor leaves of the inputs. Its
forward rule runs the user's function, then converts the user's ``grad`` (a closure over
traced values such as ``e = exp(x)``) with ``jax.closure_convert``: the values it closed over
become explicit residuals, so the rule works under ``jax.jit`` and ``jax.vmap``, and because
the backward rule is ordinary JAX code of those residuals, ``jax.grad`` of ``jax.grad`` goes
through the user's rule when it is differentiable.
"""
import functools

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np

from finegrad._src.backends import rule as _rule

name = "jax"
framework = "jax"


def is_tensor(x):
    return isinstance(x, jax.Array)


def is_float(x):
    return jnp.issubdtype(x.dtype, jnp.floating)


def static_shape(x):
    return tuple(x.shape)


def dtype_name(x):
    return jnp.dtype(x.dtype).name


def convert_to_tensor(x, dtype=None):
    if isinstance(x, float) and dtype is None:
        dtype = "float32"
    return jnp.asarray(x, dtype=dtype)


def convert_to_numpy(x):
    return np.asarray(x)


@jax.tree_util.register_pytree_node_class
class _Residuals:
    """The values ``grad`` closed over (pytree leaves) and the converted ``grad`` (static)."""

    def __init__(self, consts, backward):
        self.consts, self.backward = consts, backward

    def tree_flatten(self):
        return tuple(self.consts), self.backward

    @classmethod
    def tree_unflatten(cls, backward, consts):
        return cls(list(consts), backward)


def custom_gradient(f, forward="none", jvp=None):
    """``f`` as a ``jax.custom_vjp`` whose backward rule is the user's checked ``grad``; with
    ``forward="transpose"``, a ``jax.custom_jvp`` whose JVP is ``grad`` transposed."""
    if jvp is not None:
        raise ValueError(f"finegrad.ops.custom_gradient (jax backend): {f.__qualname__} "
                         f"has an explicit jvp=, which jax cannot pair with a custom "
                         f"reverse rule; drop it (forward mode then transposes grad with "
                         f"forward='transpose'), or use the finegrad or torch backend")

    names_by_count = {}

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        call = _Call(f, _rule.Inputs(f, args, kwargs, _this, names_by_count))
        flat_call = call.by_transposing() if forward == "transpose" else call.by_vjp()
        outs = flat_call(*call.inputs.tensors)
        return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(call.y), list(outs))
    return decorated


class _Call:
    """One call of a decorated function, lowered to a function of its flat input leaves."""

    def __init__(self, f, inputs):
        self.f, self.inputs, self.y = f, inputs, None

    def run(self, leaves):
        a, kw = self.inputs.rebuild(leaves)
        y, grad = _rule.run(self.f, a, kw, _this)
        self.y = y
        return y, grad

    def grads_of(self, grad, leaves, y):
        """cts -> one gradient per leaf (zeros where grad gave None)."""
        def vjp(*cts):
            grads = _rule.call_grad(grad, self.inputs, leaves, y, cts, self.f.__qualname__,
                                    _this)
            return tuple(jnp.zeros_like(t) if g is None else g
                         for g, t in zip(grads, leaves, strict=True))
        return vjp

    def by_vjp(self):
        @jax.custom_vjp
        def flat_call(*leaves):
            return tuple(jax.tree_util.tree_leaves(self.run(leaves)[0]))

        def forward(*leaves):
            y, grad = self.run(leaves)
            flat_y = tuple(jax.tree_util.tree_leaves(y))
            converted, consts = jax.closure_convert(self.grads_of(grad, leaves, y), *flat_y)
            return flat_y, _Residuals(consts, converted)

        def backward_rule(res, cts):
            return tuple(_zero_for_int(g, t) for g, t in
                         zip(res.backward(*cts, *res.consts), self.inputs.tensors, strict=True))
        flat_call.defvjp(forward, backward_rule)
        return flat_call

    def by_transposing(self):
        @jax.custom_jvp
        def flat_call(*leaves):
            return tuple(jax.tree_util.tree_leaves(self.run(leaves)[0]))

        @flat_call.defjvp
        def jvp(leaves, tangents):
            y, grad = self.run(leaves)
            flat_y = tuple(jax.tree_util.tree_leaves(y))
            vjp = self.grads_of(grad, leaves, y)
            try:
                why = _not_linear(vjp, flat_y)
                transpose = jax.linear_transpose(vjp, *flat_y)
                out = transpose(tuple(tangents))
            except (TypeError, NotImplementedError, ValueError, AssertionError,
                    RuntimeError) as e:   # ("nonlinear div can't be transposed")
                # (JAX reports some non-linear rules with a bare AssertionError)
                if "gradient function of" in str(e):
                    raise
                why = f"JAX could not transpose it ({e})"
            if why is not None:
                raise TypeError(
                    f"finegrad.ops.custom_gradient (jax backend): forward='transpose' needs "
                    f"the gradient function of {self.f.__qualname__} to be linear in the "
                    f"upstream gradient, and {why}; use the default forward='none' (reverse "
                    f"mode only), or give an explicit forward rule, jvp=, on the finegrad or "
                    f"torch backend")
            return flat_y, tuple(out)
        return flat_call


# primitives linear in each operand together: an operand that does not depend on the
# upstream gradient adds a constant term, which jax.linear_transpose silently drops
_ADDITIVE = frozenset(("add", "sub", "add_any", "concatenate", "pad", "select_n",
                       "dynamic_update_slice"))
# primitives that keep a zero constant zero
_KEEPS_ZERO = frozenset(("broadcast_in_dim", "convert_element_type", "reshape", "squeeze",
                         "expand_dims", "transpose", "mul", "neg"))


def _not_linear(vjp, cts):
    """Why ``vjp`` (the rule as a function of the upstream gradients) is not linear in them,
    or None. `jax.linear_transpose` trusts its function to be linear: a rule that adds a term
    not depending on the upstream, or returns a gradient that ignores it, would be transposed
    to a silently wrong (often zero) tangent, so its jaxpr is read first."""
    jaxpr = jax.make_jaxpr(vjp)(*cts).jaxpr
    linear, zero = set(jaxpr.invars), set()

    def is_zero(v):
        return not np.any(v.val) if isinstance(v, jax.extend.core.Literal) else v in zero

    def is_linear(v):
        return not isinstance(v, jax.extend.core.Literal) and v in linear
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        ins = eqn.invars[1:] if name == "select_n" else eqn.invars   # (the predicate)
        if any(is_linear(v) for v in eqn.invars):
            if name in _ADDITIVE and not all(is_linear(v) or is_zero(v) for v in ins):
                return f"it adds a term that does not depend on the upstream gradient ({name})"
            linear.update(eqn.outvars)
        elif name in _KEEPS_ZERO and any(is_zero(v) for v in eqn.invars) and (
                name == "mul" or all(is_zero(v) for v in eqn.invars)):
            zero.update(eqn.outvars)
    if not all(is_linear(v) or is_zero(v) for v in jaxpr.outvars):
        return "it returns a gradient that does not depend on the upstream gradient"
    return None


def _zero_for_int(g, t):
    return g if jnp.issubdtype(jnp.result_type(t), jnp.floating) else None


def value_and_grad(f, argnums=0):
    """``jax.value_and_grad``."""
    return jax.value_and_grad(f, argnums=argnums)


import sys as _sys  # noqa: E402 (the module itself, for the shared rule's backend argument)
_this = _sys.modules[__name__]

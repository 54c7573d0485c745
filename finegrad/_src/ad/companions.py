"""recompute_grad and grad_pass_through: custom_gradient's companions from TensorFlow.

Both are built on `custom_gradient`: `recompute_grad` runs its function with no tape keeping
intermediates and, for the gradient, differentiates it again (`rediff.vjp_of`);
`grad_pass_through` runs its function hidden from every recorder and passes the upstream
gradient through unchanged.
"""

from __future__ import annotations

import functools

from finegrad._src import core, nest
from finegrad._src.ad.custom import _is_input, _VariableReads, custom_gradient
from finegrad._src.ad.rediff import vjp_of
from finegrad._src.ops.array.structural import convert_to_tensor
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

from typing import Any


def recompute_grad(f: Any) -> Any:
    """Decorator: keep no intermediates of ``f`` in the forward pass; recompute them for the
    gradient (TensorFlow's ``tf.recompute_grad``, gradient checkpointing).

    Works with trainable variables read inside ``f`` and at higher order (the recomputation
    is recorded by outer tapes).

    >>> import finegrad as fg
    >>> f = fg.recompute_grad(lambda x: fg.reduce_sum(fg.sin(x) ** 2))
    >>> x = fg.constant([0.5, 1.])
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = f(x)
    >>> t.gradient(y, x).numpy().round(4)  # sin(2x)
    array([0.8415, 0.9093], dtype=float32)
    """
    name = getattr(f, "__qualname__", "f")

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if not core.active_recorders():
            return f(*args, **kwargs)
        watcher = _VariableReads()
        # the forward runs with only a variable-read listener: no tape keeps its
        # intermediates
        with core.hidden():
            saved = core.listen(watcher)
            try:
                y = f(*args, **kwargs)
            finally:
                core.unlisten(saved)
        used = list((watcher.variables or {}).values())

        @custom_gradient
        def recomputed(*xs, **kw):
            for v in used:  # reads that tell custom_gradient which variables f depends on
                v.read_value()

            def grad_fn(*dys, variables=None):
                ts = [convert_to_tensor(x) if _is_input(x) else x for x in xs]
                # a keyword is an input when it is a tensor or a variable (custom_gradient's
                # rule); a Python number there is a setting, as `scale=3.`
                kts = {k: convert_to_tensor(v) if isinstance(v, (Tensor, Variable)) else v
                       for k, v in kw.items()}
                srcs = [t for t in ts if isinstance(t, Tensor)]
                ksrcs = [t for t in kts.values() if isinstance(t, Tensor)]
                g = vjp_of(lambda *_: f(*ts, **kts), srcs + ksrcs + used, list(dys))
                it = iter(g)
                gx = [next(it) if isinstance(t, Tensor) else None for t in ts]
                gk = [next(it) for v in kts.values() if isinstance(v, Tensor)]
                return (gx + gk, list(it)) if used else gx + gk
            if not used:
                return y, lambda *dys: grad_fn(*dys)
            return y, grad_fn
        recomputed.__qualname__ = name
        recomputed._f.__qualname__ = name
        return recomputed(*args, **kwargs)
    return wrapped


def grad_pass_through(f: Any) -> Any:
    """Decorator: compute ``f`` forward, but let the gradient pass through as if ``f`` were the
    identity (TensorFlow's ``tf.grad_pass_through``; e.g. a straight-through estimator).

    >>> import finegrad as fg
    >>> st_round = fg.grad_pass_through(fg.round)
    >>> x = fg.constant(1.3)
    >>> with fg.GradientTape() as t:
    ...     t.watch(x)
    ...     y = st_round(x) * 3.
    >>> y.numpy(), t.gradient(y, x).numpy()
    (np.float32(3.0), np.float32(3.0))
    """
    name = getattr(f, "__qualname__", "f")

    @functools.wraps(f)
    def wrapped(x):
        @custom_gradient
        def passed(x):
            with core.hidden():
                y = f(x)
            flat_x, flat_y = nest.flatten(x), nest.flatten(y)
            if len(flat_x) != len(flat_y):
                raise ValueError(f"finegrad.grad_pass_through: {name} must return the "
                                 f"structure it was given ({len(flat_x)} tensors), got "
                                 f"{len(flat_y)}")

            def grad_fn(*dys):
                return nest.pack_sequence_as(x, nest.flatten(list(dys))) \
                    if nest.is_nested(x) else dys[0]
            return y, grad_fn
        passed._f.__qualname__ = name
        return passed(x)
    return wrapped

"""`case` and `switch_case`: many-way branches, built on `finegrad.cond`.

`switch_case` is a chain of `cond`s on ``branch_index == k`` (the last branch, or
``default``, taking every index out of range), so eagerly, or with a constant index, only
the chosen branch runs, and inside `finegrad.function` with a traced index every branch is
traced and gradients flow through the chosen one (the `cond` primitive's rules). `case`
picks the index of the first true predicate (checking, as TensorFlow does, that some
predicate holds when there is no default, and that at most one does when ``exclusive``)
and hands it to `switch_case`; with traced predicates that index is computed by graph ops
(an argmax), or, when a check is needed (no default, or ``exclusive``), by a
`numpy_function` whose check raises `InvalidArgumentError` at run time.
"""

from __future__ import annotations

import numpy as np

from finegrad._src.tracebacks import api_boundary
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.tracing.builder import is_traced
from finegrad._src.control_flow.cond_while import cond
from finegrad._src.graph.pyfunc import numpy_function
from finegrad._src.ops.array.structural import cast, convert_to_tensor, stack
from finegrad._src.ops.math.sorting import argmax
from finegrad._src.ops.math.elementwise import equal
from finegrad._src.tensor import Tensor

from typing import Any


def _scalar(x, kind, where, arg):
    """``x`` as a scalar tensor of the given kind ("bool" or "integer"), else a TypeError."""
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    ok = t.dtype.is_bool if kind == "bool" else t.dtype.is_integer
    if not ok or t.shape.rank not in (0, None):
        raise TypeError(f"{where}: {arg} must be a scalar {kind} tensor, got "
                        f"{t.dtype.name} of shape {tuple(t.shape)}")
    return t


def _pairs(pred_fn_pairs):
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"finegrad.case: pred_fn_pairs must be a list of (predicate, "
                        f"callable) pairs, got {type(pred_fn_pairs).__name__}")
    for p in pred_fn_pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError(f"finegrad.case: each entry of pred_fn_pairs must be a "
                            f"(predicate, callable) pair, got {p!r:.80}")
    return [_scalar(p, "bool", "finegrad.case", "each predicate") for p, _ in pred_fn_pairs], \
        [f for _, f in pred_fn_pairs]


def _first_true(exclusive, has_default):
    """The index a row of predicate values selects (the number of predicates when none
    holds), after TensorFlow's checks."""
    def pick(*values):
        hits = [i for i, v in enumerate(values) if bool(v)]
        if exclusive and len(hits) > 1:
            raise InvalidArgumentError(f"finegrad.case: exclusive=True but predicates "
                                       f"{hits} are all true")
        if not hits and not has_default:
            raise InvalidArgumentError("finegrad.case: none of the predicates is true and "
                                       "no default was given")
        return np.int32(hits[0] if hits else len(values))
    return pick


def _first_true_index(preds):
    """The index of the first true predicate, the number of predicates when none holds, as
    graph ops (an argmax over the predicates and a final true one: the first on ties)."""
    flags = [cast(p, "int32") for p in preds] + [convert_to_tensor(np.int32(1))]
    return argmax(stack(flags), output_type="int32")


def _unpack_singleton(out, strict):
    """TensorFlow's non-strict mode: a branch's one-element list or tuple is its element."""
    if not strict and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out


@api_boundary
def case(pred_fn_pairs: Any, default: Any = None, exclusive: bool = False, strict: bool = False,
         name: str | None = None) -> Any:
    """The result of the callable paired with the first true predicate (TensorFlow's
    ``tf.case``).

    ``pred_fn_pairs`` is a list of ``(scalar bool tensor, callable)`` pairs; ``default``
    runs when no predicate holds (without a default, that is an `InvalidArgumentError`).
    With ``exclusive=True`` more than one true predicate is an `InvalidArgumentError`.
    Unless ``strict``, a branch's one-element list is returned as its element. Built on
    `cond`: eagerly only the chosen callable runs; inside `finegrad.function` all are
    traced and must return the same structure, shapes and dtypes.

    >>> import finegrad as fg
    >>> x = fg.constant(3.)
    >>> fg.case([(x < 0., lambda: -x), (x < 2., lambda: x)], default=lambda: x * x).numpy()
    np.float32(9.0)
    """
    preds, fns = _pairs(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError(f"finegrad.case: default must be a callable, got "
                        f"{type(default).__name__}")
    if not fns:
        if default is None:
            raise ValueError("finegrad.case: give at least one (predicate, callable) pair "
                             "or a default")
        return _unpack_singleton(default(), strict)
    pick = _first_true(exclusive, default is not None)
    if any(is_traced(p) for p in preds) and (exclusive or default is None):
        # the checks raise when the graph runs: a host function (a host callback when
        # compiled by XLA, which has no way to raise)
        index: Any = numpy_function(pick, preds, "int32", stateful=False)
    elif any(is_traced(p) for p in preds):
        index = _first_true_index(preds)
    else:
        index = int(pick(*[p._value for p in preds]))
    branches = fns + ([default] if default is not None else [])
    return _unpack_singleton(_switch(index, branches, "finegrad.case"), strict)


def _branch_list(branch_fns):
    """The callables of ``branch_fns`` (a list of callables, or a dict or list of
    ``(index, callable)`` pairs whose indices are 0, 1, ..., n-1)."""
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if not isinstance(branch_fns, (list, tuple)) or not branch_fns:
        raise ValueError(f"finegrad.switch_case: branch_fns must be a non-empty list or dict "
                         f"of callables, got {branch_fns!r:.80}")
    if all(callable(f) for f in branch_fns):
        return list(branch_fns)
    if not all(isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])
               for p in branch_fns):
        raise TypeError("finegrad.switch_case: branch_fns must hold callables or (index, "
                        "callable) pairs")
    keys = sorted(int(k) for k, _ in branch_fns)
    if keys != list(range(len(branch_fns))):
        raise ValueError(f"finegrad.switch_case: branch indices (keys) must form the range "
                         f"0 to {len(branch_fns) - 1}, got {keys}")
    return [f for _, f in sorted(branch_fns, key=lambda p: int(p[0]))]


def _switch(index, fns, where):
    """``fns[index]()``; out of range, the last callable's result."""
    fns, default = fns[:-1], fns[-1]
    if not isinstance(index, Tensor) or not is_traced(index):
        i = int(index._value if isinstance(index, Tensor) else index)
        return (fns[i] if 0 <= i < len(fns) else default)()

    def chain(k):
        if k == len(fns):
            return default()
        # (equal, not ==: in a TF1 graph a tensor's == is identity, as in TensorFlow 1)
        return cond(equal(index, k), fns[k], lambda: chain(k + 1))
    try:
        return chain(0)
    except ValueError as e:
        if "must return the same structure" not in str(e):
            raise
        raise ValueError(f"{where}: every branch must return the same structure of tensors "
                         f"with the same shapes and dtypes ({e})") from e


@api_boundary
def switch_case(branch_index: Any, branch_fns: Any, default: Any = None,
                name: str | None = None) -> Any:
    """``branch_fns[branch_index]()``; out of range, ``default()`` (by default the last
    branch), as TensorFlow's ``tf.switch_case``.

    ``branch_fns`` is a list of callables, or a dict (or list of pairs) from the indices
    0, 1, ..., n-1 to callables. Built on `cond`: eagerly only the chosen callable runs;
    inside `finegrad.function` with a traced index all are traced and must return the same
    structure, shapes and dtypes, and gradients flow through the chosen one.

    >>> import finegrad as fg
    >>> x = fg.constant(2.)
    >>> fg.switch_case(fg.constant(1), [lambda: x, lambda: x * 10., lambda: -x]).numpy()
    np.float32(20.0)
    """
    fns = _branch_list(branch_fns)
    if default is not None and not callable(default):
        raise TypeError(f"finegrad.switch_case: default must be a callable, got "
                        f"{type(default).__name__}")
    index = _scalar(branch_index, "integer", "finegrad.switch_case", "branch_index")
    return _switch(index, fns + ([default] if default is not None else []),
                   "finegrad.switch_case")

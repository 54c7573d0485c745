"""``tf.debugging``: runtime assertions on tensors' values, shapes and dtypes.

Eagerly, a failed value assertion raises `finegrad.errors.InvalidArgumentError` (a
ValueError) naming the check and showing the values, as TensorFlow does; a failed static check
(a rank, a shape, a dtype) raises ValueError or TypeError at once, in eager mode and while
tracing. Inside a `finegrad.function` trace or a TF1 graph a value assertion is an assertion
node (`ops.assertion`), which checks at each call or ``Session.run``, as TensorFlow's Assert
op. The assertions return None, as in eager TensorFlow, and in a TF1 graph an `Operation`
(the value assertions' node; a ``NoOp`` for the checks done at once) that
``control_dependencies`` or ``Session.run`` runs; `check_numerics` and `ensure_shape` return
their input, so gradients flow through them unchanged.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import core, dtypes
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.assertion import check_numerics_of, run_check
from finegrad._src.api.scopes import no_op
from finegrad._src.ops.array.structural import identity
from finegrad._src.shapes import TensorShape, as_shape
from finegrad._src.tensor import Tensor, convert_to_tensor

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.dtypes import DType
    from finegrad._src.types import TensorLike


def _summary(a, summarize):
    a = np.asarray(a)
    return np.array2string(a.ravel()[:summarize or 3] if a.ndim else a, separator=", ")


def _fail(message, what, pairs, summarize=None):
    lines = [message or ""] if message else []
    lines.append(f"Condition {what} did not hold.")
    lines += [f"{label} = {_summary(v, summarize)}" for label, v in pairs]
    raise InvalidArgumentError("\n".join(lines))


def _compare(x, y, op, what, message, summarize):
    def check(a, b):
        if not np.all(op(a, b)):
            _fail(message, what, [("x", a), ("y", b)], summarize)
    return run_check(check, x, y)


def assert_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                 name: str | None = None) -> Any:
    """Check that ``x == y`` holds for every element (broadcasting).

    >>> import finegrad as fg
    >>> fg.debugging.assert_equal(fg.constant([1, 2]), [1, 2])
    >>> fg.debugging.assert_equal(fg.constant(1), 2)
    Traceback (most recent call last):
    ...
    finegrad._src.errors.InvalidArgumentError: Condition x == y did not hold...

    Raises:
        InvalidArgumentError: when some element differs (eagerly).
    """
    return _compare(x, y, np.equal, "x == y", message, summarize)


def assert_none_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                      name: str | None = None) -> Any:
    """Check that ``x != y`` holds for every element.

    >>> import finegrad as fg
    >>> fg.debugging.assert_none_equal(fg.constant([1, 2]), 0)
    """
    return _compare(x, y, np.not_equal, "x != y", message, summarize)


def assert_less(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                name: str | None = None) -> Any:
    """Check that ``x < y`` holds for every element.

    >>> import finegrad as fg
    >>> fg.debugging.assert_less(fg.constant([1., 2.]), 3.)
    """
    return _compare(x, y, np.less, "x < y", message, summarize)


def assert_less_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                      name: str | None = None) -> Any:
    """Check that ``x <= y`` holds for every element.

    >>> import finegrad as fg
    >>> fg.debugging.assert_less_equal(fg.constant([1., 3.]), 3.)
    """
    return _compare(x, y, np.less_equal, "x <= y", message, summarize)


def assert_greater(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                   name: str | None = None) -> Any:
    """Check that ``x > y`` holds for every element.

    >>> import finegrad as fg
    >>> fg.debugging.assert_greater(fg.constant([1., 2.]), 0.)
    """
    return _compare(x, y, np.greater, "x > y", message, summarize)


def assert_greater_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                         name: str | None = None) -> Any:
    """Check that ``x >= y`` holds for every element.

    >>> import finegrad as fg
    >>> fg.debugging.assert_greater_equal(fg.constant([0., 2.]), 0.)
    """
    return _compare(x, y, np.greater_equal, "x >= y", message, summarize)


def assert_positive(x: TensorLike, message: Any = None, summarize: Any = None,
                    name: str | None = None) -> Any:
    """Check that every element of ``x`` is > 0.

    >>> import finegrad as fg
    >>> fg.debugging.assert_positive(fg.constant([1., 2.]))
    """
    return _compare(x, 0, np.greater, "x > 0", message, summarize)


def assert_non_negative(x: TensorLike, message: Any = None, summarize: Any = None,
                        name: str | None = None) -> Any:
    """Check that every element of ``x`` is >= 0.

    >>> import finegrad as fg
    >>> fg.debugging.assert_non_negative(fg.constant([0., 2.]))
    """
    return _compare(x, 0, np.greater_equal, "x >= 0", message, summarize)


def assert_negative(x: TensorLike, message: Any = None, summarize: Any = None,
                    name: str | None = None) -> Any:
    """Check that every element of ``x`` is < 0.

    >>> import finegrad as fg
    >>> fg.debugging.assert_negative(fg.constant([-1.]))
    """
    return _compare(x, 0, np.less, "x < 0", message, summarize)


def assert_non_positive(x: TensorLike, message: Any = None, summarize: Any = None,
                        name: str | None = None) -> Any:
    """Check that every element of ``x`` is <= 0.

    >>> import finegrad as fg
    >>> fg.debugging.assert_non_positive(fg.constant([0., -1.]))
    """
    return _compare(x, 0, np.less_equal, "x <= 0", message, summarize)


def assert_near(x: TensorLike, y: TensorLike, rtol: Any = None, atol: Any = None,
                message: Any = None, summarize: Any = None, name: str | None = None) -> Any:
    """Check that ``|x - y| <= atol + rtol * |y|`` for every element.

    ``rtol`` and ``atol`` default to 10 times the dtype's machine epsilon, as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.debugging.assert_near(fg.constant(1.), 1. + 1e-7)
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype) if not hasattr(y, "dtype") else convert_to_tensor(y)
    eps = np.finfo(x.dtype._np).eps if np.dtype(x.dtype._np).kind in "fc" else 0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol

    def check(a, b):
        if not np.all(np.abs(a - b) <= atol + rtol * np.abs(b)):
            _fail(message, f"x and y within tolerance rtol={rtol} atol={atol}",
                  [("x", a), ("y", b)], summarize)
    return run_check(check, x, y)


def _static_rank(x):
    return len(convert_to_tensor(x).shape)


def assert_rank(x: TensorLike, rank: Any, message: Any = None, name: str | None = None) -> Any:
    """Check that ``x`` has ``rank`` dimensions.

    >>> import finegrad as fg
    >>> fg.debugging.assert_rank(fg.zeros((2, 3)), 2)

    Raises:
        ValueError: when the rank differs.
    """
    got = _static_rank(x)
    if got != int(rank):
        raise ValueError(f"{message + ': ' if message else ''}tensor must have rank {int(rank)}; "
                         f"received rank {got}, shape {convert_to_tensor(x).shape}")
    return no_op()


def assert_rank_at_least(x: TensorLike, rank: Any, message: Any = None,
                         name: str | None = None) -> Any:
    """Check that ``x`` has at least ``rank`` dimensions.

    >>> import finegrad as fg
    >>> fg.debugging.assert_rank_at_least(fg.zeros((2, 3)), 1)
    """
    got = _static_rank(x)
    if got < int(rank):
        raise ValueError(f"{message + ': ' if message else ''}tensor must have rank at least "
                         f"{int(rank)}; received rank {got}")
    return no_op()


def assert_scalar(tensor: TensorLike, message: Any = None, name: str | None = None) -> None:
    """Check that ``tensor`` is a scalar (rank 0).

    >>> import finegrad as fg
    >>> fg.debugging.assert_scalar(fg.constant(1.))
    """
    assert_rank(tensor, 0, message)


def assert_type(tensor: TensorLike, tf_type: Any, message: Any = None,
                name: str | None = None) -> Any:
    """Check that ``tensor`` has dtype ``tf_type``.

    >>> import finegrad as fg
    >>> fg.debugging.assert_type(fg.constant(1.), fg.float32)

    Raises:
        TypeError: when the dtype differs.
    """
    want = dtypes.as_dtype(tf_type)
    got = convert_to_tensor(tensor).dtype
    if got != want:
        raise TypeError(f"{message + ': ' if message else ''}tensor must be of type "
                        f"{want.name}; got {got.name}")
    return no_op()


def _match_spec(shape, spec, symbols, i):
    spec = list(spec)
    if spec[:1] in (["..."], ["*"]):
        spec = spec[1:]
        shape = shape[len(shape) - len(spec):] if len(spec) <= len(shape) else None
    if shape is None or len(shape) != len(spec):
        raise ValueError(f"finegrad.debugging.assert_shapes: tensor {i} has shape {shape}, "
                         f"which does not match the rank of {tuple(spec)}")
    for size, want in zip(shape, spec, strict=True):
        if isinstance(want, str):
            want = symbols.setdefault(want, size)
        if want is not None and size is not None and size != want:
            raise ValueError(f"finegrad.debugging.assert_shapes: tensor {i} has shape "
                             f"{tuple(shape)}, which does not match {tuple(spec)} "
                             f"(with {symbols})")


def assert_shapes(shapes: Any, data: Any = None, summarize: Any = None, message: Any = None,
                  name: str | None = None) -> Any:
    """Check tensors' shapes against specs whose string entries must agree across tensors.

    ``shapes`` is a list of ``(tensor, spec)`` pairs (or a dict's items); a spec lists an int,
    None (any size) or a symbol per axis, and may start with ``"..."`` for any leading axes.

    >>> import finegrad as fg
    >>> x, y = fg.zeros((4, 3)), fg.zeros((3,))
    >>> fg.debugging.assert_shapes([(x, ("N", "D")), (y, ("D",))])

    Raises:
        ValueError: when a shape does not match, or a symbol takes two sizes.
    """
    pairs = shapes.items() if isinstance(shapes, dict) else shapes
    symbols: dict = {}
    for i, (x, spec) in enumerate(pairs):
        _match_spec(tuple(convert_to_tensor(x).shape), spec, symbols, i)
    return no_op()


def Assert(condition: TensorLike, data: Any,  # TensorFlow's name
           summarize: Any = None, name: str | None = None) -> Any:
    """Check that ``condition`` is true; else raise, showing the tensors in ``data``.

    >>> import finegrad as fg
    >>> fg.debugging.Assert(fg.constant(True), ["never shown"])

    Raises:
        InvalidArgumentError: when ``condition`` is false (eagerly; in a graph, when it
            runs).
    """
    data = list(data)
    shown = [k for k, d in enumerate(data) if not isinstance(d, str)]

    def check(cond, *values):
        if not bool(np.all(cond)):
            texts = list(data)
            for k, v in zip(shown, values, strict=True):
                texts[k] = _summary(v, summarize)
            raise InvalidArgumentError("assertion failed: [" + "] [".join(texts) + "]")
    return run_check(check, condition, *[data[k] for k in shown])


def check_numerics(tensor: Any, message: Any, name: str | None = None) -> Any:
    """``tensor`` itself, after checking that it holds no NaN or infinity.

    >>> import finegrad as fg
    >>> fg.debugging.check_numerics(fg.constant([1., 2.]), "x").numpy()
    array([1., 2.], dtype=float32)

    Raises:
        InvalidArgumentError: when ``tensor`` holds a NaN or an infinity (eagerly; in a
            graph, when it runs).
    """
    t = convert_to_tensor(tensor)
    if not t.dtype.is_differentiable:
        return tensor if hasattr(type(tensor), "_as_tensor") else t
    return check_numerics_of(t, str(message))


def ensure_shape(x: TensorLike, shape: Any, name: str | None = None) -> Tensor:
    """``x`` itself, after checking its shape against ``shape`` (None matches any size).

    >>> import finegrad as fg
    >>> fg.ensure_shape(fg.zeros((2, 3)), [None, 3]).shape
    TensorShape([2, 3])

    Raises:
        InvalidArgumentError: when the shapes are incompatible.
    """
    t = convert_to_tensor(x)
    want = as_shape(shape)
    have = TensorShape(tuple(t.shape))
    if not have.is_compatible_with(want):
        raise InvalidArgumentError(f"Shape of tensor {have} is not compatible with expected "
                                   f"shape {want}.")
    return t


def identity_n(input: Any,  # TensorFlow's keyword
               name: str | None = None) -> list[Tensor]:
    """Each tensor of the list ``input`` passed through `finegrad.identity`.

    >>> import finegrad as fg
    >>> [t.numpy() for t in fg.identity_n([fg.constant(1.), fg.constant([2, 3])])]
    [np.float32(1.0), array([2, 3], dtype=int32)]
    """
    return [identity(t) for t in input]


def assert_all_finite(x: TensorLike, message: Any, name: str | None = None) -> Tensor:
    """``x`` itself, after checking that it holds no NaN or infinity (`check_numerics`).

    >>> import finegrad as fg
    >>> float(fg.debugging.assert_all_finite(fg.constant(1.), "t"))
    1.0

    Raises:
        InvalidArgumentError: when ``x`` holds a NaN or an infinity (eagerly).
    """
    checked = check_numerics(x, message)
    # (eagerly TensorFlow gives ``x`` itself back; in a graph, the checked tensor, so that a
    # TF1 session fetching it runs the check)
    return x if core.current_tracer() is None and isinstance(x, Tensor) else checked


def assert_integer(x: TensorLike, message: Any = None, name: str | None = None) -> Any:
    """Check that ``x`` has an integer dtype (a static check, eagerly and traced alike).

    >>> import finegrad as fg
    >>> fg.debugging.assert_integer(fg.constant([1, 2]))

    Raises:
        TypeError: when ``x``'s dtype is not an integer one.
    """
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"{message + ': ' if message else ''}finegrad.debugging.assert_integer: "
                        f"expected x to be of an integer dtype, got {t.dtype.name}")
    return no_op()


def assert_rank_in(x: TensorLike, ranks: Any, message: Any = None, name: str | None = None) -> Any:
    """Check that ``x``'s rank is one of ``ranks`` (a static check).

    >>> import finegrad as fg
    >>> fg.debugging.assert_rank_in(fg.zeros((2, 3)), [1, 2])

    Raises:
        ValueError: when the rank is not among ``ranks``.
        TypeError: when ``ranks`` is not a list or tuple of integers.
    """
    if not isinstance(ranks, (list, tuple)) or not all(
            isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in ranks):
        raise TypeError(f"finegrad.debugging.assert_rank_in: ranks must be a list or tuple of "
                        f"integers, got {ranks!r:.60}")
    t = convert_to_tensor(x)
    got = len(t.shape)
    if got not in [int(r) for r in ranks]:
        raise ValueError(f"{message + ': ' if message else ''}finegrad.debugging.assert_rank_in: "
                         f"tensor must have rank in {tuple(int(r) for r in ranks)}; received "
                         f"rank {got}, shape {tuple(t.shape)}")
    return no_op()


def assert_same_float_dtype(tensors: Any = None, dtype: DTypeLike | None = None) -> DType:
    """The one floating dtype of ``tensors`` (a list; None entries are skipped) and ``dtype``,
    after checking that they agree; float32 when neither gives one.

    >>> import finegrad as fg
    >>> fg.debugging.assert_same_float_dtype([fg.constant(1.), fg.constant([2.])])
    finegrad.float32

    Raises:
        ValueError: when the dtypes differ, or the dtype found is not floating point (as
            TensorFlow).
    """
    fn = "finegrad.debugging.assert_same_float_dtype"
    want = None if dtype is None else dtypes.as_dtype(dtype)
    for t in tensors or ():
        if t is None:
            continue
        got = convert_to_tensor(t).dtype
        if want is None:
            want = got
        elif got != want:
            raise ValueError(f"{fn}: a tensor of dtype {got.name} must be of the same dtype as "
                             f"the others ({want.name})")
    if want is None:
        return dtypes.float32
    if not want.is_floating:
        raise ValueError(f"{fn}: expected a floating point dtype, got {want.name}")
    return want


def is_numeric_tensor(tensor: TensorLike) -> bool:
    """Whether ``tensor`` is a finegrad tensor of a numeric dtype (integer, float or complex;
    not bool nor string). Variables, NumPy arrays and Python numbers are not tensors here,
    as in TensorFlow.

    >>> import finegrad as fg
    >>> fg.debugging.is_numeric_tensor(fg.constant(1)), fg.debugging.is_numeric_tensor(True)
    (True, False)
    """
    return isinstance(tensor, Tensor) and tensor.dtype._np.kind in "iufc"


class _NumericsCheck(core.Recorder):
    """The recorder `enable_check_numerics` adds to this thread's stack: every op's float
    and complex outputs are looked at, and a nan or an infinity raises. Being a recorder, it
    costs nothing while disabled (`bind`'s path without recorders is unchanged); while
    enabled, `finegrad.function` graphs are replayed op by op so that each op is checked."""

    def record(self, prim, ins, params, out):
        outs = out if prim.multiple_results else (out,)
        for i, o in enumerate(outs):
            a = np.asarray(o._value)
            if a.dtype.kind in "fc" and not np.isfinite(a).all():
                _numerics_error(prim, i, len(outs), a, ins)


def _numerics_error(prim, i, n, a, ins):
    counts = [(what, int(np.count_nonzero(test))) for what, test in (
        ("-Inf", np.isneginf(a.real)), ("+Inf", np.isposinf(a.real)), ("NaN", np.isnan(a)))]
    shown = ", ".join(f"# of {what} elements: {c}" for what, c in counts if c)
    inputs = "; ".join(f"{t.dtype.name}{list(np.shape(t._value))}" for t in ins)
    raise InvalidArgumentError(
        f"finegrad.debugging.enable_check_numerics: detected Infinity or NaN in output {i} of "
        f"op {prim.name!r} (# of outputs: {n}): dtype {a.dtype.name}, shape {a.shape}, "
        f"{shown}; inputs: {inputs or 'none'}")


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """From now on, on this thread, every op whose float or complex output holds a nan or an
    infinity raises `finegrad.errors.InvalidArgumentError` naming the op, eagerly and when a
    `finegrad.function` runs (its graph then runs op by op), and in gradient computations.
    (TensorFlow skips ops that only move data, such as Identity or Reshape; finegrad checks
    every op, so it may raise at the first op that touches an existing nan.) Calling it again
    does nothing; `disable_check_numerics` ends it.

    >>> import finegrad as fg
    >>> fg.debugging.enable_check_numerics()
    >>> fg.math.log(fg.constant(0.))
    Traceback (most recent call last):
    ...
    finegrad._src.errors.InvalidArgumentError: finegrad.debugging.enable_check_numerics: ...
    >>> fg.debugging.disable_check_numerics()
    >>> float(fg.math.log(fg.constant(0.)))
    -inf
    """
    if not any(type(r) is _NumericsCheck for r in core.active_recorders()):
        core.push_recorder(_NumericsCheck())


def disable_check_numerics() -> None:
    """End `enable_check_numerics` on this thread (nothing happens when it is not enabled).

    >>> import finegrad as fg
    >>> fg.debugging.disable_check_numerics()
    """
    for r in core.active_recorders():
        if type(r) is _NumericsCheck:
            core.pop_recorder(r)

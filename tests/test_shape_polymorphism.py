"""One graph for every size of an input_signature's None dimensions.

`finegrad.function(input_signature=[TensorSpec([None, 3])])` traces once and runs the same
graph at any batch size, as TensorFlow does. The table test runs every row of the op table
(tests/op_specs.py) that way: the leading axis of its largest inputs is left open, the function
is traced at the row's size and called at another, and values, gradients taken inside the
trace (`gradients`), gradients through the traced function (an eager tape outside) and
forward-mode tangents through it must match eager finegrad at the new size. A row may only retrace if its op is listed in
`RETRACES` (its graph cannot serve other sizes, and the function says why, with a warning).
"""
import warnings

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest

from op_specs import SPECS

#: rows whose graph keeps the traced sizes, and the reason the warning gives
RETRACES = {
    "reduce_prod": "reduce_prod",
    "function(cond)": "cond",
    "function(while_loop)": "while_loop",
    "tensordot": "tensordot",
    "concat": "concat",
    "tile": "tile",
    "unstack": "unstack along a dynamic axis",
    "sparse_softmax_cross_entropy_with_logits": "dynamic number of classes",
}


def _dynamic_shapes(shapes):
    """Leave the leading axis of the largest-rank inputs open (not where it broadcasts)."""
    top = max(len(s) for s in shapes)
    return [tuple(None if i == 0 and len(s) == top and s[0] > 1 else d
                  for i, d in enumerate(s)) for s in shapes]


def _grow(shape, open_shape, n):
    return tuple(n if o is None else d for d, o in zip(shape, open_shape, strict=True))


CASES = [(spec, shapes) for spec in SPECS for shapes in spec.cases()
         if any(None in s for s in _dynamic_shapes(shapes))]


def _eager(spec, xs):
    with fg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = spec(*xs)
    return y, tape.gradient(y, xs)


def _close(a, b):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec, shapes", CASES,
                         ids=[f"{s.label}-{sh}".replace(" ", "") for s, sh in CASES])
def test_one_graph_serves_other_sizes(spec, shapes):
    open_shapes = _dynamic_shapes(shapes)
    n0 = next(s[0] for s, o in zip(shapes, open_shapes, strict=True) if o and o[0] is None)
    n1 = n0 + 3
    new_shapes = [_grow(s, o, n1) for s, o in zip(shapes, open_shapes, strict=True)]
    xs0 = [fg.constant(a) for a in spec.make_args(shapes, seed=1)]
    xs1 = [fg.constant(a) for a in spec.make_args(new_shapes, seed=2)]
    try:
        y1, g1 = _eager(spec, xs1)
    except (ValueError, IndexError):
        pytest.skip("the row's function is written for its own sizes (fixed indices, masks)")

    @fg.function(input_signature=[fg.TensorSpec(o, fg.float64) for o in open_shapes])
    def f(*xs):
        y = spec(*xs)
        return y, fg.gradients(y, list(xs))

    try:
        f(*xs0)
    except TypeError as e:
        if "NoneType" not in str(e):
            raise
        # as in TensorFlow, x.shape has None for the open axis inside the trace
        pytest.skip("the row computes with x.shape in Python")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with fg.GradientTape() as tape:
            for x in xs1:
                tape.watch(x)
            y, gs = f(*xs1)
        outside = tape.gradient(y, xs1)
        y_again, gs_again = f(*xs1)   # the compiled form for this size
        ts = [fg.constant(a) for a in spec.make_args(new_shapes, seed=3)]
        with fg.autodiff.ForwardAccumulator(xs1, ts) as acc:
            y_fwd, _ = f(*xs1)
        jvp = acc.jvp(y_fwd)
    with fg.autodiff.ForwardAccumulator(xs1, ts) as acc:
        y_eager = spec(*xs1)
    _close(jvp, acc.jvp(y_eager))
    _close(y, y1)
    _close(y_again, y1)
    for a, b, c, d in zip(gs, gs_again, outside, g1, strict=True):
        _close(a, d)
        _close(b, d)
        _close(c, d)
    count = f.experimental_get_tracing_count()
    allowed = [why for key, why in RETRACES.items() if spec.label.startswith(key)]
    if count == 1:
        return
    assert allowed, (f"{spec.label} traced {count} times; the warning said: "
                     f"{[str(w.message) for w in caught]}")
    assert any(why in str(w.message) for w in caught for why in allowed)

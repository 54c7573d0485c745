"""One graph for every size of an input_signature's None dimensions.

`finegrad.function(input_signature=[TensorSpec([None, 3])])` traces once and runs the same
graph at any batch size, as TensorFlow does. The table test runs every row of the op table
(tests/op_specs.py) that way: the leading axis of its largest inputs is left open, the function
is traced at the row's size and called at another, and values, gradients taken inside the
trace (`gradients`), gradients through the traced function (an eager tape outside) and
forward-mode tangents through it must match eager finegrad at the new size. A row may only
retrace if its op is listed in `RETRACES` (its graph cannot serve other sizes, and the function
says why, with a warning).
"""
import warnings

import numpy as np
import pytest

import finegrad as fg

from op_specs import SPECS
from seed_examples import log1pexp

#: rows whose graph keeps the traced sizes, and the reason the warning gives
RETRACES = {
    "reduce_prod": "reduce_prod",
    "cumprod": "cumprod along a dynamic axis",
    "function(cond)": "cond",
    "function(while_loop)": "while_loop",
    "tensordot": "tensordot",
    "concat": "concat",
    "tile": "tile",
    "roll": "roll",
    "pad": "pad",
    "repeat": "repeat",
    "meshgrid": "meshgrid",
    "map_fn": "map_fn over a dynamic axis",   # the loop is unrolled
    "sparse_softmax_cross_entropy_with_logits": "dynamic number of classes",
    # the table opens the filters' leading axis too (kh); the batch axis alone stays open
    # (tests/test_conv.py)
    **{k: "a convolution's spatial or channel axes" for k in (
        "conv1d", "conv2d", "max_pool", "avg_pool")},
    "depthwise_conv2d": "reshape of a tensor with a dynamic axis",
    "reverse_sequence": "reverse_sequence (its positions are fixed)",
    # every axis of its input is a diagonal's length: the identity mask takes the traced size
    "tensor_diag": "linalg.diag over a dynamic axis",
    "tridiagonal_matmul": "pad",   # the shifted neighbours are padded back to M rows
    # tf.signal: the transform's length (and the frame indices) are parameters of the graph
    **{f"signal.{k}": f"finegrad.signal.{k} along a dynamic axis" for k in (
        "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d", "irfft3d", "frame", "dct",
        "overlap_and_add")},
    "signal.fftshift": "roll",
    # tf.image's padding ops pad every axis of the batch (the pad's sizes are graph parameters)
    **{f"image.{k}": "pad" for k in ("pad_to_bounding_box", "resize_with_crop_or_pad",
                                     "sobel_edges")},
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
        for x, y in zip(a, b, strict=True):
            _close(x, y)
        return
    if a is None or b is None:
        assert a is None and b is None
        return
    # a gather's gradient is an IndexedSlices, as TensorFlow's: compare dense values
    a, b = (fg.convert_to_tensor(v) if isinstance(v, fg.IndexedSlices) else v for v in (a, b))
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
    except ValueError as e:   # TensorFlow's unstack along an open axis without num
        if "Cannot infer argument `num`" not in str(e):
            raise
        pytest.skip("as in TensorFlow, the row needs num for an open axis")
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


# ---- what users write ------------------------------------------------------------------------

def _mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return [fg.Variable(rng.normal(size=(4, 8)).astype(np.float32) * 0.5),
            fg.Variable(np.zeros(8, np.float32)),
            fg.Variable(rng.normal(size=(8, 3)).astype(np.float32) * 0.5),
            fg.Variable(np.zeros(3, np.float32))]


def _mlp_step(params, x, labels):
    w1, b1, w2, b2 = params
    with fg.GradientTape() as tape:
        h = fg.nn.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        loss = fg.reduce_mean(fg.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    grads = tape.gradient(loss, params)
    for p, g in zip(params, grads, strict=True):
        p.assign_sub(0.1 * g)
    return loss


def test_training_step_traces_once_for_every_batch_size():
    traced, eager = _mlp_params(), _mlp_params()
    python_runs = []

    @fg.function(input_signature=[fg.TensorSpec([None, 4], fg.float32),
                                  fg.TensorSpec([None], fg.int32)])
    def step(x, labels):
        python_runs.append(x.shape)
        return _mlp_step(traced, x, labels)

    rng = np.random.default_rng(1)
    for n in (8, 3, 1, 8, 5):
        x = fg.constant(rng.normal(size=(n, 4)).astype(np.float32))
        labels = fg.constant(rng.integers(0, 3, size=n).astype(np.int32))
        np.testing.assert_allclose(step(x, labels).numpy(), _mlp_step(eager, x, labels).numpy(),
                                   rtol=1e-6)
        for a, b in zip(traced, eager, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7)
    assert step.experimental_get_tracing_count() == 1
    assert python_runs == [fg.TensorShape([None, 4])]   # side effects once, as in TF


def test_custom_gradient_in_a_graph_for_every_size():
    @fg.function(input_signature=[fg.TensorSpec([None], fg.float32)])
    def dy(x):
        return fg.gradients(log1pexp(x), x)[0]

    @fg.function(input_signature=[fg.TensorSpec([None], fg.float32)])
    def y(x):
        return log1pexp(x)

    for values in ([100.], [100., 0., -3.], [1., 2.]):
        x = fg.constant(values)
        expected = 1 / (1 + np.exp(-np.asarray(values, np.float64)))
        np.testing.assert_allclose(dy(x).numpy(), expected, rtol=1e-6)
        with fg.GradientTape() as tape:     # through the traced function, from outside
            tape.watch(x)
            out = y(x)
        np.testing.assert_allclose(tape.gradient(out, x).numpy(), expected, rtol=1e-6)
    assert dy.experimental_get_tracing_count() == 1
    assert y.experimental_get_tracing_count() == 1


def test_static_shape_is_none_and_finegrad_shape_is_the_size():
    seen = []

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def f(x):
        seen.append((x.shape, x.shape.as_list(), x.shape.num_elements()))
        return fg.shape(x), fg.size(x), fg.reduce_sum(x) / fg.cast(fg.shape(x)[0], fg.float32)

    for n in (2, 5):
        s, k, mean_row = f(fg.ones((n, 3)))
        np.testing.assert_array_equal(s.numpy(), [n, 3])
        assert k.numpy() == 3 * n
        assert mean_row.numpy() == 3.0
    assert seen == [(fg.TensorShape([None, 3]), [None, 3], None)]


def test_printed_graph_shows_the_open_dimension():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def f(x):
        return fg.reduce_mean(fg.tanh(x), axis=1)

    text = str(f.get_concrete_function().graph)
    assert text.splitlines()[0] == "def f(x: float32[None,3]):"
    assert "tanh(x)" in text and "# float32[None,3]" in text
    assert "# float32[None]" in text      # the mean over the fixed axis keeps the open one


def test_a_graph_that_bakes_a_size_retraces_and_names_the_op():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float64)])
    def f(x):   # (a DCT's length is fixed: it bakes the size)
        y = fg.signal.idct(fg.signal.dct(fg.transpose(x), norm="ortho"), norm="ortho")
        return fg.transpose(y) * 2.

    x2 = fg.constant(np.arange(1., 7.).reshape(2, 3))
    x4 = fg.constant(np.arange(1., 13.).reshape(4, 3))
    f(x2)
    with pytest.warns(UserWarning, match="dct"):
        g = f(x4)
    np.testing.assert_allclose(g.numpy(), 2 * x4.numpy(), rtol=1e-12)
    assert f.experimental_get_tracing_count() == 2


def test_the_gradient_of_reduce_prod_serves_other_sizes():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float64)])
    def f(x):
        return fg.gradients(fg.reduce_prod(x), x)[0]

    for n in (2, 4, 3):
        x = np.arange(1., 3 * n + 1).reshape(n, 3)
        np.testing.assert_allclose(f(fg.constant(x)).numpy(), np.prod(x) / x, rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_reshape_to_a_fixed_shape_is_not_reused_but_minus_one_is():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def flat_fixed(x):
        return fg.reshape(x, (6,))

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def flat(x):
        return fg.reshape(x, (-1,))

    np.testing.assert_array_equal(flat_fixed(fg.ones((2, 3))).numpy(), np.ones(6))
    with pytest.warns(UserWarning, match="fixed shape"):
        with pytest.raises(ValueError, match="reshape"):
            flat_fixed(fg.ones((4, 3)))     # traced again, and (6,) is wrong for 12 elements
    for n in (2, 4, 7):
        np.testing.assert_array_equal(flat(fg.ones((n, 3))).numpy(), np.ones(3 * n))
    assert flat.experimental_get_tracing_count() == 1


def test_sizes_that_do_not_broadcast_are_a_value_error_naming_the_op():
    @fg.function(input_signature=[fg.TensorSpec([None], fg.float32),
                                  fg.TensorSpec([None], fg.float32)])
    def f(x, y):
        return x * y

    np.testing.assert_array_equal(f(fg.ones(2), fg.ones(2)).numpy(), [1., 1.])
    np.testing.assert_array_equal(f(fg.ones(1), fg.ones(3)).numpy(), [1., 1., 1.])  # broadcasts
    with pytest.raises(ValueError, match="finegrad.multiply: incompatible inputs"):
        f(fg.ones(2), fg.ones(3))


def test_concrete_function_from_a_signature_serves_every_size():
    @fg.function
    def f(x):
        return fg.reduce_sum(x * x, axis=-1)

    conc = f.get_concrete_function(fg.TensorSpec([None, 2], fg.float32))
    for n in (1, 3, 6):
        np.testing.assert_array_equal(conc(fg.ones((n, 2))).numpy(), np.full(n, 2.))
    assert f.experimental_get_tracing_count() == 1


def test_reduce_retracing_opens_the_sizes_that_changed():
    traces = []

    @fg.function(reduce_retracing=True)
    def f(x, k):
        traces.append((x.shape, k))
        return fg.reduce_sum(x * x, axis=-1) * k

    for n in (2, 3, 4, 7):
        np.testing.assert_array_equal(f(fg.ones((n, 3)), 2).numpy(), np.full(n, 6.))
    np.testing.assert_array_equal(f(fg.ones((2, 3)), 3).numpy(), [9., 9.])  # new Python value
    assert traces == [(fg.TensorShape([2, 3]), 2), (fg.TensorShape([None, 3]), 2),
                      (fg.TensorShape([2, 3]), 3)]

    @fg.function
    def g(x):
        return fg.reduce_sum(x)
    for n in (2, 3, 4):
        g(fg.ones(n))
    assert g.experimental_get_tracing_count() == 3    # without it: one graph per shape


def test_jacobian_and_unconnected_zeros_inside_a_graph_with_an_open_axis():
    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float64)])
    def f(x):
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = fg.reduce_sum(fg.tanh(x), axis=0)
        unconnected = fg.gradients(fg.reduce_sum(y), [x, fg.zeros_like(x)],
                                   unconnected_gradients="zero")[1]
        return tape.jacobian(y, x), unconnected

    for n in (2, 4):
        x = fg.constant(np.linspace(-1., 1., 3 * n).reshape(n, 3))
        if n == 2:
            jac, zeros = f(x)
        else:   # a Jacobian's shape is the open size: that graph is kept per size, and says so
            with pytest.warns(UserWarning, match="Jacobian"):
                jac, zeros = f(x)
        expected = np.zeros((3, n, 3))
        for j in range(3):
            expected[j, :, j] = 1 - np.tanh(x.numpy()[:, j]) ** 2
        np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-12)
        np.testing.assert_array_equal(zeros.numpy(), np.zeros((n, 3)))


def test_a_new_size_under_a_tape_assigns_once():
    # the first call at a new size under a tape used to run the graph once to specialize it
    # and once more to record it: its assignments ran twice
    steps = fg.Variable(0)

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float32)])
    def f(x):
        steps.assign_add(1)
        return x * 2.

    with fg.GradientTape():
        f(np.ones((2, 3), np.float32))
    assert int(steps.numpy()) == 1
    f(np.ones((4, 3), np.float32))
    assert int(steps.numpy()) == 2


def test_range_with_a_traced_delta():
    """``range(0, 10, tf.shape(x)[0])`` under a None dimension: each call's step (it raised
    TypeError: a Python bool of a traced tensor); a zero step is TensorFlow's error."""
    f = fg.function(lambda x: fg.range(0, 10, fg.shape(x)[0]),
                    input_signature=[fg.TensorSpec([None])])
    np.testing.assert_array_equal(f(fg.ones(3)).numpy(), [0, 3, 6, 9])
    np.testing.assert_array_equal(f(fg.ones(4)).numpy(), [0, 4, 8])
    with pytest.raises(fg.errors.InvalidArgumentError, match=r"Requires delta != 0: 0"):
        f(fg.ones(0))
    with pytest.raises(fg.errors.InvalidArgumentError, match=r"Requires delta != 0: 0"):
        fg.range(0, 5, 0)

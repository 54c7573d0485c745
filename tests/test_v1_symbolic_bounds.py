"""``range`` with a start, a delta or a size that may be negative, ``eye``, ``linspace`` and
slice bounds (``x[:b - 1]``, ``tf.slice``, ``strided_slice`` with tensor bounds) of a
symbolic size ``b = tf.shape(x)[0]``: one TF1 graph, and one `finegrad.function` trace under
an input_signature with a None dimension, serve every fed size (0 and 1 included) with
TensorFlow 2.21's values and gradients, compared live (``tf.compat.v1`` graphs and
sessions, ``tf.function``)."""
import warnings

import numpy as np
import pytest

import finegrad as fg


def _f64(lib, t):
    return lib.cast(t, lib.float64)


CASES = {   # name: (build(lib, x, b), differentiable in x)
    "range_start": (lambda lib, x, b: lib.gather(x, lib.range(1, b)), True),
    "range_delta": (lambda lib, x, b: lib.gather(x, lib.range(0, b, 2)), True),
    "range_reversed": (lambda lib, x, b: lib.gather(x, lib.range(b - 1, -1, -1)), True),
    "range_maybe_negative": (lambda lib, x, b: lib.range(b - 2), False),
    "range_start_and_delta": (lambda lib, x, b: lib.range(b, 3 * b + 1, 3), False),
    "range_delta_three": (lambda lib, x, b: lib.range(1, b * 2, 3), False),
    "range_float_dtype": (lambda lib, x, b: lib.range(1, b, dtype=lib.float64), False),
    "eye": (lambda lib, x, b: lib.matmul(lib.eye(b, dtype=lib.float64), x * 2.), True),
    "eye_columns": (lambda lib, x, b: lib.matmul(lib.transpose(x),
                                                 lib.eye(b, 4, dtype=lib.float64)), True),
    "eye_rows_fixed": (lambda lib, x, b: lib.eye(3, b, dtype=lib.int32), False),
    "eye_batch": (lambda lib, x, b: lib.eye(b, batch_shape=[2]), False),
    "linspace": (lambda lib, x, b: lib.linspace(lib.reduce_sum(x[:, 0]),
                                                lib.reduce_sum(x[:, 1]) + 1., b), True),
    "linspace_plus_one": (lambda lib, x, b: lib.linspace(lib.reduce_sum(x) - 1., 2., b + 1),
                          True),
    "slice_stop": (lambda lib, x, b: x[:b - 1] * 3., True),
    "slice_start": (lambda lib, x, b: x[1:b], True),
    "slice_both": (lambda lib, x, b: x[1:b - 1] - 1., True),
    "slice_bound_of_either_sign": (lambda lib, x, b: x[1 - b:], True),
    "slice_step": (lambda lib, x, b: x[:b - 1:2], True),
    "slice_bound_floordiv": (lambda lib, x, b: x[:(b - 3) // 2] + 1., True),   # sign unknown
    "slice_start_floordiv": (lambda lib, x, b: x[(b - 5) // 3:], True),
    "slice_reversed_from": (lambda lib, x, b: x[b - 2::-1], True),
    "slice_reversed_to": (lambda lib, x, b: x[:b // 2:-1] * 2., True),
    "slice_reversed_both": (lambda lib, x, b: x[b - 1:1 - b:-2], True),
    "slice_reversed_fixed_start": (lambda lib, x, b: x[2:(b - 4) // 2:-1], True),
    "slice_inner_axis": (lambda lib, x, b: lib.transpose(x)[:, b // 2:], True),
    "slice_fixed_axis": (lambda lib, x, b: x[:, :b], True),
    "tf_slice": (lambda lib, x, b: lib.slice(x, [0, 0], [b - 1, -1]), True),
    "tf_slice_begin": (lambda lib, x, b: lib.slice(x, [b // 2, 1], [-1, 2]), True),
    "tf_slice_stacked": (lambda lib, x, b: lib.slice(x, lib.stack([1, 0]),
                                                     lib.stack([b - 1, 2])), True),
    "strided_slice": (lambda lib, x, b: lib.strided_slice(x, [1, 0], [b, 3]), True),
    "strided_slice_step": (lambda lib, x, b: lib.strided_slice(x, [0, 0], [b - 1, 3], [2, 1]),
                           True),
    "strided_slice_stacked": (lambda lib, x, b: lib.strided_slice(
        x, lib.stack([b // 3, 0]), lib.stack([b, 2])), True),
    "split_sizes_tensor": (lambda lib, x, b: lib.split(x, lib.stack([1, b - 1]))[1] * 2., True),
    "split_sizes_list": (lambda lib, x, b: lib.concat(lib.split(x, [b - 1, 1])[::-1], 0),
                         True),
    "split_rest": (lambda lib, x, b: lib.split(x, [b // 2, -1])[1], True),
    "split_equal_inner": (lambda lib, x, b: lib.split(lib.transpose(x), 3, axis=0)[2], True),
    "split_equal_open": (lambda lib, x, b: lib.split(lib.concat([x, x], 0), 2)[1], True),
    "tile_open_axis": (lambda lib, x, b: lib.tile(x, [2, 2]), True),
    "tile_by_the_size": (lambda lib, x, b: lib.tile(lib.reduce_sum(x, 0, keepdims=True),
                                                    lib.stack([b, 1])) * x, True),
    "frame": (lambda lib, x, b: lib.signal.frame(lib.transpose(x), 2, 1), True),
    "frame_step_three": (lambda lib, x, b: lib.signal.frame(x, 3, 2, axis=0) * 2., True),
    "frame_pad_end": (lambda lib, x, b: lib.signal.frame(lib.transpose(x), 3, 2, pad_end=True,
                                                         pad_value=0.5), True),
    "stft": (lambda lib, x, b: lib.math.imag(lib.signal.stft(lib.transpose(x), 3, 1, 4)), True),
    "stft_pad_end": (lambda lib, x, b: lib.math.real(lib.signal.stft(
        lib.transpose(x), 2, 2, 4, pad_end=True)), True),
    "overlap_and_add": (lambda lib, x, b: lib.signal.overlap_and_add(x, 2), True),
    "overlap_and_add_gaps": (lambda lib, x, b: lib.signal.overlap_and_add(x * x, 4), True),
    "overlap_and_add_step_one": (lambda lib, x, b: lib.signal.overlap_and_add(
        lib.stack([x, lib.sin(x)]), 1), True),
    "inverse_stft": (lambda lib, x, b: lib.signal.inverse_stft(
        lib.signal.stft(lib.transpose(x), 3, 1, 4), 3, 1, 4), True),
    "inverse_stft_window": (lambda lib, x, b: lib.signal.inverse_stft(
        lib.signal.stft(lib.reshape(x, [-1]), 4, 2, 4), 4, 2, 4,
        window_fn=lib.signal.inverse_stft_window_fn(2)), True),
    "reverse_sequence": (lambda lib, x, b: lib.reverse_sequence(x, [2, 0, 1], seq_axis=0,
                                                                batch_axis=1), True),
    "reverse_sequence_inner": (lambda lib, x, b: lib.reverse_sequence(
        lib.stack([x, lib.sin(x)]), [1, 0], seq_axis=1, batch_axis=0), True),
    "reverse_sequence_last": (lambda lib, x, b: lib.reverse_sequence(
        lib.transpose(x), [0, 1, 0], seq_axis=1, batch_axis=0) * 3., True),
}
SIZES = (4, 7, 1, 0, 2, 5)


def _feed(n):
    return np.linspace(-1.5, 2., 3 * n).reshape(n, 3) if n else np.zeros((0, 3))


def _loss(lib, y):
    return lib.reduce_sum(lib.sin(_f64(lib, y)))


def _outcome(run):
    """What ``run()`` gives: its values, or the name of the error class it raises (TensorFlow's
    InvalidArgumentError where a fed size does not fit)."""
    try:
        return run()
    except Exception as e:   # compared by class name with TensorFlow's
        if type(e).__name__ != "InvalidArgumentError":
            raise
        return "InvalidArgumentError"


def _graph_run(lib, case):
    build, diff = CASES[case]
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        x = v1.placeholder(lib.float64, [None, 3])
        y = build(lib, x, lib.shape(x)[0])
        fetch = [y] + ([lib.convert_to_tensor(v1.gradients(_loss(lib, y), [x])[0])] if diff
                       else [])
        with v1.Session() as sess:
            return [_outcome(lambda n=n: sess.run(fetch, {x: _feed(n)})) for n in SIZES]


def _function_run(lib, case):
    """Per size: its outcome and how many traces it took (0: the first graph served it)."""
    build, diff = CASES[case]
    traces = []

    def f(x):
        traces.append(1)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = build(lib, x, lib.shape(x)[0])
            loss = _loss(lib, y)
        return [y] + ([lib.convert_to_tensor(tape.gradient(loss, x))] if diff else [])

    f = lib.function(f, input_signature=[lib.TensorSpec([None, 3], lib.float64)])
    out = []
    for n in SIZES:
        known = len(traces)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a retrace's warning (a size that raises)
            res = _outcome(lambda n=n: [t.numpy() for t in f(lib.constant(_feed(n)))])
        out.append((res, len(traces) - known))
    return out


def _same(ours, theirs):
    assert [r if isinstance(r, str) else "ok" for r in ours] == \
        [r if isinstance(r, str) else "ok" for r in theirs]
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(a, str):
            continue
        for u, v in zip(a, b, strict=True):
            assert np.shape(u) == np.shape(v)
            assert np.asarray(u).dtype == np.asarray(v).dtype
            np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_tf1_graph_serves_every_fed_size_as_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    _same(_graph_run(fg, case), _graph_run(tf, case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_function_trace_serves_every_size_as_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    ours = _function_run(fg, case)
    _same([r for r, _ in ours], [r for r, _ in _function_run(tf, case)])
    served = [k for r, k in ours if not isinstance(r, str)]
    assert sum(served) == 1 and served[0] == 1   # one trace, at the first call, served all


def test_linspace_endpoints_are_exact_and_one_value_is_start():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None])
        y = fg.linspace(0.1, 0.7, fg.shape(x)[0])
        with v1.Session() as sess:
            for n in (2, 3, 7, 1, 0):
                got = sess.run(y, {x: np.zeros(n, np.float32)})
                assert got.dtype == np.float32 and got.shape == (n,)
                if n:
                    assert got[0] == np.float32(0.1)
                if n > 1:
                    assert got[-1] == np.float32(0.7)


def test_a_negative_symbolic_eye_size_is_invalid_argument():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None])
        y = fg.eye(fg.shape(x)[0] - 2)
        with v1.Session() as sess:
            assert sess.run(y, {x: np.zeros(5)}).shape == (3, 3)
            with pytest.raises(fg.errors.InvalidArgumentError, match="must be >= 0, got -1"):
                sess.run(y, {x: np.zeros(1)})


def test_tf_slice_past_the_end_of_a_fed_size_is_invalid_argument():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        b = fg.shape(x)[0]
        with pytest.raises(fg.errors.InvalidArgumentError, match="finegrad.slice"):
            fg.slice(x, [2, 0], [b - 1, -1])   # 2 + (b - 1) <= b: never (TF: when it runs)


@pytest.mark.parametrize("bounds", [(-1,), (1, 0), (0, 5, -1), (3, 3), (5, 0, -2), (0, 7, 3)])
def test_eager_range_refuses_bounds_in_the_wrong_order_as_tensorflow(bounds):
    tf = pytest.importorskip("tensorflow")
    try:
        expected = tf.range(*bounds).numpy()
    except tf.errors.InvalidArgumentError:
        with pytest.raises(fg.errors.InvalidArgumentError, match="Requires start"):
            fg.range(*bounds)
    else:
        np.testing.assert_array_equal(fg.range(*bounds).numpy(), expected)

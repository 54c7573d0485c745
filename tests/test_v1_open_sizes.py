"""Ops along a ``None`` dimension of a placeholder serve every fed size of one TF1 graph (and
one `finegrad.function` graph under an input_signature): ``pad`` (all modes), ``roll``,
``repeat``, ``signal.fftshift`` and the gradient of ``while_loop`` compute their sizes
symbolically instead of keeping the traced one. Values and gradients are compared with
TensorFlow's, feeding two sizes to one graph, and with NumPy without TensorFlow."""
import warnings

import numpy as np
import pytest

import finegrad as fg

CASES = {
    "pad": (lambda lib, x: lib.pad(x, [[1, 2], [0, 1]], constant_values=1.5),
            lambda x: np.pad(x, [[1, 2], [0, 1]], constant_values=1.5)),
    "pad_other_axis": (lambda lib, x: lib.pad(x, [[0, 0], [2, 1]]),
                       lambda x: np.pad(x, [[0, 0], [2, 1]])),
    "pad_reflect": (lambda lib, x: lib.pad(x, [[1, 1], [2, 1]], mode="REFLECT"),
                    lambda x: np.pad(x, [[1, 1], [2, 1]], mode="reflect")),
    "pad_symmetric": (lambda lib, x: lib.pad(x, [[2, 1], [0, 2]], mode="SYMMETRIC"),
                      lambda x: np.pad(x, [[2, 1], [0, 2]], mode="symmetric")),
    "roll": (lambda lib, x: lib.roll(x, 2, 0), lambda x: np.roll(x, 2, 0)),
    "roll_both": (lambda lib, x: lib.roll(x, [-1, 1, 3], [0, 1, 0]),
                  lambda x: np.roll(x, [-1 + 3, 1], [0, 1])),
    "repeat": (lambda lib, x: lib.repeat(x, 3, axis=0), lambda x: np.repeat(x, 3, axis=0)),
    "fftshift": (lambda lib, x: lib.signal.fftshift(x, axes=0),
                 lambda x: np.fft.fftshift(x, axes=0)),
    "while_loop": (lambda lib, x: lib.while_loop(lambda i, a: i < 3,
                                                 lambda i, a: (i + 1, a * 0.5 + lib.sin(a)),
                                                 (0, x))[1],
                   lambda x: _loop(x)),
    "map_fn": (lambda lib, x: lib.map_fn(lambda r: r * lib.sin(r) + lib.reduce_sum(r), x),
               lambda x: x * np.sin(x) + x.sum(1, keepdims=True)),
    "map_fn_nested": (lambda lib, x: lib.map_fn(lambda rs: rs[0] * rs[1][::-1],
                                                (x, lib.sin(x)), fn_output_signature=lib.float64),
                      lambda x: x * np.sin(x)[:, ::-1]),
    "scan": (lambda lib, x: lib.scan(lambda a, r: a * 0.5 + lib.sin(r), x),
             lambda x: _scan(x, x[0], 1)),
    "scan_initializer": (lambda lib, x: lib.scan(lambda a, r: a * lib.cos(r) + r,
                                                 x, initializer=lib.ones([3], lib.float64)),
                         lambda x: _scan(x, np.ones(3), 0, lambda a, r: a * np.cos(r) + r)),
    "scan_reverse": (lambda lib, x: lib.scan(lambda a, r: a * 0.5 + lib.sin(r), x, reverse=True),
                     lambda x: _scan(x[::-1], x[-1], 1)[::-1]),
    "foldl": (lambda lib, x: lib.foldl(lambda a, r: a * lib.cos(r) + r, x,
                                       initializer=lib.ones([3], lib.float64)),
              lambda x: _scan(x, np.ones(3), 0, lambda a, r: a * np.cos(r) + r)[-1]),
    "foldr": (lambda lib, x: lib.foldr(lambda a, r: a * 0.5 + lib.sin(r), x),
              lambda x: _scan(x[::-1], x[-1], 1)[-1]),
    "boolean_mask": (lambda lib, x: lib.boolean_mask(x, x[:, 1] > 0.1),
                     lambda x: x[x[:, 1] > 0.1]),
    "boolean_mask_mean": (lambda lib, x: lib.reduce_mean(lib.boolean_mask(x, x > 0.1), 0,
                                                         keepdims=True) * lib.reshape(x, [-1]),
                          lambda x: x[x > 0.1].mean(0, keepdims=True) * x.reshape(-1)),
}


def _scan(x, a, start, step=lambda a, r: a * 0.5 + np.sin(r)):
    out = [a] if start else []
    for r in x[start:]:
        a = step(a, r)
        out.append(a)
    return np.stack(out)


def _loop(x):
    for _ in range(3):
        x = x * 0.5 + np.sin(x)
    return x
FEEDS = [np.arange(12.).reshape(4, 3) - 5.5, np.arange(21.).reshape(7, 3) / 3 - 2]


def _session_run(lib, build):
    """Values and gradients of ``sum(sin(build(x)))`` for both feeds of one graph."""
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        x = v1.placeholder(lib.float64, [None, 3])
        y = build(lib, x)
        (g,) = v1.gradients(lib.reduce_sum(lib.sin(y)), [x])
        with v1.Session() as sess:
            return [sess.run([y, g], {x: f}) for f in FEEDS]


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_session_graph_serves_two_sizes(case):
    build, reference = CASES[case]
    for (y, g), f in zip(_session_run(fg, build), FEEDS, strict=True):
        np.testing.assert_allclose(y, reference(f), rtol=1e-14)
        # the gradient of sum(sin(op(x))): op is linear, so its VJP applied to cos(op(x))
        assert g.shape == f.shape
        eps, v = 1e-6, np.random.default_rng(0).normal(size=f.shape)
        numeric = (np.sin(reference(f + eps * v)).sum() -
                   np.sin(reference(f - eps * v)).sum()) / (2 * eps)
        np.testing.assert_allclose(np.sum(g * v), numeric, rtol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_session_graph_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    build, _ = CASES[case]
    for ours, theirs in zip(_session_run(fg, build), _session_run(tf, build), strict=True):
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_function_graph_serves_two_sizes(case):
    build, reference = CASES[case]
    traces = []

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float64)])
    def f(x):
        traces.append(1)
        with fg.GradientTape() as tape:
            tape.watch(x)
            y = build(fg, x)
            loss = fg.reduce_sum(fg.sin(y))
        return y, tape.gradient(loss, x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")      # a retrace would warn
        for x in FEEDS + FEEDS[:1]:
            y, _ = f(fg.constant(x))
            np.testing.assert_allclose(y.numpy(), reference(x), rtol=1e-14)
    assert len(traces) == 1


def test_reflect_padding_larger_than_a_run_s_size_is_an_error():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None])
        y = fg.pad(x, [[1, 1]], mode="REFLECT")
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [1., 2., 3.]}), [2., 1., 2., 3., 2.])
            with pytest.raises(fg.errors.InvalidArgumentError):
                sess.run(y, {x: [1.]})


def test_second_order_through_a_while_loop_serves_two_sizes():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None])
        y = fg.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * fg.sin(a)), (0, x))[1]
        (g,) = v1.gradients(fg.reduce_sum(y), [x])
        (h,) = v1.gradients(fg.reduce_sum(g), [x])
        with v1.Session() as sess:
            for f in (np.linspace(0.1, 1., 4), np.linspace(-1., 0.7, 6)):
                eps = 1e-5
                numeric = (sess.run(g, {x: f + eps}) - sess.run(g, {x: f - eps})) / (2 * eps)
                np.testing.assert_allclose(sess.run(h, {x: f}), numeric,
                                           rtol=1e-6, atol=1e-8)


def test_boolean_mask_with_another_count_for_the_same_fed_shape():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None, 3])
        m = fg.boolean_mask(x, x[:, 0] > 0)
        y = fg.reduce_mean(m) + fg.cast(fg.shape(m)[0], fg.float64)
        (g,) = v1.gradients(y, [x])
        feeds = [np.array([[1., 2, 3], [-1, 2, 3], [2, 2, 2], [-3, 0, 0]]),
                 np.array([[1., 2, 3], [1, 2, 5], [2, 2, 2], [-3, 0, 0]]),
                 np.array([[1., 2, 3], [-1, 2, 3], [2, 2, 2], [-3, 0, 0]]), np.ones((6, 3))]
        with v1.Session() as sess:
            for f in feeds:
                keep = f[:, 0] > 0
                value, grad = sess.run([y, g], {x: f})
                np.testing.assert_allclose(value, f[keep].mean() + keep.sum(), rtol=1e-14)
                expected = np.where(keep[:, None], 1 / f[keep].size, 0.) * np.ones(f.shape)
                np.testing.assert_allclose(grad, expected, rtol=1e-14)


def test_boolean_mask_in_a_run_that_assigns_refuses_another_count():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None])
        v = v1.get_variable("v", [], fg.float64, initializer=v1.zeros_initializer())
        total = v1.assign_add(v, fg.reduce_sum(fg.boolean_mask(x, x > 0)))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run(total, {x: [1., -2., 3.]}) == 4.
            with pytest.raises(fg.errors.InvalidArgumentError, match="assigns variables"):
                sess.run(total, {x: [1., 2., 3.]})


def test_a_value_used_as_a_size_while_building_is_checked_by_each_run():
    # range(shape(x)[0]) follows the fed size symbolically (tests/test_v1_dynamic_batch.py);
    # range of a value (reduce_max) is built with the example value: a run feeding another
    # raises (it used to give the built range silently); runs that do not need it are not bound
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        z = v1.placeholder(fg.float32, [None])
        y = fg.cast(fg.range(fg.shape(x)[0]), fg.float32)
        y2 = fg.cast(fg.range(fg.cast(fg.reduce_max(x), fg.int32)), fg.float32)
        w = z * 2.
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: np.ones((2, 3))}), [0., 1.])
            np.testing.assert_array_equal(sess.run(y, {x: np.ones((4, 3))}), [0., 1., 2., 3.])
            np.testing.assert_array_equal(sess.run(w, {z: np.ones(5)}), np.full(5, 2.))
            np.testing.assert_array_equal(sess.run(y2, {x: np.zeros((4, 3))}), [])
            with pytest.raises(fg.errors.InvalidArgumentError, match="range's bounds"):
                sess.run(y2, {x: np.ones((4, 3))})

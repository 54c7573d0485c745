"""`map_fn`, `scan`, `foldl` and `foldr` over a ``None`` axis 0 of a placeholder fed zero rows:
one graph, fed 0, 3 and 5 rows, gives TensorFlow's values and gradients (empty results, the
initializer), and without an initializer TensorFlow's InvalidArgumentError."""
import warnings

import numpy as np
import pytest

import finegrad as fg

CASES = {
    "map_fn": lambda lib, x: lib.map_fn(lambda r: r * lib.sin(r) + lib.reduce_sum(r), x),
    "map_fn_nested": lambda lib, x: lib.map_fn(lambda rs: (rs[0] * 2., rs[1][::-1]),
                                               (x, lib.sin(x)),
                                               fn_output_signature=(lib.float64, lib.float64)),
    "scan_initializer": lambda lib, x: lib.scan(lambda a, r: a * lib.cos(r) + r, x,
                                                initializer=lib.ones([3], lib.float64)),
    "scan_reverse": lambda lib, x: lib.scan(lambda a, r: a * 0.5 + lib.sin(r), x, reverse=True,
                                            initializer=lib.zeros([3], lib.float64) + 2.),
    "foldl": lambda lib, x: lib.foldl(lambda a, r: a * lib.cos(r) + r, x,
                                      initializer=lib.ones([3], lib.float64)),
    "foldr": lambda lib, x: lib.foldr(lambda a, r: (a[0] * lib.cos(r) + r, a[1] + r), x,
                                      initializer=(lib.ones([3], lib.float64),
                                                   lib.zeros([3], lib.float64))),
}
FEEDS = [np.zeros((0, 3)), np.arange(9.).reshape(3, 3) / 4 - 1,
         np.linspace(-2, 2, 15).reshape(5, 3)]


def _session_run(lib, build):
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        x = v1.placeholder(lib.float64, [None, 3])
        y = build(lib, x)
        loss = sum(lib.reduce_sum(lib.sin(t)) for t in lib.nest.flatten(y))
        (g,) = v1.gradients(loss, [x])
        with v1.Session() as sess:
            return [sess.run([y, g], {x: f}) for f in FEEDS]


def _same(a, b):
    for p, q in zip(fg.nest.flatten(a), fg.nest.flatten(b), strict=True):
        assert np.shape(p) == np.shape(q)
        np.testing.assert_allclose(p, q, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("case", sorted(CASES))
def test_zero_rows_and_other_sizes_match_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    for ours, theirs in zip(_session_run(fg, CASES[case]), _session_run(tf, CASES[case]),
                            strict=True):
        _same(ours, theirs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_zero_rows_give_empty_results_or_the_initializer(case):
    (y, g), _, _ = _session_run(fg, CASES[case])
    assert g.shape == (0, 3)
    for t in fg.nest.flatten(y):
        if case.startswith(("foldl", "foldr")):
            assert t.shape == (3,)
        else:
            assert t.shape[0] == 0


def test_function_graph_serves_zero_rows():
    traces = []

    @fg.function(input_signature=[fg.TensorSpec([None, 3], fg.float64)])
    def f(x):
        traces.append(1)
        return (fg.map_fn(fg.sin, x),
                fg.foldl(lambda a, r: a + r, x, initializer=fg.ones([3], fg.float64)))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in FEEDS[1:] + FEEDS[:1]:
            m, s = f(fg.constant(x))
            np.testing.assert_allclose(m.numpy(), np.sin(x))
            np.testing.assert_allclose(s.numpy(), 1 + x.sum(0))
    assert len(traces) == 1


@pytest.mark.parametrize("op", ["scan", "foldl"])
def test_zero_rows_without_initializer_is_invalid_argument(op):
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None, 3])
        y = getattr(fg, op)(lambda a, r: a * 0.5 + fg.sin(r), x)
        with v1.Session() as sess:
            assert sess.run(y, {x: np.ones((2, 3))}).shape[-1] == 3
            with pytest.raises(fg.errors.InvalidArgumentError):
                sess.run(y, {x: np.zeros((0, 3))})

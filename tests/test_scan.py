"""scan, foldl and foldr: values and gradients against TensorFlow (when installed) and
finite differences, nested elems and accumulators, reverse, inside finegrad.function, and the
errors."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

X = np.array([[1., 2.], [3., -4.], [0.5, 6.]])


def _scan_cases(m):
    """(name, function of a tensor x) pairs run in finegrad and TensorFlow alike."""
    return [
        ("scan", lambda x: m.scan(lambda a, e: a * m.sin(e) + e, x)),
        ("scan_rev", lambda x: m.scan(lambda a, e: a * m.sin(e) + e, x, reverse=True)),
        ("scan_nested", lambda x: m.scan(
            lambda a, e: (a[0] + e[0] * a[1], a[1] * e[1]), (x, x[:, 0]),
            initializer=(m.zeros(2, x.dtype), m.constant(1., x.dtype)))[0]),
        ("foldl", lambda x: m.foldl(lambda a, e: a * e + 1., x)),
        ("foldr", lambda x: m.foldr(lambda a, e: a * e + 1., x)),
        ("foldl_init", lambda x: m.foldl(lambda a, e: {"s": a["s"] + m.reduce_sum(e[0] * e[1])},
                                         (x, m.exp(x)),
                                         initializer={"s": m.constant(0., x.dtype)})["s"]),
        ("foldr_init", lambda x: m.foldr(lambda a, e: m.tanh(a) * e, x,
                                         initializer=m.ones(2, x.dtype))),
    ]


@pytest.mark.parametrize("case", range(7))
def test_values_and_gradients_against_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    results = []
    for m in (fg, tf):
        name, f = _scan_cases(m)[case]
        x = m.constant(X)
        with m.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
            s = m.reduce_sum(y * y)
        results.append((y.numpy(), tape.gradient(s, x).numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


@pytest.mark.parametrize("case", range(7))
def test_gradients_finite_differences_eager_and_traced(case):
    _, f = _scan_cases(fg)[case]
    check_gradients(f, [X], order=2, modes=("fwd", "rev"))
    traced = fg.function(f)
    np.testing.assert_allclose(traced(fg.constant(X)).numpy(), f(fg.constant(X)).numpy())
    x = fg.constant(X)
    with fg.GradientTape() as tape:
        tape.watch(x)
        s = fg.reduce_sum(traced(x))
    with fg.GradientTape() as tape2:
        tape2.watch(x)
        s2 = fg.reduce_sum(f(x))
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), tape2.gradient(s2, x).numpy())


def test_closed_forms_and_defaults():
    x = fg.constant([1., 2., 3., 4.])
    np.testing.assert_allclose(fg.scan(lambda a, e: a + e, x).numpy(), np.cumsum([1, 2, 3, 4]))
    np.testing.assert_allclose(fg.scan(lambda a, e: a + e, x, reverse=True).numpy(),
                               [10, 9, 7, 4])
    np.testing.assert_allclose(fg.scan(lambda a, e: a + e, x, initializer=10.).numpy(),
                               [11, 13, 16, 20])
    assert fg.foldl(lambda a, e: a - e, x).numpy() == 1 - 2 - 3 - 4
    assert fg.foldr(lambda a, e: a - e, x).numpy() == 4 - 3 - 2 - 1
    # zero slices: scan stacks nothing in the initializer's shape; folds give the initializer
    empty = fg.zeros((0, 2))
    assert fg.scan(lambda a, e: a, empty, initializer=fg.ones(3)).shape == (0, 3)
    folded = fg.foldl(lambda a, e: a, empty, initializer=fg.constant([5.]))
    np.testing.assert_allclose(folded.numpy(), [5.])


def test_back_prop_false_stops_gradients():
    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.scan(lambda a, e: a * e, x, back_prop=False))
    assert tape.gradient(y, x) is None


def test_errors():
    with pytest.raises(ValueError, match="finegrad.scan.*structure"):
        fg.scan(lambda a, e: (a, a), fg.constant([1., 2.]))
    with pytest.raises(ValueError, match="finegrad.foldl.*zero slices"):
        fg.foldl(lambda a, e: a, fg.zeros((0,)))
    with pytest.raises(ValueError, match="finegrad.foldr.*rank"):
        fg.foldr(lambda a, e: a, fg.constant(1.))
    with pytest.raises(ValueError, match="finegrad.scan.*same size"):
        fg.scan(lambda a, e: a, (fg.zeros(2), fg.zeros(3)))

"""The TF1 dynamic-batch idiom, ``b = tf.shape(x)[0]`` used as a size (``zeros([b, 3])``,
``range(b)``, ``reshape(x, [b, -1])``, ``fill([b], 2.)``): a value guard checks each run's
``b`` against the built one, and binds only the runs whose fetches were built from it, so
the other fetches of the same graph serve every fed batch size."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

v1 = fg.compat.v1


def _graph():
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        b = fg.shape(x)[0]
        built = {
            "zeros": fg.zeros([b, 3]) + x,
            "range": fg.range(b),
            "reshape": fg.reshape(x, [b, -1]),
            "fill": fg.fill([b], 2.),
            "gather_nd": fg.gather_nd(x, fg.stack([fg.range(b), fg.zeros([b], fg.int32)], 1)),
        }
        free = {"ones_like": fg.ones_like(x), "tile": fg.tile(x, [1, 2]),
                "sin": fg.sin(x) * 2.}
    return g, x, built, free


def _x(n):
    return np.arange(3 * n, dtype=np.float32).reshape(n, 3) / 7.


@pytest.mark.parametrize("n", [0, 2, 5])
def test_fetches_not_built_from_a_guarded_value_serve_every_size(n):
    g, x, _, free = _graph()
    with v1.Session(graph=g) as sess:
        got = sess.run(free, {x: _x(n)})
    np.testing.assert_array_equal(got["ones_like"], np.ones((n, 3), np.float32))
    np.testing.assert_array_equal(got["tile"], np.tile(_x(n), [1, 2]))
    np.testing.assert_allclose(got["sin"], np.sin(_x(n)) * 2., rtol=1e-6)


def test_guard_of_another_fetch_does_not_bind_a_gradient():
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        _ = fg.range(fg.shape(x)[0]) * 2
        y = fg.reduce_sum(fg.sin(x))
        dx, = fg.gradients(y, [x])
    with v1.Session(graph=g) as sess:
        got = sess.run(dx, {x: _x(5)})
    np.testing.assert_allclose(got, np.cos(_x(5)), rtol=1e-6)


@pytest.mark.parametrize("name", ["zeros", "range", "reshape", "fill", "gather_nd"])
def test_fetches_built_from_a_guarded_value_at_the_built_size(name):
    g, x, built, _ = _graph()
    expect = {"zeros": _x(2), "range": np.arange(2), "reshape": _x(2),
              "fill": np.full([2], 2., np.float32), "gather_nd": _x(2)[:, 0]}[name]
    with v1.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(built[name], {x: _x(2)}), expect)


@pytest.mark.parametrize("name", ["zeros", "range", "reshape", "fill", "gather_nd"])
def test_fetches_built_from_a_guarded_value_refuse_another_size(name):
    g, x, built, _ = _graph()
    with v1.Session(graph=g) as sess:
        with pytest.raises(InvalidArgumentError):
            sess.run(built[name], {x: _x(5)})


def _range_used_later(use):
    g = fg.Graph()
    with g.as_default():
        x = v1.placeholder(fg.float32, [None, 3])
        p = v1.placeholder(fg.bool, [])
        r = fg.range(fg.shape(x)[0])          # made now, used by a later call
        other = fg.reduce_sum(x)
        y = use(r, p)
    return g, x, p, y, other


@pytest.mark.parametrize("use, expect", [
    (lambda r, p: fg.cast(r, fg.float32) * 2., [0., 2.]),
    (lambda r, p: v1.cond(p, lambda: fg.cast(r, fg.float32), lambda: fg.cast(r, fg.float32) - 1.),
     [0., 1.]),
], ids=["later_op", "cond_branch"])
def test_a_guarded_value_used_by_a_later_call_keeps_its_guard(use, expect):
    g, x, p, y, other = _range_used_later(use)
    with v1.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: _x(2), p: True}), expect)
        with pytest.raises(InvalidArgumentError, match="traced as 2 and this call's is 5"):
            sess.run(y, {x: _x(5), p: True})
        assert sess.run(other, {x: _x(5)}) == pytest.approx(_x(5).sum())

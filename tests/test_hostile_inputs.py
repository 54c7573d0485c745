"""Causes found by a round of hostile inputs (bad dtypes, empty shapes, nan/inf) compared
with TensorFlow 2.21 in eager, finegrad.function and TF1 graphs: each a test here."""
import numpy as np
import pytest

import finegrad as fg

v1 = fg.compat.v1


def test_a_failed_graph_block_does_not_leave_its_graph_recording():
    """An error while a TF1 graph's block was left (here: a string placeholder's ones_like,
    which crashed while the graph hid its tensors) left the graph as the current recorder,
    so every later eager op was recorded into it and `.numpy()` refused its results."""
    class Boom(Exception):
        pass

    g = fg.Graph()
    with pytest.raises(Boom), g.as_default():
        v1.placeholder(fg.float32, [2])
        raise Boom()
    assert fg.round(fg.constant([1.4, 2.6])).numpy().tolist() == [1., 3.]
    with pytest.raises(TypeError, match="ones_like: not defined for string"), \
            fg.Graph().as_default():
        fg.ones_like(v1.placeholder(fg.string, ()))
    assert fg.round(fg.constant([1.4])).numpy().tolist() == [1.]
    assert fg.function(lambda x: x + 1)(fg.constant(1.)).numpy() == 2.


def test_leaving_a_graph_that_fails_still_restores_eager_mode(monkeypatch):
    g = fg.Graph()

    def broken_leave():
        raise RuntimeError("leave failed")
    monkeypatch.setattr(g._recorder, "leave", broken_leave)
    with pytest.raises(RuntimeError, match="leave failed"), g.as_default():
        fg.add(v1.placeholder(fg.float32, [2]), 1.)
    assert fg.round(fg.constant([2.6])).numpy().tolist() == [3.]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_string_zeros_like_and_ones_like(traced):
    def run(f, x):
        return (fg.function(f) if traced else f)(fg.constant(x))
    r = run(fg.zeros_like, "ab")
    assert r.dtype == fg.string and r.numpy() == b""
    assert run(fg.zeros_like, ["a", "b"]).numpy().tolist() == [b"", b""]
    with pytest.raises(TypeError, match="finegrad.ones_like: not defined for string"):
        run(fg.ones_like, "ab")


def test_tensorflow_agrees_on_strings():
    tf = pytest.importorskip("tensorflow")
    assert tf.zeros_like(tf.constant(["a", "b"])).numpy().tolist() == [b"", b""]
    with pytest.raises(Exception):
        tf.ones_like(tf.constant("a"))


def test_cumulative_logsumexp_of_nan_is_nan_in_every_mode():
    # (TensorFlow 2.21 gives -inf for a nan input on an axis of size 1)
    x = np.array([[-3.19, np.nan, -2.02]])
    expected = [[-3.19, np.nan, -2.02]]
    np.testing.assert_array_equal(fg.math.cumulative_logsumexp(fg.constant(x)).numpy(), expected)
    with fg.Graph().as_default():
        p = v1.placeholder(fg.float64, x.shape)
        y = fg.math.cumulative_logsumexp(p)
        with v1.Session() as s:
            np.testing.assert_array_equal(s.run(y, {p: x}), expected)

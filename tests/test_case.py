"""case and switch_case: the chosen branch's values and gradients against TensorFlow (when
installed) and finite differences, eagerly and inside finegrad.function (traced predicates
and indices), defaults, out-of-range indices, and the errors."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.testing import check_gradients

X = np.array([0.3, -1.2, 2.0])


def _case(m, x, k):
    """A three-way case on the k-th threshold of sum(x)."""
    s = m.reduce_sum(x)
    return m.case([(s > 5. + k, lambda: m.sin(x) * s), (s > -1. + k, lambda: x * x * s)],
                  default=lambda: m.exp(x))


def _switch(m, x, i):
    return m.switch_case(i, [lambda: m.sin(x), lambda: x * x, lambda: m.exp(x) * x[0]])


def _run(m, f, *args):
    x = m.constant(X)
    with m.GradientTape() as tape:
        tape.watch(x)
        y = f(m, x, *args)
        s = m.reduce_sum(y * y)
    return y.numpy(), tape.gradient(s, x).numpy()


@pytest.mark.parametrize("k", [-10., 0., 10.])
@pytest.mark.parametrize("traced", [False, True])
def test_case_against_tensorflow(k, traced):
    tf = pytest.importorskip("tensorflow")
    f = fg.function(_case) if traced else _case
    got = _run(fg, lambda m, x: f(m, x, fg.constant(k, fg.float64)))
    want = _run(tf, _case, k)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("i", [0, 1, 2, 3, -1])
@pytest.mark.parametrize("traced", [False, True])
def test_switch_case_against_tensorflow(i, traced):
    tf = pytest.importorskip("tensorflow")
    f = fg.function(_switch) if traced else _switch
    got = _run(fg, lambda m, x: f(m, x, fg.constant(i)))
    want = _run(tf, _switch, tf.constant(i))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("i", [0, 1, 5])
def test_gradients_finite_differences(i):
    check_gradients(lambda x: _switch(fg, x, fg.constant(i)), [X], order=2,
                    modes=("fwd", "rev"))
    check_gradients(lambda x: _case(fg, x, float(i) * 3 - 3), [X], order=2,
                    modes=("fwd", "rev"))
    traced = fg.function(lambda x, i: _switch(fg, x, i))
    np.testing.assert_allclose(traced(fg.constant(X), fg.constant(i)).numpy(),
                               _switch(fg, fg.constant(X), fg.constant(i)).numpy())


def test_switch_case_default_and_dict():
    x = fg.constant(2.)
    fns = {1: lambda: x * 3., 0: lambda: x}
    for index in (0, 1, 7, -3):
        want = {0: 2., 1: 6.}.get(index, 20.)
        assert fg.switch_case(fg.constant(index), fns, default=lambda: x * 10.).numpy() == want
        traced = fg.function(lambda i: fg.switch_case(i, fns, default=lambda: x * 10.))
        assert traced(fg.constant(index)).numpy() == want
    # without a default, out-of-range indices take the last branch
    assert fg.switch_case(fg.constant(9), [lambda: x, lambda: x * 5.]).numpy() == 10.


def test_case_first_true_exclusive_and_strict():
    x = fg.constant(2.)
    t, f = fg.constant(True), fg.constant(False)
    assert fg.case([(f, lambda: x), (t, lambda: x * 3.), (t, lambda: x * 4.)]).numpy() == 6.
    with pytest.raises(fg.errors.InvalidArgumentError, match="finegrad.case.*exclusive"):
        fg.case([(t, lambda: x), (t, lambda: x)], default=lambda: x, exclusive=True)
    with pytest.raises(fg.errors.InvalidArgumentError, match="finegrad.case.*no default"):
        fg.case([(f, lambda: x)])
    traced = fg.function(lambda p, q: fg.case([(p, lambda: x), (q, lambda: x * 2.)],
                                               exclusive=True))
    assert traced(t, f).numpy() == 2. and traced(f, t).numpy() == 4.
    with pytest.raises(fg.errors.InvalidArgumentError, match="exclusive"):
        traced(t, t)
    with pytest.raises(fg.errors.InvalidArgumentError, match="no default"):
        traced(f, f)
    # non-strict: a one-element list is its element; strict keeps the list
    assert isinstance(fg.case([(t, lambda: [x])]), fg.Tensor)
    assert isinstance(fg.case([(t, lambda: [x])], strict=True), list)


def test_errors():
    x = fg.constant(1.)
    with pytest.raises(TypeError, match="finegrad.case.*scalar bool"):
        fg.case([(fg.constant(1), lambda: x)], default=lambda: x)
    with pytest.raises(TypeError, match="finegrad.case.*pair"):
        fg.case([lambda: x])
    with pytest.raises(TypeError, match="finegrad.switch_case.*branch_index"):
        fg.switch_case(fg.constant(1.5), [lambda: x])
    with pytest.raises(ValueError, match="finegrad.switch_case.*range"):
        fg.switch_case(fg.constant(0), {1: lambda: x, 4: lambda: x})
    traced = fg.function(lambda i: fg.switch_case(i, [lambda: x, lambda: (x, x)]))
    with pytest.raises(ValueError, match="finegrad.switch_case: every branch.*same structure"):
        traced(fg.constant(0))
    traced = fg.function(lambda p: fg.case([(p, lambda: x)], default=lambda: fg.zeros(2)))
    with pytest.raises(ValueError, match="finegrad.case: every branch.*same structure"):
        traced(fg.constant(True))
    with pytest.raises(ValueError, match="finegrad.switch_case.*non-empty"):
        fg.switch_case(fg.constant(0), [])


@pytest.mark.parametrize("i", [0, 1, 2, 7, -1])
def test_switch_case_in_a_tf1_graph_takes_the_fed_branch(i):
    """A TF1 graph's tensors compare by identity under ``==`` (as TensorFlow 1's), so the
    branch test must be an `equal` node: each fed index runs its own branch (the last one
    out of range), with its gradient, as eagerly."""
    from finegrad.compat import v1
    g = fg.Graph()
    with g.as_default():
        x = fg.constant(X)
        k = v1.placeholder(fg.int32, [])
        y = _switch(fg, x, k)
        dx = fg.gradients(fg.reduce_sum(y * y), [x])[0]
    with v1.Session(graph=g) as sess:
        got, got_dx = sess.run([y, dx], {k: i})
    want, want_dx = _run(fg, _switch, i)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-12)

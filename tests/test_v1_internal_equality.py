"""Gradient rules compare tensors with `equal` / `not_equal`, never ``==``: in a TF1 graph
``==`` on tensors is identity, as in TensorFlow 1, so a rule written with it silently lost
its zero branch there (the gradient of ``abs`` of a complex 0 and of ``x ** 0`` at ``x = 0``
were nan in a session, 0 eagerly). Each graph gradient equals the eager one."""
import numpy as np
import pytest

import finegrad as fg

v1 = fg.compat.v1

CASES = {
    "abs_complex": (lambda lib, x, e: lib.abs(lib.complex(x, x * 0.)),
                    [0., 1., -2.], [1., 1., 1.]),
    "pow_zero_exponent": (lambda lib, x, e: lib.pow(x, e), [0., 1., 2.], [0., 2., 0.]),
    "pow_complex": (lambda lib, x, e: lib.math.real(lib.pow(lib.complex(x, x * 0.),
                                                            lib.complex(e, e * 0.))),
                    [0., 1.5, 2.], [2., 2., 0.5]),
}


def _graph_grads(lib, case):
    build, xs, es = CASES[case]
    with lib.Graph().as_default():
        x = lib.compat.v1.placeholder(lib.float64, [3])
        e = lib.compat.v1.placeholder(lib.float64, [3])
        g = lib.compat.v1.gradients(lib.reduce_sum(build(lib, x, e)), [x, e])
        g = [lib.zeros_like(x) if t is None else t for t in g]
        with lib.compat.v1.Session() as sess:
            return sess.run(g, {x: np.array(xs), e: np.array(es)})


def _eager_grads(case):
    build, xs, es = CASES[case]
    x, e = fg.constant(xs, fg.float64), fg.constant(es, fg.float64)
    with fg.GradientTape() as tape:
        tape.watch([x, e])
        y = fg.reduce_sum(build(fg, x, e))
    return [np.zeros(3) if t is None else t.numpy() for t in tape.gradient(y, [x, e])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_graph_gradient_is_the_eager_one(case):
    for a, b in zip(_graph_grads(fg, case), _eager_grads(case), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
        assert np.isfinite(a).all()


def test_abs_of_a_complex_zero_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    np.testing.assert_allclose(_graph_grads(fg, "abs_complex")[0],
                               _graph_grads(tf, "abs_complex")[0], rtol=1e-14)

"""A while_loop condition that is a Python or NumPy bool: a constant condition, eagerly and
traced, as in TensorFlow (issue 22, cause 5)."""
import numpy as np
import pytest

import finegrad as fg


# --- a while_loop condition that is a Python or NumPy bool (issue 22, cause 5) -----------------

CONSTANT_CONDS = {"python_true": lambda i: True, "numpy_bool": lambda i: np.bool_(True),
                  "numpy_array": lambda i: np.array(True), "python_false": lambda i: False}


@pytest.mark.parametrize("name", sorted(CONSTANT_CONDS))
@pytest.mark.parametrize("where", ["eager", "traced", "traced_signature", "nested", "vmap"])
def test_constant_while_condition_runs_as_tensorflow(name, where):
    """TensorFlow evaluates the condition as a constant: a true one runs until
    maximum_iterations (5 here), a false one never (checked live below)."""
    cond = CONSTANT_CONDS[name]
    want = 0. if name == "python_false" else 5.

    def loop(x):
        return fg.while_loop(cond, lambda i: i + 1., [x], maximum_iterations=5)[0]

    x = fg.constant(0.)
    if where == "eager":
        got = loop(x)
    elif where == "traced":
        got = fg.function(loop)(x)
    elif where == "traced_signature":
        got = fg.function(loop, input_signature=[fg.TensorSpec([])])(x)
    elif where == "nested":
        inner = fg.function(loop)
        got = fg.function(lambda x: fg.while_loop(lambda j, y: j < 2, lambda j, y: (
            j + 1, inner(y)), [0, x])[1])(x)
        want *= 2
    else:
        got = fg.function(lambda x: fg.vectorized_map(loop, x))(fg.constant([0., 1.]))[0]
    assert float(got) == want


def test_constant_while_condition_gradient():
    x = fg.constant(1.)
    f = fg.function(lambda x: fg.while_loop(lambda v: True, lambda v: v * 2., [x],
                                            maximum_iterations=3)[0])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == 8. and float(tape.gradient(y, x)) == 8.


def test_constant_while_condition_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for name, cond in CONSTANT_CONDS.items():
        f = tf.function(lambda x, cond=cond: tf.while_loop(cond, lambda i: i + 1., [x],
                                                           maximum_iterations=5)[0])
        g = fg.function(lambda x, cond=cond: fg.while_loop(cond, lambda i: i + 1., [x],
                                                           maximum_iterations=5)[0])
        assert float(f(tf.constant(0.))) == float(g(fg.constant(0.))), name

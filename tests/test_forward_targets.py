"""ForwardAccumulator.jvp refuses what is not a tensor, as GradientTape.gradient does
(issue 22, cause 6)."""
import numpy as np
import pytest

import finegrad as fg


# --- ForwardAccumulator.jvp of a non-tensor (issue 22, cause 6) -------------------------------

NOT_TENSORS = {"float": 3.0, "int": 3, "ndarray": np.array([1., 2.]), "numpy_scalar":
               np.float32(2.), "none": None, "string": "y"}
JVP_ERROR = r"ForwardAccumulator.jvp: primals must be tensors.*got"


@pytest.mark.parametrize("name", sorted(NOT_TENSORS))
def test_jvp_of_a_non_tensor_raises_as_gradient_does(name):
    x = fg.constant(1.)
    with fg.autodiff.ForwardAccumulator(x, fg.constant(1.)) as acc:
        y = x * 2.
    with pytest.raises(TypeError, match=JVP_ERROR):
        acc.jvp(NOT_TENSORS[name])
    with pytest.raises(TypeError, match=JVP_ERROR + r".*\(in list"):
        acc.jvp([y, NOT_TENSORS[name]])
    with pytest.raises(TypeError, match=JVP_ERROR):
        acc.jvp({"a": NOT_TENSORS[name]}, unconnected_gradients="zero")
    with fg.GradientTape() as tape:   # the same rule as the tape's
        tape.watch(x)
        y = x * 2.
    with pytest.raises(TypeError, match="GradientTape.gradient: target must be a tensor"):
        tape.gradient(NOT_TENSORS[name], x)


def test_jvp_of_a_non_tensor_raises_traced_and_nested():
    @fg.function
    def f(x):
        with fg.autodiff.ForwardAccumulator(x, fg.ones_like(x)) as outer:
            with fg.autodiff.ForwardAccumulator(x, fg.ones_like(x)) as inner:
                y = x * x
            t = inner.jvp(y)
        return outer.jvp(t), outer.jvp(2.0)

    with pytest.raises(TypeError, match=JVP_ERROR):
        f(fg.constant(1.))


def test_jvp_of_tensors_and_variables_still_work():
    x, v = fg.constant(2.), fg.Variable(3.)
    with fg.autodiff.ForwardAccumulator([x, v], [fg.constant(1.), fg.constant(0.5)]) as acc:
        y = x * v
        c = fg.constant(1.)
    assert float(acc.jvp(y)) == 4. and float(acc.jvp(v)) == .5 and acc.jvp(c) is None
    assert float(acc.jvp(c, unconnected_gradients="zero")) == 0.

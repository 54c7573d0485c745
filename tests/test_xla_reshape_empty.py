"""A reshape with -1 of an empty tensor: TensorFlow's kernel leaves the input's zero sizes
out of the -1 when the target has a 0 (``(0, 3)`` to ``(-1, 0)`` is ``(3, 0)``). Eager,
traced (fixed shapes and a None dimension, whose graph keeps the sizes of the call), and
compiled with XLA (whose own rule would divide by that 0) all give TensorFlow's shapes."""
import numpy as np
import pytest

import finegrad as fg

pytest.importorskip("jax")

# (input shape, target, TensorFlow 2.21's result shape: eager, tf.function with and without
# jit_compile, with a None first dimension or not, all the same)
CASES = [((0, 3), (-1,), (0,)), ((0, 3), (-1, 0), (3, 0)), ((0, 3), (3, -1), (3, 0)),
         ((2, 0), (-1, 0), (2, 0)), ((0, 4), (-1, 0, 2), (2, 0, 2)), ((0,), (-1, 0), (1, 0)),
         ((0,), (2, -1), (2, 0)), ((4, 0, 5), (-1, 0, 2), (10, 0, 2))]


@pytest.mark.parametrize("shape, target, want", CASES)
def test_reshape_of_an_empty_tensor_with_minus_one(shape, target, want):
    x = fg.zeros(shape)
    spec = [fg.TensorSpec((None,) + shape[1:], fg.float32)]
    for jit in (None, True):
        for sig in (None, spec):
            f = fg.function(lambda t: fg.reshape(t, target), jit_compile=jit,
                            input_signature=sig)
            got = f(x)
            assert got.shape == want and got.numpy().size == 0, (jit, sig)
    assert fg.reshape(x, target).shape == want


def test_a_none_dimension_still_serves_other_sizes():
    f = fg.function(lambda t: fg.reshape(t, (-1, 0)), jit_compile=True,
                    input_signature=[fg.TensorSpec((None, 3), fg.float32)])
    assert f(fg.zeros((0, 3))).shape == (3, 0)
    g = fg.function(lambda t: fg.reshape(t, (-1, 3)), jit_compile=True,
                    input_signature=[fg.TensorSpec((None, 3), fg.float32)])
    for n in (0, 2, 5):
        np.testing.assert_array_equal(g(fg.ones((n, 3))).numpy(), np.ones((n, 3), np.float32))

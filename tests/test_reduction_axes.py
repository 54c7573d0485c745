"""An axis out of range in a reduction is TensorFlow's InvalidArgumentError (a ValueError),
named for the public function the user called, scalars included (``reduce_sum(3., axis=0)``
used to leak NumPy's "out of bounds for array of dimension 0"), eagerly and traced."""
import pytest

import finegrad as fg

SCALAR, VECTOR = fg.constant(3.), fg.constant([1., 2.])

REDUCTIONS = {
    "reduce_sum": fg.reduce_sum, "reduce_mean": fg.reduce_mean, "reduce_max": fg.reduce_max,
    "reduce_min": fg.reduce_min, "reduce_prod": fg.reduce_prod,
    "reduce_logsumexp": fg.reduce_logsumexp, "math.reduce_std": fg.math.reduce_std,
    "math.reduce_variance": fg.math.reduce_variance,
    "math.reduce_euclidean_norm": fg.math.reduce_euclidean_norm,
    "math.count_nonzero": fg.math.count_nonzero, "norm": lambda x, axis: fg.norm(x, axis=axis),
    "nn.moments": lambda x, axis: fg.nn.moments(x, [axis]),
    "reduce_any": lambda x, axis: fg.reduce_any(x > 0, axis),
    "reduce_all": lambda x, axis: fg.reduce_all(x > 0, axis),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("x, axis", [(SCALAR, 0), (SCALAR, -1), (SCALAR, 1), (VECTOR, 1),
                                     (VECTOR, -2)], ids=["s0", "s-1", "s1", "v1", "v-2"])
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_axis_out_of_range(name, x, axis, traced):
    op = REDUCTIONS[name]
    f = fg.function(lambda t: op(t, axis)) if traced else (lambda t: op(t, axis))
    with pytest.raises(fg.errors.InvalidArgumentError,
                       match=rf"finegrad\.{name}: axis {axis} is out of range for a tensor "
                             rf"of rank {x.ndim}"):
        f(x)


def test_scalars_still_reduce_over_no_axis_or_all_axes():
    assert float(fg.reduce_sum(SCALAR)) == 3.
    assert float(fg.reduce_sum(SCALAR, axis=[])) == 3.
    assert float(fg.reduce_sum(VECTOR, axis=-1)) == 3.


def test_tensorflow_raises_the_same_class():
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.reduce_sum(tf.constant(3.), axis=0)

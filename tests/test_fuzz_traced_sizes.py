"""Properties of traced functions whose sizes change from call to call (issue 22's causes 1,
10 and 11): a finegrad.function (with and without a None input_signature) gives, call after
call, what the same Python gives eagerly, for sizes taken from argument shapes and from int
arguments; vectorized_map agrees with a loop of slices. Profiles: tests/fuzz_settings.py."""
import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import fuzz_settings  # noqa: F401  (registers and loads the profiles)
import finegrad as fg

SIZES = st.lists(st.integers(1, 5), min_size=1, max_size=4)

BODIES = {
    "zeros_from_shape": lambda x, n: fg.reduce_sum(fg.zeros([fg.shape(x)[0], 2]) + 1.),
    "tile_by_int": lambda x, n: fg.reduce_sum(fg.tile(x, [n])),
    "range_by_int": lambda x, n: fg.reduce_sum(fg.cast(fg.range(n), fg.float32)),
    "linspace_count": lambda x, n: fg.reduce_sum(fg.linspace(0., 1., n + 1)),
    "squeeze_open": lambda x, n: fg.reduce_sum(fg.squeeze(fg.reshape(x, [-1, 1]))),
    "reshape_by_shape": lambda x, n: fg.reduce_sum(fg.reshape(x, [fg.shape(x)[0], -1]) * 2.),
    "cumsum_of_vector": lambda x, n: fg.reduce_sum(fg.math.cumsum(x)),
    "one_hot_depth": lambda x, n: fg.reduce_sum(fg.one_hot(0, n + 1)),
}


def _eager(name, x, n):
    return float(BODIES[name](fg.constant(x), fg.constant(n)))


@given(st.sampled_from(sorted(BODIES)), SIZES, st.booleans())
def test_traced_sizes_follow_each_call(name, sizes, signature):
    sig = [fg.TensorSpec([None]), fg.TensorSpec([], fg.int32)] if signature else None
    f = fg.function(BODIES[name], input_signature=sig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (a broken guard retraces with a warning)
        for n in sizes:
            x = np.arange(1., n + 1., dtype=np.float32)
            got = float(f(fg.constant(x), fg.constant(n)))
            assert np.isclose(got, _eager(name, x, n), rtol=1e-6), (name, n)


@given(st.integers(1, 4), st.integers(1, 4))
def test_vectorized_map_of_sized_ops_matches_slices(batch, width):
    x = np.arange(batch * width, dtype=np.float32).reshape(batch, width)
    got = fg.vectorized_map(lambda r: fg.math.cumsum(r) * fg.reduce_sum(r), fg.constant(x))
    want = np.stack([np.cumsum(r) * r.sum() for r in x])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)

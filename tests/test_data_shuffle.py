"""finegrad.data's shuffle gives tf.data's order for the same seeds (TensorFlow's Philox
draws, buffer ring and per-iteration seed generator). Expected orders were recorded from
tf.data 2.21 on the same pipelines; with TensorFlow installed they are also compared live."""
import pytest

import finegrad as fg
from finegrad.data import Dataset


def _ints(ds):
    return [int(v) for v in ds]


@pytest.fixture(autouse=True)
def _no_global_seed():
    fg.random.set_seed(None)
    yield
    fg.random.set_seed(None)


def test_op_seed_order_and_reshuffle_per_iteration():
    ds = Dataset.range(12).shuffle(5, seed=5)
    assert _ints(ds) == [0, 2, 1, 7, 8, 6, 4, 10, 9, 5, 11, 3]       # tf.data 2.21
    assert _ints(ds) == [4, 1, 3, 2, 0, 8, 7, 11, 5, 9, 6, 10]       # its second iteration


def test_fixed_order_with_a_buffer_larger_than_the_dataset():
    ds = Dataset.range(12).shuffle(100, seed=3, reshuffle_each_iteration=False).repeat(2)
    assert _ints(ds) == [11, 4, 2, 0, 3, 8, 5, 9, 7, 1, 10, 6] * 2


def test_global_seed_and_op_seed_counter():
    fg.random.set_seed(7)
    a, b = Dataset.range(10).shuffle(4), Dataset.range(10).shuffle(4, seed=9)
    assert _ints(a) == [0, 2, 1, 6, 7, 8, 9, 3, 4, 5]
    assert _ints(b) == [2, 1, 4, 5, 3, 8, 9, 0, 6, 7]


def test_repeat_after_take_starts_a_spare_iteration():
    # tf.data's repeat (not fused with the shuffle here) starts one more input iterator
    # after its last pass, which draws the shuffle's next seeds
    ds = Dataset.range(10).shuffle(3, seed=1).take(4).repeat(2)
    assert _ints(ds) == [1, 3, 0, 5, 1, 3, 0, 5]     # seeds 0 and 1 (2: the spare)
    assert _ints(ds) == [0, 2, 1, 5, 0, 1, 3, 4]     # seeds 3 and 4


def test_unseeded_shuffle_is_a_permutation():
    assert sorted(_ints(Dataset.range(40).shuffle(7))) == list(range(40))
    fixed = Dataset.range(40).shuffle(40, reshuffle_each_iteration=False)
    assert _ints(fixed) == _ints(fixed)


PIPELINES = {
    "op seed": lambda D: D.range(20).shuffle(10, seed=5),
    "fixed": lambda D: D.range(20).shuffle(10, seed=5, reshuffle_each_iteration=False),
    "small buffer, repeat": lambda D: D.range(30).shuffle(3, seed=11).repeat(3),
    "large seed": lambda D: D.range(30).shuffle(1000, seed=2 ** 40 + 7).repeat(2),
    "negative seed": lambda D: D.range(20).shuffle(10, seed=-3),
    "seed 0": lambda D: D.range(20).shuffle(10, seed=0),
    "take, repeat, repeat": lambda D: D.range(30).shuffle(7, seed=1).take(5).repeat(2)
    .repeat(2),
    "map, repeat": lambda D: D.range(30).shuffle(7, seed=1).map(lambda x: x + 1).repeat(3),
    "slices, batch": lambda D: D.from_tensor_slices(list(range(30))).shuffle(9, seed=4)
    .repeat(2).map(lambda x: x * 2).batch(4).unbatch(),
    "skip, repeat": lambda D: D.from_tensor_slices(list(range(9))).shuffle(4, seed=3).skip(2)
    .repeat(2),
    "endless repeat": lambda D: D.range(5).shuffle(3, seed=1).repeat().take(17),
    "take, endless repeat": lambda D: D.range(9).shuffle(3, seed=1).take(4).repeat().take(14),
    "repeat in flat_map": lambda D: D.range(3).flat_map(
        lambda i: D.range(4).shuffle(4, seed=2).take(2).repeat(2)),
    "two shuffles": lambda D: D.range(12).shuffle(4, seed=1).shuffle(3, seed=2).repeat(2),
    "prefetch between": lambda D: D.range(12).shuffle(4, seed=1).prefetch(2).repeat(2),
    "repeat(1) eliminated": lambda D: D.range(6).shuffle(6, seed=1).take(3).repeat(1)
    .repeat(2),
    "random": lambda D: D.random(seed=3, rerandomize_each_iteration=True).take(2).repeat(2)
    .map(lambda x: x % 100),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_orders_equal_tensorflow_live(name):
    tf = pytest.importorskip("tensorflow")
    build = PIPELINES[name]
    want, got = build(tf.data.Dataset), build(Dataset)
    for _ in range(2):
        assert _ints(got) == _ints(want)


@pytest.mark.parametrize("global_seed", [0, 7, 2 ** 40])
def test_global_seed_orders_equal_tensorflow_live(global_seed):
    tf = pytest.importorskip("tensorflow")

    def orders(D, set_seed):
        set_seed(global_seed)
        a = D.range(20).shuffle(10)
        b = D.range(20).shuffle(6, reshuffle_each_iteration=False)
        c = D.range(20).shuffle(5, seed=9)
        return [_ints(d) for d in (a, b, c, a, b, c)]
    try:
        want = orders(tf.data.Dataset, tf.random.set_seed)
    finally:
        tf.random.set_seed(None)
    assert orders(Dataset, fg.random.set_seed) == want


def _interleaved_with_random_ops(m):
    """Datasets made between other random ops: those without an op seed take the next
    op seeds of the global seed (as tf.data's); a `Generator` changes nothing."""
    m.random.set_seed(1)
    m.random.uniform([2])
    m.random.Generator.from_seed(5).normal([3])
    a = m.data.Dataset.range(10).shuffle(5)
    m.random.normal([1])
    b = m.data.Dataset.random().take(2)
    c = m.data.Dataset.sample_from_datasets([m.data.Dataset.range(4),
                                             m.data.Dataset.range(10, 14)])
    return [_ints(d) for d in (a, b, c)]


def test_op_seeds_shared_with_other_random_ops():
    assert _interleaved_with_random_ops(fg) == [          # tf.data 2.21
        [3, 2, 0, 5, 8, 6, 7, 1, 9, 4], [2082358288, 3768487968],
        [10, 0, 11, 1, 12, 2, 3, 13]]


def test_op_seeds_shared_with_other_random_ops_live():
    tf = pytest.importorskip("tensorflow")
    try:
        want = _interleaved_with_random_ops(tf)
    finally:
        tf.random.set_seed(None)
    assert _interleaved_with_random_ops(fg) == want

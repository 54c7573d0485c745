"""Dataset.ignore_errors after every transformation, as tf.data 2.21 goes on after a failed
element (window, shard, group_by_window, bucket_by_sequence_length, unique, rebatch, zip,
scan, take_while, interleave, flat_map, choose_from_datasets, sample_from_datasets...).
EXPECTED was recorded from tf.data 2.21 on the same pipelines (a map that fails with
check_numerics on the zeros of DATA, or a failing key / scan / predicate / map function);
with TensorFlow installed they are also compared live."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.data import Dataset

DATA = [1., 0., 2., 0., 4., 5., 8., 10.]


def _inv(m):
    return lambda x: m.debugging.check_numerics(1. / x, "bad")


def _length_of(m):
    return lambda x: m.shape(x)[0]


def _ints(D, m):
    return lambda: D.from_tensor_slices([1., 0., 1., 2., 0., 2., 4.]).map(
        lambda x: m.cast(m.debugging.check_numerics(4. / x, "bad"), m.int64))


def _floats(D, m):
    return lambda a, b: D.range(a, b).map(lambda x: m.cast(x, m.float32))


def _rows(m):
    return lambda x: m.fill([m.cast(m.debugging.check_numerics(4. / x, "b"), m.int32) % 4 + 1],
                            x)


def _pipelines(D, m):
    """name -> a pipeline whose map fails on the zeros of DATA, before ignore_errors."""
    inv = _inv(m)

    def src():
        return D.from_tensor_slices(DATA)

    def bad():
        return src().map(inv)

    ints, floats, rows = _ints(D, m), _floats(D, m), _rows(m)
    choice = D.from_tensor_slices(m.constant([0, 1, 0, 0, 1, 0, 0, 0, 1], m.int64))
    return {
        "window": lambda: bad().window(2).flat_map(lambda w: w.batch(2)),
        "window shift 1": lambda: bad().window(3, shift=1).flat_map(lambda w: w.batch(3)),
        "window stride": lambda: bad().window(2, shift=3, stride=2, drop_remainder=True)
        .flat_map(lambda w: w.batch(2)),
        "window inner": lambda: src().window(3).flat_map(lambda w: w.map(inv)),
        "shard 2 0": lambda: bad().shard(2, 0),
        "shard 3 1": lambda: bad().shard(3, 1),
        "enumerate shard": lambda: bad().enumerate().shard(2, 1),
        "group_by_window": lambda: bad().group_by_window(
            lambda x: m.cast(x > 0.3, m.int64), lambda k, w: w.batch(2), window_size=2),
        "group key error": lambda: src().group_by_window(
            lambda x: m.cast(inv(x) > 0.3, m.int64), lambda k, w: w.batch(2), window_size=2),
        "group reduce error": lambda: src().group_by_window(
            lambda x: m.cast(x > 3, m.int64), lambda k, w: w.map(inv), window_size=3),
        "bucket": lambda: src().map(rows).bucket_by_sequence_length(
            _length_of(m), [2, 3], [2, 2, 2]),
        "unique": lambda: ints().unique(),
        "rebatch": lambda: bad().batch(3).rebatch(2),
        "rebatch rows": lambda: bad().map(lambda x: m.stack([x, x])).rebatch(3),
        "zip": lambda: D.zip((bad(), bad().skip(1))),
        "zip three": lambda: D.zip((bad(), src(), src().skip(3).map(inv))),
        "scan": lambda: bad().scan(0., lambda s, x: (s + x, s + x)),
        "scan_func": lambda: src().scan(0., lambda s, x: (s + inv(x), s + inv(x))),
        "take_while predicate": lambda: src().take_while(lambda x: inv(x) > 0.),
        "interleave map_func": lambda: src().interleave(
            lambda x: D.from_tensors(inv(x)).repeat(2), cycle_length=2),
        "interleave inner": lambda: D.range(3).interleave(
            lambda i: bad().take(4), cycle_length=2, block_length=2),
        "flat_map map_func": lambda: src().flat_map(
            lambda x: D.from_tensors(inv(x)).repeat(2)),
        "choose": lambda: D.choose_from_datasets([bad(), floats(10, 20)], choice),
        "choose selector": lambda: D.choose_from_datasets(
            [D.range(5), D.range(10, 20)], D.from_tensor_slices([1., 0., 2., 0., 1.]).map(
                lambda x: m.cast(m.debugging.check_numerics(1. / x, "b"), m.int64) - 1)),
        "sample": lambda: D.sample_from_datasets([bad(), floats(10, 14)], seed=3),
        "shuffle repeat": lambda: bad().shuffle(4, seed=1).repeat(2),
        "unbatch": lambda: bad().map(lambda x: m.stack([x, x])).unbatch(),
        "rejection_resample class_func": lambda: D.from_tensor_slices(
            [1., 2., 4., 5.] * 8 + [0., 1., 2., 4.] * 4).rejection_resample(
            lambda x: m.cast(inv(x) > 0.3, m.int32), [0.5, 0.5], seed=1),
    }


# tf.data 2.21's elements for each pipeline followed by .ignore_errors()
EXPECTED = {
    'window': [[0.25, 0.2], [0.125, 0.1]],
    'window shift 1': [[0.25, 0.2, 0.125], [0.2, 0.125, 0.1], [0.125, 0.1], [0.1]],
    'window stride': [[1.0, 0.5]],
    'window inner': [1.0, 0.5, 0.25, 0.2, 0.125, 0.1],
    'shard 2 0': [1.0, 0.25, 0.125],
    'shard 3 1': [0.5, 0.125],
    'enumerate shard': [[2.0, 0.5], [5.0, 0.2], [7.0, 0.1]],
    'group_by_window': [[1.0, 0.5], [0.25, 0.2], [0.125, 0.1]],
    'group key error': [[1.0, 2.0], [4.0, 5.0], [8.0, 10.0]],
    'group reduce error': [1.0, 0.5, 0.25, 0.2, 0.125, 0.1],
    'bucket': [[[1.0], [5.0]], [[8.0], [10.0]], [[4.0, 4.0]], [[2.0, 2.0, 2.0]]],
    'unique': [4.0, 2.0, 1.0],
    'rebatch': [[0.125, 0.1]],
    'rebatch rows': [[0.25, 0.25, 0.2], [0.2, 0.125, 0.125], [0.1, 0.1]],
    'zip': [[0.25, 0.2], [0.2, 0.125], [0.125, 0.1]],
    'zip three': [[0.5, 2.0, 0.2], [0.25, 4.0, 0.1]],
    'scan': [1.0, 1.5, 1.75, 1.95, 2.075, 2.175],
    'scan_func': [1.0, 1.5, 1.75, 1.95, 2.075, 2.175],
    'take_while predicate': [1.0, 2.0, 4.0, 5.0, 8.0, 10.0],
    'interleave map_func': [1.0, 0.5, 1.0, 0.5, 0.25, 0.2, 0.25, 0.2, 0.125, 0.1, 0.125, 0.1],
    'interleave inner': [1.0, 0.5, 1.0, 0.5, 0.25, 0.2, 0.25, 0.2, 1.0, 0.5, 0.25, 0.2],
    'flat_map map_func': [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.125, 0.125, 0.1, 0.1],
    'choose': [1.0, 10.0, 0.5, 11.0, 0.25, 0.2, 12.0],
    'choose selector': [0.0, 1.0],
    'sample': [10.0, 11.0, 12.0, 1.0, 13.0, 0.5, 0.25, 0.2, 0.125, 0.1],
    'shuffle repeat': [1.0, 0.125, 0.1, 0.25, 0.2, 0.5, 0.25, 0.5, 0.2, 0.1, 0.125, 1.0],
    'unbatch': [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.125, 0.125, 0.1, 0.1],
    'rejection_resample class_func': [
        [1.0, 1.0], [1.0, 2.0], [0.0, 4.0], [0.0, 5.0], [1.0, 1.0], [1.0, 2.0], [0.0, 4.0],
        [0.0, 5.0], [1.0, 1.0], [1.0, 2.0], [0.0, 4.0], [0.0, 5.0], [1.0, 1.0], [1.0, 2.0],
        [0.0, 4.0], [0.0, 5.0], [1.0, 1.0], [1.0, 2.0], [0.0, 4.0], [0.0, 5.0], [1.0, 1.0],
        [1.0, 2.0], [0.0, 4.0], [0.0, 5.0], [1.0, 1.0], [1.0, 2.0], [0.0, 4.0], [0.0, 5.0],
        [1.0, 1.0], [1.0, 2.0], [0.0, 4.0], [0.0, 5.0],
    ],
}


def _vals(ds):
    return [np.asarray(v, np.float64).round(6).tolist() for v in ds]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ignore_errors_matches_tf_data(name):
    fg.random.set_seed(None)
    assert _vals(_pipelines(Dataset, fg)[name]().ignore_errors()) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ignore_errors_live_against_tf(name):
    tf = pytest.importorskip("tensorflow")
    ds = _pipelines(tf.data.Dataset, tf)[name]().ignore_errors()
    assert _vals(ds.as_numpy_iterator()) == EXPECTED[name]


def test_without_ignore_errors_the_first_error_is_raised():
    with pytest.raises(fg.errors.InvalidArgumentError, match="bad"):
        list(_pipelines(Dataset, fg)["window"]())
    with pytest.raises(fg.errors.InvalidArgumentError, match="bad"):
        list(_pipelines(Dataset, fg)["shard 2 0"]())


def test_map_spec_passes_over_a_failed_first_element():
    ds = Dataset.from_tensor_slices([0., 1.]).map(_inv(fg))
    assert ds.element_spec == fg.TensorSpec((), fg.float32)
    with pytest.raises(fg.errors.InvalidArgumentError, match="bad"):
        _ = Dataset.from_tensor_slices([0., 0.]).map(_inv(fg)).element_spec

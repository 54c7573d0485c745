"""finegrad.data's window, group_by_window, bucket_by_sequence_length, scan, take_while, shard,
unique, rebatch, get_single_element, counter, choose_from_datasets and sample_from_datasets:
elements (and cardinalities) equal to tf.data's. The expected values were recorded from
TensorFlow 2.21 with the same pipelines; with TensorFlow installed each pipeline is also run
live on tf.data and compared."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

SEQS = [[1], [2, 2], [3, 3, 3], [4] * 4, [5] * 5, [6] * 6, [7] * 7]


def _show(ds):
    return [e.numpy().tolist() if hasattr(e, "numpy") else e for e in ds]


def _seqs(D, spec, n=7):
    return D.from_generator(lambda: iter(SEQS[:n]), output_signature=spec([None], "int32"))


def _length(x):
    if isinstance(x, fg.Tensor):
        return fg.size(x)
    import tensorflow as tf     # (a tf.data pipeline runs it on a symbolic tf.Tensor)
    return tf.size(x)


def _key(x):
    return x % 3


# name -> (pipeline on a Dataset class and a TensorSpec class, tf.data 2.21's elements)
PIPELINES = {
    "window_flat": (lambda D, S: D.range(7).window(3, 1, drop_remainder=True).flat_map(
        lambda d: d.batch(3)), [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]),
    "group_by_window": (lambda D, S: D.range(10).group_by_window(
        _key, lambda k, d: d.batch(2), window_size=2),
        [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]),
    "group_by_window_flush": (lambda D, S: D.range(11).group_by_window(
        _key, lambda k, d: d.batch(5), window_size=5), [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8]]),
    "group_by_window_size_func": (lambda D, S: D.range(10).group_by_window(
        _key, lambda k, d: d.batch(10).map(lambda b: b + k * 100),
        window_size_func=lambda k: k + 1),
        [[0], [3], [101, 104], [6], [202, 205, 208], [9], [107]]),
    "bucket": (lambda D, S: _seqs(D, S).bucket_by_sequence_length(
        _length, [3, 5], [2, 2, 2]),
        [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]],
         [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]], [[7, 7, 7, 7, 7, 7, 7]]]),
    "bucket_boundary": (lambda D, S: _seqs(D, S, 4).bucket_by_sequence_length(
        _length, [3, 5], [2, 2, 2], pad_to_bucket_boundary=True,
        padding_values=-1), [[[1, -1], [2, 2]], [[3, 3, 3, -1], [4, 4, 4, 4]]]),
    "bucket_drop": (lambda D, S: _seqs(D, S).bucket_by_sequence_length(
        _length, [3, 5], [2, 3, 1], drop_remainder=True),
        [[[1, 0], [2, 2]], [[5, 5, 5, 5, 5]], [[6, 6, 6, 6, 6, 6]], [[7, 7, 7, 7, 7, 7, 7]]]),
    "scan": (lambda D, S: D.from_tensor_slices(([1, 2, 3], [4, 5, 6])).scan(
        0, lambda st, el: (st + el[0], st * el[1])), [0, 5, 18]),
    "take_while": (lambda D, S: D.range(10).take_while(lambda x: x < 4), [0, 1, 2, 3]),
    "shard": (lambda D, S: D.range(10).shard(3, 1), [1, 4, 7]),
    "unique": (lambda D, S: D.from_tensor_slices([1, 3, 1, 2, 3]).unique(), [1, 3, 2]),
    "counter": (lambda D, S: D.counter(3, 2).take(3), [3, 5, 7]),
    "choose": (lambda D, S: D.choose_from_datasets(
        [D.range(3), D.range(10, 13)], D.range(7).map(lambda i: i * 0 + [0, 1, 1, 0, 0, 0,
                                                                           1][int(i)])),
        [0, 10, 11, 1, 2]),
    "rebatch": (lambda D, S: D.range(10).batch(4).rebatch(3), [[0, 1, 2], [3, 4, 5],
                                                               [6, 7, 8], [9]]),
    "rebatch_drop": (lambda D, S: D.range(10).batch(4).rebatch(3, drop_remainder=True),
                     [[0, 1, 2], [3, 4, 5], [6, 7, 8]]),
}


@pytest.mark.parametrize("case", sorted(PIPELINES))
def test_elements_equal_tf_data(case):
    build, want = PIPELINES[case]
    assert _show(build(fg.data.Dataset, fg.TensorSpec)) == want


@pytest.mark.parametrize("case", sorted(set(PIPELINES) - {"choose"}))
def test_elements_equal_live_tf_data(case):
    tf = pytest.importorskip("tensorflow")
    build, want = PIPELINES[case]
    assert _show(build(tf.data.Dataset, tf.TensorSpec)) == want


@pytest.mark.parametrize("args, want, card", [
    ((3,), [[0, 1, 2], [3, 4, 5], [6]], 3),
    ((3, 2, 2, True), [[0, 2, 4], [2, 4, 6]], 2),
    ((2, 3), [[0, 1], [3, 4], [6]], 3),
    ((3, 1), [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6], [5, 6], [6]], 7)])
def test_window_elements_and_cardinality_equal_tf_data(args, want, card):
    ds = fg.data.Dataset.range(7).window(*args)
    assert [_show(w) for w in ds] == want
    assert int(ds.cardinality()) == card
    tf = pytest.importorskip("tensorflow")
    ref = tf.data.Dataset.range(7).window(*args)
    assert [_show(w) for w in ref] == want and int(ref.cardinality()) == card


def test_window_of_structures_gives_structures_of_datasets():
    ds = fg.data.Dataset.from_tensor_slices(([1, 2, 3], [4., 5., 6.])).window(2)
    assert [(_show(a), _show(b)) for a, b in ds] == [([1, 2], [4.0, 5.0]), ([3], [6.0])]
    spec = ds.element_spec
    assert spec[0].element_spec == fg.TensorSpec((), fg.int32)
    assert spec[1].element_spec == fg.TensorSpec((), fg.float32)
    ds = fg.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).window(2)
    assert [_show(d["a"]) for d in ds] == [[1, 2], [3]]
    with pytest.raises(ValueError, match="size must be a positive integer"):
        fg.data.Dataset.range(3).window(0)
    assert _show(fg.data.Dataset.counter().window(2).take(2).flat_map(lambda d: d)) == \
        [0, 1, 2, 3]


def test_choose_and_sample_from_datasets():
    D = fg.data.Dataset
    choice = D.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1], np.int64))
    both = [D.range(3), D.range(10, 13)]
    assert _show(D.choose_from_datasets(both, choice)) == [0, 10, 11, 1, 2]
    # recorded from tf.data 2.21 with stop_on_empty_dataset=False
    assert _show(D.choose_from_datasets(both, choice, stop_on_empty_dataset=False)) == \
        [0, 10, 11, 1, 2, 12]
    with pytest.raises(TypeError, match="scalar `tf.int64`"):
        D.choose_from_datasets(both, D.from_tensor_slices([0, 1]))
    a = _show(D.sample_from_datasets([D.range(100), D.range(1000, 1100)], [0.9, 0.1], seed=3))
    assert a == _show(D.sample_from_datasets([D.range(100), D.range(1000, 1100)], [0.9, 0.1],
                                             seed=3))
    assert sorted(a) == list(range(100)) + list(range(1000, 1100))
    assert sum(x >= 1000 for x in a[:50]) < 15          # weighted 9:1 while both last
    stopped = _show(D.sample_from_datasets([D.range(2), D.range(10, 100)], seed=0,
                                           stop_on_empty_dataset=True))
    assert len(stopped) < 92 and set(stopped) >= {0, 1}


def test_errors_and_single_element():
    D = fg.data.Dataset
    assert int(D.from_tensors(5).get_single_element()) == 5
    with pytest.raises(InvalidArgumentError, match="empty"):
        D.range(0).get_single_element()
    with pytest.raises(InvalidArgumentError, match="more than one"):
        D.range(2).get_single_element()
    with pytest.raises(ValueError, match="window_size"):
        D.range(3).group_by_window(_key, lambda k, d: d)
    with pytest.raises(ValueError, match="int64"):
        list(D.from_tensor_slices([1, 2]).group_by_window(lambda x: x, lambda k, d: d, 2))
    with pytest.raises(InvalidArgumentError, match="length < max"):
        list(_seqs(D, fg.TensorSpec).bucket_by_sequence_length(
            _length, [3, 5], [2, 2, 2], pad_to_bucket_boundary=True))
    with pytest.raises(TypeError, match="scalar integers or strings"):
        D.from_tensor_slices([[1.0]]).unique()
    with pytest.raises(InvalidArgumentError, match="index"):
        D.range(3).shard(2, 2)
    assert int(D.range(10).shard(3, 1).cardinality()) == 3
    assert int(D.range(10).take_while(lambda x: x < 3).cardinality()) == -2
    assert int(D.range(3).scan(0, lambda s, x: (s, x)).cardinality()) == 3

"""finegrad.data: Dataset sources and transformations, structure and element_spec, against
closed forms and (when installed) tf.data's own results."""
import collections

import numpy as np
import pytest

import finegrad as fg
from finegrad.data import Dataset

X = np.arange(20, dtype=np.float32).reshape(10, 2)
Y = np.arange(10, dtype=np.int32)


def _np(element):
    if isinstance(element, dict):
        return {k: _np(v) for k, v in element.items()}
    if isinstance(element, tuple):
        return tuple(_np(v) for v in element)
    return element.numpy().tolist()


def _all(ds):
    return [_np(e) for e in ds]


def test_from_tensor_slices_keeps_structure_and_spec():
    ds = Dataset.from_tensor_slices({"x": X, "y": Y})
    first = next(iter(ds))
    assert isinstance(first, dict) and isinstance(first["x"], fg.Tensor)
    assert _np(first) == {"x": [0., 1.], "y": 0}
    assert ds.element_spec == {"x": fg.TensorSpec((2,), fg.float32),
                               "y": fg.TensorSpec((), fg.int32)}
    assert len(ds) == 10 and int(ds.cardinality()) == 10
    pair = Dataset.from_tensor_slices((X, Y)).batch(4)
    assert [tuple(np.shape(c) for c in e) for e in _all(pair)] == \
        [((4, 2), (4,)), ((4, 2), (4,)), ((2, 2), (2,))]
    assert pair.element_spec == (fg.TensorSpec((None, 2), fg.float32),
                                 fg.TensorSpec((None,), fg.int32))
    with pytest.raises(ValueError, match="first dimensions differ"):
        Dataset.from_tensor_slices((X, Y[:3]))


def test_transformations_closed_form():
    ds = Dataset.range(10)
    assert _all(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert _all(ds.map(lambda x: x * 2).take(3)) == [0, 2, 4]
    assert _all(ds.skip(8).repeat(2)) == [8, 9, 8, 9]
    assert _all(ds.batch(4, drop_remainder=True).unbatch()) == list(range(8))
    assert len(ds.batch(4, drop_remainder=True)) == 2 and len(ds.batch(4)) == 3
    assert _all(Dataset.zip(ds.take(2), ds.skip(5)).map(lambda a, b: a + b)) == [5, 7]
    assert _all(ds.take(2).enumerate(start=3)) == [(3, 0), (4, 1)]
    assert _all(ds.take(2).concatenate(Dataset.range(7, 8))) == [0, 1, 7]
    assert int(ds.repeat().cardinality()) == fg.data.INFINITE_CARDINALITY
    assert int(ds.filter(lambda x: True).cardinality()) == fg.data.UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())
    assert fg.data.AUTOTUNE == fg.data.experimental.AUTOTUNE == -1
    assert _all(ds.take(3).prefetch(fg.data.AUTOTUNE)) == [0, 1, 2]


def test_map_spreads_tuples_and_builds_dicts():
    ds = Dataset.from_tensor_slices((X, Y)).map(lambda x, y: {"sum": fg.reduce_sum(x),
                                                              "y": y})
    assert _np(next(iter(ds))) == {"sum": 1.0, "y": 0}
    assert ds.element_spec == {"sum": fg.TensorSpec((), fg.float32),
                               "y": fg.TensorSpec((), fg.int32)}
    Point = collections.namedtuple("Point", "a b")
    nt = Dataset.from_tensors(Point(fg.constant(1.), fg.constant(2)))
    assert isinstance(next(iter(nt)), Point)


def test_shuffle_is_a_permutation_seeded_and_reshuffled():
    ds = Dataset.range(50).shuffle(10, seed=3)
    a, b = _all(ds), _all(ds)
    assert sorted(a) == list(range(50)) and a != list(range(50))
    assert a != b                                     # reshuffled each iteration
    assert _all(Dataset.range(50).shuffle(10, seed=3)) == a     # reproducible
    fixed = Dataset.range(50).shuffle(50, seed=3, reshuffle_each_iteration=False)
    assert _all(fixed) == _all(fixed)
    # a buffer of 1 keeps the order; a small buffer only moves elements so far forward
    assert _all(Dataset.range(10).shuffle(1)) == list(range(10))
    assert all(v <= i + 2 for i, v in enumerate(_all(Dataset.range(30).shuffle(3, seed=1))))


def test_from_generator_padded_batch_and_cache():
    calls = []

    def gen():
        calls.append(1)
        for n in (1, 3, 2):
            yield np.arange(n, dtype=np.int32), n

    sig = (fg.TensorSpec((None,), fg.int32), fg.TensorSpec((), fg.int64))
    ds = Dataset.from_generator(gen, output_signature=sig)
    out = _all(ds.padded_batch(2, padding_values=(-1, 0)))
    assert out == [([[0, -1, -1], [0, 1, 2]], [1, 3]), ([[0, 1]], [2])]
    fixed = _all(ds.padded_batch(3, padded_shapes=([4], [])))
    assert np.shape(fixed[0][0]) == (3, 4)
    cached = ds.cache()
    assert _all(cached) == _all(cached) and len(calls) == 3   # replayed, not rerun
    with pytest.raises(fg.errors.InvalidArgumentError, match="does not match"):
        _all(Dataset.from_generator(gen, output_signature=(fg.TensorSpec((2,), fg.int32),
                                                           fg.TensorSpec((), fg.int64))))
    with pytest.raises(fg.errors.InvalidArgumentError, match="different shapes"):
        _all(ds.batch(2))


def test_iterator_get_next_and_numpy():
    it = iter(Dataset.range(1))
    assert int(it.get_next()) == 0
    with pytest.raises(fg.errors.OutOfRangeError):
        it.get_next()
    assert list(Dataset.range(2).as_numpy_iterator()) == [0, 1]


def test_a_training_loop_over_a_dataset():
    w = fg.Variable(0.)
    ds = Dataset.from_tensor_slices((X[:, 0], 3 * X[:, 0])).shuffle(10, seed=0).batch(5)
    for _ in range(30):
        for x, y in ds:
            with fg.GradientTape() as tape:
                loss = fg.reduce_mean((w * x - y) ** 2)
            w.assign_sub(0.002 * tape.gradient(loss, w))
    assert float(w) == pytest.approx(3., abs=1e-3)


@pytest.fixture(scope="module")
def tfd():
    return pytest.importorskip("tensorflow").data


def _tf_flat(spec):
    if isinstance(spec, dict):
        return [c for k in sorted(spec) for c in _tf_flat(spec[k])]
    if isinstance(spec, tuple):
        return [c for v in spec for c in _tf_flat(v)]
    return [spec]


def _tf_all(ds):
    def conv(e):
        if isinstance(e, dict):
            return {k: conv(v) for k, v in e.items()}
        if isinstance(e, tuple):
            return tuple(conv(v) for v in e)
        return e.numpy().tolist()
    return [conv(e) for e in ds]


PIPELINES = {
    "slices_batch": lambda D: D.from_tensor_slices((X, Y)).batch(3),
    "dict_map_filter": lambda D: D.from_tensor_slices({"x": X, "y": Y}).map(
        lambda d: {"x": d["x"] * 2., "y": d["y"]}).filter(lambda d: d["y"] % 2 == 0),
    "range_repeat_take": lambda D: D.range(4).repeat(3).skip(2).take(7),
    "zip_enumerate": lambda D: D.zip(D.range(3), D.from_tensor_slices(Y)).enumerate(2),
    "unbatch": lambda D: D.from_tensor_slices(X.reshape(5, 2, 2)).unbatch().batch(3,
                                                                                 True),
    "map_batch": lambda D: D.range(1, 5).map(lambda n: n * n).batch(2),
    "tensors": lambda D: D.from_tensors((X, Y)),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipelines_equal_tf_data(tfd, name):
    ours, theirs = PIPELINES[name](Dataset), PIPELINES[name](tfd.Dataset)
    assert _all(ours) == _tf_all(theirs)
    assert int(ours.cardinality()) == int(theirs.cardinality())
    ours_spec = [(s.shape, s.dtype.name) for s in fg.nest.flatten(ours.element_spec)]
    theirs_spec = [(tuple(s.shape.as_list()) if s.shape.rank is not None else None,
                    s.dtype.name) for s in _tf_flat(theirs.element_spec)]
    assert ours_spec == theirs_spec


def test_padded_batch_equals_tf_data(tfd):
    import tensorflow as real_tf

    def gen():
        for n in (2, 4, 1, 3):
            yield np.arange(n, dtype=np.int32)

    ours = Dataset.from_generator(gen, output_signature=fg.TensorSpec([None], fg.int32))
    theirs = tfd.Dataset.from_generator(
        gen, output_signature=real_tf.TensorSpec([None], real_tf.int32))
    for kwargs in ({}, {"padded_shapes": [5], "padding_values": 7},
                   {"drop_remainder": True}):
        assert _all(ours.padded_batch(3, **kwargs)) == _tf_all(theirs.padded_batch(3,
                                                                                  **kwargs))


def test_batches_of_rows_equal_batches_of_elements():
    # from_tensor_slices -> shuffle/repeat/skip/take -> batch gathers rows by index; a map
    # in front takes the element-by-element path: both give the same batches
    def pipeline(ds):
        return ds.shuffle(7, seed=2).repeat(2).skip(3).take(15).prefetch(2).batch(4)
    fast = pipeline(Dataset.from_tensor_slices({"x": X, "y": Y}))
    slow = pipeline(Dataset.from_tensor_slices({"x": X, "y": Y}).map(lambda d: d))
    assert fast._rows is None and Dataset.from_tensor_slices(X)._rows is not None
    assert _all(fast) == _all(slow)
    assert fast.element_spec == slow.element_spec and len(fast) == len(slow) == 4


@pytest.mark.parametrize("cycle,block", [(1, 1), (2, 1), (3, 2), (2, 3)])
def test_interleave_equals_tf_data(tfd, cycle, block):
    def make(D):
        return D.range(1, 6).interleave(lambda n: D.range(n).map(lambda x: x + 10 * n),
                                        cycle_length=cycle, block_length=block)
    assert _all(make(Dataset)) == _tf_all(make(tfd.Dataset))


def test_flat_map_reduce_apply():
    ds = Dataset.range(1, 4).flat_map(lambda n: Dataset.range(n))
    assert _all(ds) == [0, 0, 1, 0, 1, 2]
    assert int(ds.reduce(fg.constant(0, fg.int64), lambda s, x: s + x)) == 4
    assert _all(Dataset.range(3).apply(lambda d: d.skip(1))) == [1, 2]
    assert ds.element_spec == fg.TensorSpec((), fg.int64)


def test_strings_and_numpy_iteration_equal_tf_data(tfd):
    def make(D):
        return D.from_tensor_slices((["a", "bb", "c"], [1., 2., 3.]))
    ours, theirs = list(make(Dataset).as_numpy_iterator()), list(
        make(tfd.Dataset).as_numpy_iterator())
    assert ours == theirs and type(ours[0][1]) is type(theirs[0][1])
    ours = list(make(Dataset).batch(2).unbatch().padded_batch(3).as_numpy_iterator())
    theirs = list(make(tfd.Dataset).batch(2).unbatch().padded_batch(3).as_numpy_iterator())
    assert [a.tolist() for a, _ in ours] == [a.tolist() for a, _ in theirs]

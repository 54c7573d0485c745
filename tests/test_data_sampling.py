"""finegrad.data's seeded sources and selections against tf.data 2.21: `Dataset.random`
with ``rerandomize_each_iteration``, `sample_from_datasets` (TensorFlow's draws for the same
seeds), `choose_from_datasets`, and `rejection_resample`'s determinism under a global seed.
Expected values were recorded from tf.data 2.21; with TensorFlow installed they are also
compared live."""
import numpy as np
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


def test_random_rerandomized_each_iteration():
    ds = Dataset.random(seed=4, rerandomize_each_iteration=True).take(2)
    assert _ints(ds) == [1905554911, 4215726141]       # tf.data 2.21
    assert _ints(ds) == [1683472663, 2279948892]


def test_sample_from_datasets_values():
    ds = Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(100, 110)],
                                      weights=[0.7, 0.3], seed=4)
    assert _ints(ds) == [0, 100, 1, 2, 101, 102, 103, 104, 105, 106, 107, 108, 109]
    fg.random.set_seed(3)
    ds = Dataset.sample_from_datasets([Dataset.range(4), Dataset.range(10, 14)])
    assert _ints(ds) == [0, 10, 11, 1, 2, 12, 13, 3]


def test_sample_from_datasets_errors():
    with pytest.raises(TypeError, match="float32 or float64"):
        Dataset.sample_from_datasets([Dataset.range(2)] * 2, weights=fg.constant([1, 1]))
    with pytest.raises(ValueError, match="one entry per dataset"):
        Dataset.sample_from_datasets([Dataset.range(2)] * 2, weights=[1.])


def _rejection(seed):
    ds = Dataset.from_tensor_slices([0] * 90 + [1] * 10).repeat(5)
    return [int(c) for c, _ in ds.rejection_resample(lambda x: x, [0.5, 0.5], seed=seed)]


def _three_classes(D, m, **kw):
    ds = D.from_tensor_slices(m.constant(([0] * 6 + [1] * 3 + [2]) * 20, m.int64)).map(
        lambda x: (x, m.cast(x, m.float32) * 2.))
    out = ds.rejection_resample(lambda x, y: m.cast(x, m.int32), [0.2, 0.3, 0.5], **kw)
    return [(int(c), int(e[0]), float(e[1])) for c, e in out]


def test_rejection_resample_values():
    got = _three_classes(Dataset, fg, seed=3)
    assert len(got) == 67 and all(c == e and 2 * e == f for c, e, f in got)
    assert [c for c, _, _ in got[:12]] == [1, 1, 1, 0, 2, 1, 2, 2, 1, 0, 2, 0]   # tf.data 2.21


@pytest.mark.parametrize("global_seed", [None, 4])
@pytest.mark.parametrize("kw", [dict(seed=3), dict(seed=3, initial_dist=[0.6, 0.3, 0.1]),
                                dict(seed=7, initial_dist=[0.2, 0.3, 0.5]),
                                dict(initial_dist=[0.3, 0.3, 0.4]), dict()],
                         ids=["estimated", "initial", "unchanged", "global only", "no seed"])
def test_rejection_resample_live_against_tf(global_seed, kw):
    tf = pytest.importorskip("tensorflow")
    if global_seed is None and "seed" not in kw:
        pytest.skip("no seed at all: random in both")
    tf.random.set_seed(global_seed)
    try:
        want = _three_classes(tf.data.Dataset, tf, **kw)
    finally:
        tf.random.set_seed(None)
    fg.random.set_seed(global_seed)
    assert _three_classes(Dataset, fg, **kw) == want


def test_rejection_resample_deterministic_under_global_seed():
    fg.random.set_seed(11)
    first = [_rejection(None), _rejection(None)]
    fg.random.set_seed(11)
    assert [_rejection(None), _rejection(None)] == first
    assert first[0] != first[1]                 # each op takes the next op seed
    assert _rejection(3) == _rejection(3)       # an op seed alone
    counts = np.bincount(first[0], minlength=2)
    assert abs(counts[1] / counts.sum() - 0.5) < 0.1


def _pipelines(D, m):
    R = D.range
    weights = D.from_tensor_slices([[0.9, 0.1]] * 5 + [[0.1, 0.9]] * 5)
    choice = D.from_tensor_slices(m.constant([0, 1, 1, 1, 0, 0, 1, 0], m.int64))
    return {
        "uniform": lambda: D.sample_from_datasets([R(100), R(100, 200)], seed=1).take(12),
        "zero weight dropped": lambda: D.sample_from_datasets(
            [R(100), R(100, 200), R(200, 300)], weights=[0.2, 0.8, 0.], seed=1).take(12),
        "stop on empty": lambda: D.sample_from_datasets(
            [R(3), R(100, 110)], weights=[0.7, 0.3], seed=4, stop_on_empty_dataset=True),
        "rerandomize": lambda: D.sample_from_datasets(
            [R(3), R(100, 105)], rerandomize_each_iteration=True, seed=5),
        "weights dataset": lambda: D.sample_from_datasets([R(100), R(100, 200)],
                                                          weights=weights, seed=2),
        "float64 tensor": lambda: D.sample_from_datasets(
            [R(10), R(100, 110)], weights=m.constant([0.5, 0.5], m.float64), seed=2),
        "choose, go on": lambda: D.choose_from_datasets([R(3), R(10, 12)], choice,
                                                        stop_on_empty_dataset=False),
        "choose, stop": lambda: D.choose_from_datasets([R(3), R(10, 12)], choice),
    }


@pytest.mark.parametrize("name", sorted(_pipelines(Dataset, fg)))
@pytest.mark.parametrize("global_seed", [None, 3])
def test_selections_equal_tensorflow_live(name, global_seed):
    tf = pytest.importorskip("tensorflow")
    tf.random.set_seed(global_seed)
    try:
        want = _pipelines(tf.data.Dataset, tf)[name]()
        want = [_ints(want) for _ in range(2)]
    finally:
        tf.random.set_seed(None)
    fg.random.set_seed(global_seed)
    got = _pipelines(Dataset, fg)[name]()
    assert [_ints(got) for _ in range(2)] == want

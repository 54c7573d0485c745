"""finegrad.data's file methods: save/load (TensorFlow's format; the format itself, and live
exchanges with TensorFlow, in tests/test_data_tf_format.py), snapshot, list_files.
Orders and errors follow tf.data 2.21 (compared live when TensorFlow is installed; the
recorded expectations came from the same pipelines on tf.data)."""
import collections
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.data import Dataset
from finegrad.errors import DataLossError, InvalidArgumentError, NotFoundError

Point = collections.namedtuple("Point", ["x", "label"])


def _py(e):
    if isinstance(e, dict):
        return {k: _py(v) for k, v in e.items()}
    if isinstance(e, tuple):
        return tuple(_py(v) for v in e)
    return np.asarray(e).tolist()


def _nested(D):
    return D.range(6).map(lambda x: (x, {"a": x * 2, "s": x}))


def test_save_load_round_trips_values_and_element_spec(tmp_path):
    ds = Dataset.from_tensor_slices(Point(np.arange(12.).reshape(6, 2).astype(np.float32),
                                          np.array([b"a", b"bb", b"", b"c", b"dd", b"e"],
                                                   dtype=object)))
    ds.save(str(tmp_path / "p"))
    back = Dataset.load(str(tmp_path / "p"))
    assert back.element_spec == ds.element_spec
    assert type(back.element_spec).__name__ == "Point"
    assert [_py(e) for e in back] == [_py(e) for e in ds]
    assert int(back.cardinality()) == 6
    assert back.element_spec.label.dtype == fg.string


def test_save_with_shard_func_and_gzip_load_order(tmp_path):
    p = str(tmp_path / "s")
    _nested(Dataset).save(p, compression="GZIP", shard_func=lambda x, y: x % 2)
    run, spec_file, meta_file = sorted(os.listdir(p))
    assert (spec_file, meta_file) == ("dataset_spec.pb", "snapshot.metadata")
    assert sorted(os.listdir(os.path.join(p, run))) == ["00000000.shard", "00000001.shard"]
    back = Dataset.load(p, compression="GZIP")
    expected = [(i, {"a": 2 * i, "s": i}) for i in range(6)]   # tf.data 2.21's order
    assert [_py(e) for e in back] == expected
    custom = Dataset.load(p, compression="GZIP", reader_func=lambda dss: dss.flat_map(
        lambda d: d))
    assert [_py(e)[0] for e in custom] == [0, 2, 4, 1, 3, 5]
    with pytest.raises(DataLossError, match="Dataset.load: corrupted record at 0"):
        list(Dataset.load(p))                 # read as uncompressed, as tf.data: at iteration
    fg.data.experimental.save(Dataset.range(2), str(tmp_path / "e"))
    assert [int(x) for x in fg.data.experimental.load(str(tmp_path / "e"))] == [0, 1]


def test_save_load_live_against_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    _nested(tf.data.Dataset).save(str(tmp_path / "tf"), shard_func=lambda x, y: x % 2)
    _nested(Dataset).save(str(tmp_path / "fg"), shard_func=lambda x, y: x % 2)
    theirs = tf.data.Dataset.load(str(tmp_path / "tf"))
    ours = Dataset.load(str(tmp_path / "fg"))
    assert [_py(e) for e in ours] == [_py(e) for e in theirs.as_numpy_iterator()]
    assert int(ours.cardinality()) == int(theirs.cardinality())


def test_save_load_errors(tmp_path):
    with pytest.raises(NotFoundError, match="Dataset.load: tf.data snapshot element_spec "
                                            "file not found"):
        Dataset.load(str(tmp_path / "missing"))
    with pytest.raises(NotFoundError, match=r"Dataset.load: Could not find metadata file"):
        Dataset.load(str(tmp_path / "missing"), element_spec=fg.TensorSpec((), fg.int64))
    with pytest.raises(InvalidArgumentError, match="Dataset.save: `shard_func` must return "
                                                   "a scalar int64"):
        Dataset.range(3).save(str(tmp_path / "a"), shard_func=lambda x: fg.cast(x, fg.int32))
    assert not os.path.exists(tmp_path / "a" / "snapshot.metadata")
    with pytest.raises(ValueError, match="compression must be"):
        Dataset.range(3).save(str(tmp_path / "b"), compression="zip")
    Dataset.range(3).save(str(tmp_path / "c"))
    wrong = Dataset.load(str(tmp_path / "c"), element_spec=fg.TensorSpec((), fg.float32))
    with pytest.raises(InvalidArgumentError, match="Data type mismatch at component 0: "
                                                   "expected float32 but got int64"):
        list(wrong)
    wrong = Dataset.load(str(tmp_path / "c"), element_spec=fg.TensorSpec((3,), fg.int64))
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes at component 0: "
                                                   r"expected \[3\] but got \[\]"):
        list(wrong)
    Dataset.range(5, 7).save(str(tmp_path / "c"))           # a new run, as tf.data
    assert [int(x) for x in Dataset.load(str(tmp_path / "c"))] == [5, 6]


def test_snappy_without_cramjam_says_what_to_install(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "cramjam", None)      # import cramjam: ImportError
    with pytest.raises(ImportError, match=r"Dataset.save: compression='SNAPPY' needs the "
                                          r"optional 'cramjam' package: pip install "
                                          r"\"finegrad\[data\]\""):
        Dataset.range(3).save(str(tmp_path / "b"), compression="SNAPPY")
    assert not os.path.exists(tmp_path / "b")
    with pytest.raises(ImportError, match="Dataset.load: compression='SNAPPY'"):
        Dataset.load(str(tmp_path / "b"), compression="SNAPPY")
    ds = Dataset.range(3).snapshot(str(tmp_path / "s"))      # AUTO: uncompressed here
    assert [int(x) for x in ds] == [0, 1, 2] == [int(x) for x in ds]


_CALLS: list = []     # a global: the fingerprint follows closures' values, not globals


def test_snapshot_computes_once_and_reads_back(tmp_path):
    calls = _CALLS
    calls.clear()

    def f(x):
        _CALLS.append(int(x))
        return x * 2

    def pipeline():
        return Dataset.range(4).map(f).snapshot(str(tmp_path))
    ds = pipeline()
    assert [int(x) for x in ds] == [0, 2, 4, 6] and calls[:4] == [0, 1, 2, 3]
    n = len(calls)        # (plus, at most, one call computing the element spec, as TF traces)
    assert [int(x) for x in ds] == [0, 2, 4, 6] and len(calls) == n
    assert [int(x) for x in pipeline()] == [0, 2, 4, 6] and len(calls) == n
    assert int(ds.cardinality()) == 4
    other = Dataset.range(4).map(lambda x: x * 3).snapshot(str(tmp_path))
    assert [int(x) for x in other] == [0, 3, 6, 9]          # a new fingerprint: no stale data
    assert len([d for d in os.listdir(tmp_path) if not d.startswith(".")]) == 2


def test_snapshot_partial_iteration_writes_nothing(tmp_path):
    calls = _CALLS
    calls.clear()
    ds = Dataset.range(5).map(lambda x: _CALLS.append(1) or x).snapshot(str(tmp_path))
    it = iter(ds)
    next(it)
    del it
    assert [int(x) for x in ds] == [0, 1, 2, 3, 4]
    n = len(calls)
    assert n >= 6                 # the abandoned iteration's element was not kept
    assert [int(x) for x in ds] == [0, 1, 2, 3, 4] and len(calls) == n
    snap = ds.apply(fg.data.experimental.snapshot(str(tmp_path)))
    assert [int(x) for x in snap] == [0, 1, 2, 3, 4]


def _touch(d, names):
    for n in names:
        open(os.path.join(d, n), "w").close()


def test_list_files(tmp_path):
    _touch(tmp_path, ["b.txt", "a.txt", "c.txt", "d.csv"])
    d = str(tmp_path)
    names = [os.path.basename(x) for x in Dataset.list_files(d + "/*.txt", shuffle=False)
             .as_numpy_iterator()]
    assert names == [b"a.txt", b"b.txt", b"c.txt"]
    two = Dataset.list_files([d + "/c*", d + "/a*"], shuffle=False)
    assert [os.path.basename(x) for x in two.as_numpy_iterator()] == [b"a.txt", b"c.txt"]
    assert two.element_spec == fg.TensorSpec((), fg.string) and int(two.cardinality()) == 2
    s1 = list(Dataset.list_files(d + "/*", seed=3).as_numpy_iterator())
    s2 = list(Dataset.list_files(d + "/*", seed=3).as_numpy_iterator())
    assert s1 == s2 and sorted(s1) == sorted(x.encode() for x in
                                            (os.path.join(d, n) for n in os.listdir(d)))
    with pytest.raises(InvalidArgumentError, match="Dataset.list_files: No files matched "
                                                   "pattern: .*/none"):
        Dataset.list_files(d + "/none")


def test_list_files_hidden_names_and_directories_as_tf(tmp_path):
    os.mkdir(tmp_path / "sub")
    _touch(tmp_path, [".h", "a", "sub/b"])
    d = str(tmp_path)

    def names(pattern):
        return [x[len(d) + 1:] for x in Dataset.list_files(pattern, shuffle=False)
                .as_numpy_iterator()]
    # TF 2.21's matching_files: hidden names match, directories too, ** is *
    assert names(d + "/*") == [b".h", b"a", b"sub"] == names(d + "/**")
    assert names(d + "/*/b") == [b"sub/b"] and names(d + "/[ab]") == [b"a"]


def test_list_files_live_against_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    os.mkdir(tmp_path / "d")
    _touch(tmp_path, ["x1", "x3", "x2", "y", ".x4", "d/x5"])
    for pattern in ([str(tmp_path / "x*"), str(tmp_path / "y")], str(tmp_path / "*"),
                    str(tmp_path / "*/x?"), str(tmp_path / ".x[0-9]")):
        assert list(Dataset.list_files(pattern, shuffle=False).as_numpy_iterator()) == \
            list(tf.data.Dataset.list_files(pattern, shuffle=False).as_numpy_iterator())
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        tf.data.Dataset.list_files(str(tmp_path / "none"))


_SNAPSHOT_SCRIPT = """
import sys
import numpy as np
import finegrad as fg
calls = []
ds = fg.data.Dataset.from_tensor_slices(np.arange(5.)).map(
    lambda x: calls.append(1) or x * 2).batch(2).snapshot(sys.argv[1])
print([v.tolist() for v in ds.as_numpy_iterator()], len(calls), int(ds.fingerprint()))
"""


def test_snapshot_is_read_back_by_a_later_process(tmp_path):
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)

    def run():
        out = subprocess.run([sys.executable, "-c", _SNAPSHOT_SCRIPT, str(tmp_path)],
                             capture_output=True, text=True, env=env, timeout=300, check=True)
        return out.stdout.split("]] ")[0] + "]]", out.stdout.split("]] ")[1].split()
    first, (n1, fp1) = run()
    second, (n2, fp2) = run()
    assert first == second == "[[0.0, 2.0], [4.0, 6.0], [8.0]]"
    assert fp1 == fp2 and int(n1) >= 5 and int(n2) == 0     # the second process computed none

"""TensorFlow's saved-dataset format in finegrad.data: the protocol buffers (tf_protos), the
TFRecord container with its CRC-32C and compressions (tfrecords), and datasets saved by
TensorFlow 2.21 loaded by finegrad and the other way round (live, when TensorFlow is
installed; Snappy needs cramjam)."""
import collections
import glob
import json
import os
import random

import numpy as np
import pytest

import finegrad as fg
from finegrad._src.data import tf_protos, tfrecords
from finegrad.data import Dataset
from finegrad.errors import DataLossError, NotFoundError

Point = collections.namedtuple("Point", ["x", "label"])
COMPRESSIONS = [None, "GZIP", "ZLIB", "SNAPPY"]


def _crc_reference(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_crc32c_known_values_and_every_length():
    assert tfrecords.crc32c([b"123456789", b"", b"\0" * 32]) == [0xE3069283, 0, 0x8A9136AA]
    rng = random.Random(0)
    lengths = list(range(0, 70)) + [1023, 1024, 4095, 4096, 4097, 8192, 8193, 13000]
    msgs = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lengths]
    assert tfrecords.crc32c(msgs) == [_crc_reference(m) for m in msgs]


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_tfrecords_round_trip_and_corruption(tmp_path, compression):
    if compression == "SNAPPY":
        pytest.importorskip("cramjam")
    rng = np.random.default_rng(0)
    records = [rng.bytes(n) for n in (0, 1, 12, 300, 70_000, 200_000, 5)]  # across blocks
    path = str(tmp_path / "r")
    w = tfrecords.RecordWriter(path, compression, "t")
    w.write(records[:3])
    w.write(records[3:])
    w.close()
    assert list(tfrecords.read_records(path, compression, "t")) == records
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x40
    open(path, "wb").write(bytes(data))
    with pytest.raises(DataLossError, match="t: "):
        list(tfrecords.read_records(path, compression, "t"))
    open(path, "wb").write(bytes(data[:len(data) // 3]))
    with pytest.raises(DataLossError, match="t: "):
        list(tfrecords.read_records(path, compression, "t"))


_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.uint8, np.int8,
           np.int16, np.uint16, np.uint32, np.uint64, np.float16, np.complex64,
           np.complex128]


def test_tensor_protos_round_trip():
    rng = np.random.default_rng(1)
    for dt in _DTYPES:
        for shape in [(), (3,), (2, 0, 3), (2, 3)]:
            v = (rng.normal(size=shape) * 50).astype(dt)
            back = tf_protos.decode_tensor(tf_protos.encode_tensor(
                v, tf_protos.DATA_TYPES[fg.as_dtype(dt)]))
            assert back.dtype == v.dtype and back.shape == v.shape
            np.testing.assert_array_equal(back, v)
    s = np.array([b"", b"a", b"\xff" * 200, "\u00e9".encode()], dtype=object).reshape(2, 2)
    assert tf_protos.decode_tensor(tf_protos.encode_tensor(s, 7)).tolist() == s.tolist()
    with pytest.raises(tf_protos.ProtoError):
        tf_protos.decode_tensor(b"\x08\x0e\x12\x00")          # bfloat16: finegrad has none
    with pytest.raises(tf_protos.ProtoError):
        tf_protos.decode_tensor(b"\x08\x01\x12\x02\x12\x00\x22\x03abc")   # 3 bytes != f32


def test_specs_and_metadata_round_trip():
    spec = (fg.TensorSpec((None, 3), fg.float32, name="img"),
            {"b": fg.TensorSpec(None, fg.string), "a": Point(fg.TensorSpec((), fg.int64),
                                                           fg.TensorSpec((2,), fg.bool))})
    back = tf_protos.decode_spec(tf_protos.encode_spec(spec, "t"))
    assert back == spec and type(back[1]["a"]).__name__ == "Point"
    assert back[0].name == "img" and back[1]["b"].shape.rank is None
    meta = tf_protos.Metadata("12", "345", 1700000000000000, 2, [1, 7, 9], 6, True)
    assert tf_protos.decode_metadata(tf_protos.encode_metadata(meta)) == meta
    with pytest.raises(tf_protos.ProtoError, match="list"):
        tf_protos.decode_spec(b"\x9a\x03\x00")                # a ListValue


def _elements():
    """Nested tuples and dicts, every dtype the issue names, scalars and shaped tensors."""
    n = 7
    rng = np.random.default_rng(2)
    return (np.arange(n, dtype=np.int64),
            {"f32": rng.normal(size=(n, 2, 3)).astype(np.float32),
             "f64": rng.normal(size=n),
             "i32": np.arange(n, dtype=np.int32) * -3,
             "flag": np.arange(n) % 3 == 0,
             "text": np.array([f"s{i}".encode() * i for i in range(n)], dtype=object),
             "pair": (np.arange(2 * n, dtype=np.uint8).reshape(n, 2),
                      (np.arange(n) * 1.5).astype(np.float16) + 1j * 0)})


def _py(e):
    if isinstance(e, dict):
        return {k: _py(v) for k, v in sorted(e.items())}
    if isinstance(e, tuple):
        return tuple(_py(v) for v in e)
    v = np.asarray(e)
    return (v.dtype.str if v.dtype != object else "S", v.tolist())


def _shard(i, _):
    return i % 3


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_round_trip(tmp_path, compression):
    if compression == "SNAPPY":
        pytest.importorskip("cramjam")
    ds = Dataset.from_tensor_slices(_elements())
    ds.save(str(tmp_path), compression=compression, shard_func=_shard)
    back = Dataset.load(str(tmp_path), compression=compression)
    assert back.element_spec == ds.element_spec
    assert sorted(_py(e) for e in back) == sorted(_py(e) for e in ds)
    assert int(back.cardinality()) == 7


def test_uncompressed_files_are_tensorflows_bytes(tmp_path):
    """The shard file of Dataset.range(3) as TensorFlow 2.21 wrote it (recorded)."""
    Dataset.range(3).save(str(tmp_path))
    (shard,) = glob.glob(str(tmp_path / "*" / "00000000.shard" / "00000000.snapshot"))
    recorded = ("0e00000000000000c5e5693f0809120022080000000000000000882b95ea"
                "0e00000000000000c5e5693f0809120022080100000000000000a0bddf54"
                "0e00000000000000c5e5693f0809120022080200000000000000194f125f")
    assert open(shard, "rb").read().hex() == recorded
    assert open(tmp_path / "dataset_spec.pb", "rb").read() == b"\x8a\x02\x04\x12\x00\x18\x09"


def test_corrupt_and_missing_files(tmp_path):
    p = str(tmp_path / "d")
    Dataset.range(40).save(p)
    (shard,) = glob.glob(os.path.join(p, "*", "*.shard", "*.snapshot"))
    data = bytearray(open(shard, "rb").read())
    data[100] ^= 1
    open(shard, "wb").write(bytes(data))
    with pytest.raises(DataLossError, match="Dataset.load: corrupted record at"):
        list(Dataset.load(p))
    open(os.path.join(p, "snapshot.metadata"), "wb").write(b"\xff\xff\xff")
    with pytest.raises(DataLossError, match="snapshot.metadata is not a snapshot metadata"):
        Dataset.load(p)
    open(os.path.join(p, "dataset_spec.pb"), "wb").write(b"\x0a\x05ab")
    with pytest.raises(DataLossError, match="dataset_spec.pb is not an element spec"):
        Dataset.load(p)
    with pytest.raises(NotFoundError, match="element_spec file not found"):
        Dataset.load(str(tmp_path / "nothing"))


def test_legacy_finegrad_directories_still_load(tmp_path):
    """What finegrad's own format (before TensorFlow's) wrote for Dataset.range(3)."""
    with open(tmp_path / "shard_00000000.npyrec", "wb") as f:
        for i in range(3):
            np.lib.format.write_array(f, np.array(i, np.int64))
    json.dump({"format": "finegrad.data.save/1", "compression": None, "shards": [[0, 3]],
               "element_spec": {"tensor": {"shape": [], "dtype": "int64"}}},
              open(tmp_path / "finegrad_dataset.json", "w"))
    assert [int(x) for x in Dataset.load(str(tmp_path))] == [0, 1, 2]


def _tf_elements(tf):
    return tf.data.Dataset.from_tensor_slices(_elements())


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_tensorflow_saves_finegrad_loads(tmp_path, compression):
    tf = pytest.importorskip("tensorflow")
    _tf_elements(tf).save(str(tmp_path), compression=compression, shard_func=_shard)
    if compression == "SNAPPY":
        pytest.importorskip("cramjam")
    ours = Dataset.load(str(tmp_path), compression=compression)
    theirs = tf.data.Dataset.load(str(tmp_path), compression=compression)
    assert [_py(e) for e in ours.as_numpy_iterator()] == \
        [_py(e) for e in theirs.as_numpy_iterator()]
    flat_ours, flat_theirs = (tf.nest.flatten(s) for s in (ours.element_spec,
                                                            theirs.element_spec))
    assert [(s.dtype.name, tuple(s.shape)) for s in flat_ours] == \
        [(s.dtype.name, tuple(s.shape)) for s in flat_theirs]


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_finegrad_saves_tensorflow_loads(tmp_path, compression):
    tf = pytest.importorskip("tensorflow")
    if compression == "SNAPPY":
        pytest.importorskip("cramjam")
    Dataset.from_tensor_slices(_elements()).save(str(tmp_path), compression=compression,
                                                 shard_func=_shard)
    theirs = tf.data.Dataset.load(str(tmp_path), compression=compression)
    ours = Dataset.load(str(tmp_path), compression=compression)
    assert [_py(e) for e in theirs.as_numpy_iterator()] == \
        [_py(e) for e in ours.as_numpy_iterator()]
    assert theirs.element_spec == _tf_elements(tf).element_spec
    assert len(glob.glob(str(tmp_path / "*" / "*.shard"))) == 3      # shards 0, 1, 2


def test_snapshots_load_across(tmp_path):
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("cramjam")
    ds = Dataset.range(5).map(lambda x: (x, fg.cast(x, fg.float64) / 2))
    assert [tuple(map(float, e)) for e in ds.snapshot(str(tmp_path / "fg"))] == \
        [(i, i / 2) for i in range(5)]
    (run,) = glob.glob(str(tmp_path / "fg" / "*"))
    pairs = tf.data.Dataset.load(run, compression="SNAPPY")     # (index, element), as TF's
    assert sorted((int(i), float(y)) for i, (_, y) in pairs.as_numpy_iterator()) == \
        [(i, i / 2) for i in range(5)]
    list(tf.data.Dataset.range(4).map(lambda x: x * 3).snapshot(str(tmp_path / "tf")))
    (run,) = glob.glob(str(tmp_path / "tf" / "*"))
    spec = (fg.TensorSpec((), fg.int64), fg.TensorSpec((), fg.int64))
    back = Dataset.load(run, element_spec=spec, compression="SNAPPY")
    assert sorted((int(i), int(x)) for i, x in back) == [(i, 3 * i) for i in range(4)]


@pytest.mark.parametrize("compression", [None, "SNAPPY"])
def test_large_elements_cross_snappy_blocks_both_ways(tmp_path, compression):
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("cramjam")
    x = np.random.default_rng(3).normal(size=(2, 90_000)).astype(np.float32)  # incompressible
    s = np.array([b"z" * 200_000, b""], dtype=object)
    Dataset.from_tensor_slices((x, s)).save(str(tmp_path / "fg"), compression=compression)
    tf.data.Dataset.from_tensor_slices((x, s)).save(str(tmp_path / "tf"),
                                                    compression=compression)
    for got in (tf.data.Dataset.load(str(tmp_path / "fg"), compression=compression),
                Dataset.load(str(tmp_path / "tf"), compression=compression)):
        got = list(got.as_numpy_iterator())
        assert len(got) == 2
        assert all(np.array_equal(g[0], x[i]) and g[1] == s[i] for i, g in enumerate(got))


def test_reading_with_another_compression_is_data_loss(tmp_path):
    kinds = [None, "GZIP", "ZLIB"] + (["SNAPPY"] if _has_cramjam() else [])
    for saved in kinds:
        path = str(tmp_path / str(saved))
        Dataset.range(50).map(lambda x: (x, fg.cast(x, fg.float32))).save(
            path, compression=saved)
        for read in kinds:
            ds = Dataset.load(path, compression=read)
            if read == saved:
                assert [int(a) for a, _ in ds] == list(range(50))
                continue
            with pytest.raises(DataLossError, match="Dataset.load: "):
                list(ds)


def _has_cramjam():
    try:
        import cramjam  # noqa: F401
    except ImportError:
        return False
    return True


def test_tensor_protos_against_tensorflows_parser():
    tf = pytest.importorskip("tensorflow")
    for dt in _DTYPES:
        for value, shape in [(np.array(3, dt), None), (np.array([2], dt), [2, 3]),
                             (np.arange(4).astype(dt).reshape(2, 2), None)]:
            proto = tf.make_tensor_proto(value, shape=shape)    # typed value lists
            ours = tf_protos.decode_tensor(proto.SerializeToString())
            np.testing.assert_array_equal(ours, tf.make_ndarray(proto))
            assert ours.dtype == tf.make_ndarray(proto).dtype
            mine = tf_protos.encode_tensor(ours, tf_protos.DATA_TYPES[fg.as_dtype(dt)])
            back = tf.make_ndarray(type(proto).FromString(mine))
            np.testing.assert_array_equal(back, ours)
    strings = tf.make_tensor_proto(np.array([b"ab", b""], dtype=object))
    assert tf_protos.decode_tensor(strings.SerializeToString()).tolist() == [b"ab", b""]


def test_load_wait_retries_until_saved(tmp_path, monkeypatch):
    from finegrad._src.data import files
    path = str(tmp_path / "later")
    naps = []

    def nap(seconds):              # the first retry finds the dataset saved meanwhile
        naps.append(seconds)
        Dataset.range(2).save(path)
    monkeypatch.setattr(files.time, "sleep", nap)
    assert [int(x) for x in Dataset.load(path, wait=True)] == [0, 1] and naps == [5]


def _sharded_snapshot(D, where):
    return D.range(6).snapshot(str(where), shard_func=lambda x: x % 2,
                               reader_func=lambda dss: dss.flat_map(lambda d: d))


def test_snapshot_shard_func_and_reader_func(tmp_path):
    ds = _sharded_snapshot(Dataset, tmp_path / "fg")
    assert [int(x) for x in ds] == list(range(6))              # computed and written
    assert [int(x) for x in ds] == [0, 2, 4, 1, 3, 5]          # read back, shard by shard


def test_snapshot_shard_func_and_reader_func_live_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    theirs = _sharded_snapshot(tf.data.Dataset, tmp_path / "tf")
    assert [list(theirs.as_numpy_iterator()) for _ in range(2)] == \
        [list(range(6)), [0, 2, 4, 1, 3, 5]]

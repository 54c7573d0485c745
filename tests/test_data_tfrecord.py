"""finegrad.data.TFRecordDataset, finegrad.io.TFRecordWriter / TFRecordOptions and
compat.v1.io.tf_record_iterator: our own round trips, errors as tf.data raises them, and live
exchanges with TensorFlow 2.21 both ways for each compression."""
import importlib.util
import os

import pytest

import finegrad as fg
from finegrad.errors import DataLossError, FailedPreconditionError, NotFoundError

RECORDS = [b"abc", b"", bytes(range(256)) * 40, "unicodé".encode()]
CODECS = [None, "GZIP", "ZLIB"]


def _write(path, records, options=None):
    with fg.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def _read(path, compression=None, **kw):
    return [x.numpy() for x in fg.data.TFRecordDataset(str(path), compression_type=compression,
                                                       **kw)]


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip_each_compression(tmp_path, codec):
    _write(tmp_path / "r", RECORDS, codec)
    assert _read(tmp_path / "r", codec) == RECORDS
    assert list(fg.compat.v1.io.tf_record_iterator(str(tmp_path / "r"), codec)) == RECORDS


def test_options_object_and_str_records(tmp_path):
    _write(tmp_path / "r", ["text", b"b"], fg.io.TFRecordOptions(compression_type="ZLIB"))
    assert _read(tmp_path / "r", "ZLIB") == [b"text", b"b"]
    assert fg.io.TFRecordOptions.get_compression_type_string(None) == ""
    with pytest.raises(ValueError, match="SNAPPY"):
        fg.io.TFRecordOptions("SNAPPY")     # TensorFlow's writer has no Snappy either


def test_elements_are_string_scalars_and_cardinality_unknown(tmp_path):
    _write(tmp_path / "r", [b"x"])
    ds = fg.data.TFRecordDataset(str(tmp_path / "r"))
    assert isinstance(ds, fg.data.Dataset)
    assert ds.element_spec == fg.TensorSpec((), fg.string)
    assert int(ds.cardinality()) == fg.data.UNKNOWN_CARDINALITY
    (x,) = list(ds)
    assert x.dtype == fg.string and x.shape == ()
    assert [b.numpy().tolist() for b in ds.repeat(3).batch(2)] == [[b"x", b"x"], [b"x"]]


def test_several_files_sequential_parallel_and_from_a_dataset(tmp_path):
    _write(tmp_path / "a", [b"a1", b"a2", b"a3"])
    _write(tmp_path / "b", [b"b1"])
    files = [str(tmp_path / "a"), str(tmp_path / "b")]
    assert _read_list(files) == [b"a1", b"a2", b"a3", b"b1"]
    assert _read_list(files, num_parallel_reads=2) == [b"a1", b"b1", b"a2", b"a3"]
    ds = fg.data.TFRecordDataset(fg.data.Dataset.from_tensor_slices(files))
    assert [x.numpy() for x in ds] == [b"a1", b"a2", b"a3", b"b1"]
    assert [x.numpy() for x in fg.data.TFRecordDataset(fg.constant(files))][-1] == b"b1"


def _read_list(files, **kw):
    return [x.numpy() for x in fg.data.TFRecordDataset(files, **kw)]


def test_errors_as_tf_data(tmp_path):
    with pytest.raises(TypeError, match="tf.string"):
        fg.data.TFRecordDataset(3)
    with pytest.raises(TypeError, match="scalar"):
        fg.data.TFRecordDataset(fg.data.Dataset.range(2))
    with pytest.raises(ValueError, match="compression_type"):
        fg.data.TFRecordDataset("x", compression_type="LZ4")
    missing = fg.data.TFRecordDataset(str(tmp_path / "missing"))   # lazily: no error yet
    with pytest.raises(NotFoundError, match="missing"):
        list(missing)
    _write(tmp_path / "g", [b"abc"], "GZIP")
    with pytest.raises(DataLossError):
        _read(tmp_path / "g")                 # compressed, read as plain
    with pytest.raises(DataLossError):
        _read(tmp_path / "g", "ZLIB")
    _write(tmp_path / "p", [b"abcdef"])
    data = bytearray((tmp_path / "p").read_bytes())
    data[14] ^= 1
    (tmp_path / "p").write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="corrupted"):
        _read(tmp_path / "p")
    (tmp_path / "p").write_bytes(bytes(data[:-3]))
    with pytest.raises(DataLossError, match="truncated"):
        _read(tmp_path / "p")


def test_writer_errors(tmp_path):
    with pytest.raises(NotFoundError):
        fg.io.TFRecordWriter(str(tmp_path / "no" / "dir"))
    w = fg.io.TFRecordWriter(str(tmp_path / "r"))
    with pytest.raises(TypeError, match="bytes or str"):
        w.write(1)
    w.close()
    w.close()
    with pytest.raises(FailedPreconditionError, match="closed"):
        w.write(b"a")


def test_flush_makes_records_readable_while_open(tmp_path):
    for codec in CODECS:
        w = fg.io.TFRecordWriter(str(tmp_path / f"r{codec}"), codec)
        w.write(b"first")
        w.flush()
        if codec is None:
            assert _read(tmp_path / f"r{codec}") == [b"first"]
        w.write(b"second")
        w.close()
        assert _read(tmp_path / f"r{codec}", codec) == [b"first", b"second"]


def test_snappy_round_trip(tmp_path):
    pytest.importorskip("cramjam")
    from finegrad._src.data.tfrecords import RecordWriter
    w = RecordWriter(str(tmp_path / "s"), "SNAPPY", "test")
    w.write(RECORDS)
    w.close()
    assert _read(tmp_path / "s", "SNAPPY") == RECORDS


# --- live, with TensorFlow ------------------------------------------------------------------

@pytest.mark.parametrize("codec", CODECS)
def test_tensorflow_reads_ours_and_we_read_theirs(tmp_path, codec):
    tf = pytest.importorskip("tensorflow")
    _write(tmp_path / "ours", RECORDS, codec)
    theirs = [x.numpy() for x in tf.data.TFRecordDataset(str(tmp_path / "ours"),
                                                         compression_type=codec)]
    assert theirs == RECORDS
    with tf.io.TFRecordWriter(str(tmp_path / "theirs"), options=codec) as w:
        for r in RECORDS:
            w.write(r)
    assert _read(tmp_path / "theirs", codec) == RECORDS
    assert list(fg.compat.v1.io.tf_record_iterator(str(tmp_path / "theirs"), codec)) == RECORDS


def test_tensorflow_reads_our_snappy(tmp_path):
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("cramjam")
    from finegrad._src.data.tfrecords import RecordWriter
    big = [os.urandom(50_000) for _ in range(3)] + RECORDS   # several snappy blocks
    w = RecordWriter(str(tmp_path / "s"), "SNAPPY", "test")
    w.write(big)
    w.close()
    theirs = [x.numpy() for x in tf.data.TFRecordDataset(str(tmp_path / "s"),
                                                         compression_type="SNAPPY")]
    assert theirs == big == _read(tmp_path / "s", "SNAPPY")


def test_parallel_reads_order_matches_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    files = []
    for name, n in (("a", 3), ("b", 1), ("c", 2)):
        _write(tmp_path / name, [f"{name}{i}".encode() for i in range(n)])
        files.append(str(tmp_path / name))
    theirs = [x.numpy() for x in tf.data.TFRecordDataset(files, num_parallel_reads=2)]
    assert _read_list(files, num_parallel_reads=2) == theirs


def test_snappy_needs_cramjam_message():
    if importlib.util.find_spec("cramjam") is not None:
        pytest.skip("cramjam is installed")
    with pytest.raises(ImportError, match="cramjam"):
        _read("whatever", "SNAPPY")


def test_list_files_interleave_and_autotune(tmp_path):
    for name in ("a", "b"):
        _write(tmp_path / f"{name}.tfr", [f"{name}{i}".encode() for i in range(2)])
    files = fg.data.Dataset.list_files(str(tmp_path / "*.tfr"), shuffle=False)
    ds = files.interleave(fg.data.TFRecordDataset, cycle_length=2)
    assert [x.numpy() for x in ds] == [b"a0", b"b0", b"a1", b"b1"]
    auto = fg.data.TFRecordDataset(files, num_parallel_reads=fg.data.AUTOTUNE)
    assert sorted(x.numpy() for x in auto) == [b"a0", b"a1", b"b0", b"b1"]


def test_a_model_fits_on_parsed_examples(tmp_path):
    path = str(tmp_path / "ex")
    with fg.io.TFRecordWriter(path) as w:
        for i in range(8):
            w.write(fg.train.Example(features=fg.train.Features(feature={
                "x": fg.train.Feature(float_list=fg.train.FloatList(value=[i, 1.0])),
                "y": fg.train.Feature(float_list=fg.train.FloatList(value=[2.0 * i]))}))
                .SerializeToString())
    spec = {"x": fg.io.FixedLenFeature([2], fg.float32), "y": fg.io.FixedLenFeature([1],
                                                                                    fg.float32)}
    ds = fg.data.TFRecordDataset(path).batch(4).map(
        lambda r: (lambda e: (e["x"], e["y"]))(fg.io.parse_example(r, spec)))
    model = fg.keras.Sequential([fg.keras.layers.Dense(1, use_bias=False,
                                                       kernel_initializer="zeros")])
    model.compile(optimizer=fg.keras.optimizers.SGD(0.01), loss="mse")
    history = model.fit(ds, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_writer_batches_records_and_a_dropped_writer_closes(tmp_path):
    records = [i.to_bytes(3, "little") * (i % 7) for i in range(9000)]   # > two batches
    _write(tmp_path / "many", records, "ZLIB")
    assert _read(tmp_path / "many", "ZLIB") == records
    w = fg.io.TFRecordWriter(str(tmp_path / "dropped"))
    w.write(b"kept")
    del w
    assert _read(tmp_path / "dropped") == [b"kept"]


def test_compression_level_is_used(tmp_path):
    records = [b"abc" * 1000] * 20
    for level in (0, 9):
        _write(tmp_path / f"l{level}", records,
               fg.io.TFRecordOptions(compression_type="GZIP", compression_level=level))
        assert _read(tmp_path / f"l{level}", "GZIP") == records
    assert (tmp_path / "l0").stat().st_size > 10 * (tmp_path / "l9").stat().st_size

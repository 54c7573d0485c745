"""tf.train.Example protos and tf.io.parse_example / parse_single_example for dense features:
our own behaviour, and live against TensorFlow 2.21 (bytes both ways, parsed values, errors)."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

T = fg.train


def _example(**features):
    def feature(v):
        if isinstance(v[0] if v else 0.0, bytes):
            return T.Feature(bytes_list=T.BytesList(value=v))
        if v and all(isinstance(x, int) for x in v):
            return T.Feature(int64_list=T.Int64List(value=v))
        return T.Feature(float_list=T.FloatList(value=v))
    return T.Example(features=T.Features(feature={k: feature(v) for k, v in features.items()}))


EX = _example(f=[1.5, 2.0, 3.1], i=[-1, 2 ** 40], b=[b"x", b""])


def test_protos_fields_equality_and_round_trip():
    assert EX.features.feature["f"].float_list.value == [1.5, 2.0, float(np.float32(3.1))]
    assert EX.features.feature["i"].WhichOneof("kind") == "int64_list"
    assert EX.features.feature["i"].float_list.value == []       # an unset field reads empty
    back = T.Example.FromString(EX.SerializeToString())
    assert back == EX and back != _example(f=[1.5])
    assert T.Example() == T.Example() and T.Example().SerializeToString() == b""
    assert T.Example(features=T.Features()).SerializeToString() == b"\n\x00"
    assert T.Feature().WhichOneof("kind") is None
    e = T.Example()
    e.ParseFromString(EX.SerializeToString())
    assert e == EX
    assert T.Feature(int64_list=T.Int64List(value=[1, 2])).SerializeToString() == \
        b"\x1a\x04\n\x02\x01\x02"
    with pytest.raises(ValueError, match="only one"):
        T.Feature(int64_list=T.Int64List(), float_list=T.FloatList())
    with pytest.raises(TypeError, match="bytes"):
        T.BytesList(value=[1])
    with pytest.raises(ValueError, match="int64"):
        T.Int64List(value=[2 ** 63])


def test_text_format():
    text = str(_example(i=[3], b=[b'q"']))
    assert text == ('features {\n  feature {\n    key: "i"\n    value {\n      int64_list {\n'
                    '        value: 3\n      }\n    }\n  }\n  feature {\n    key: "b"\n'
                    '    value {\n      bytes_list {\n        value: "q\\""\n      }\n'
                    '    }\n  }\n}\n')


def test_parse_single_example_dense():
    s = EX.SerializeToString()
    out = fg.io.parse_single_example(s, {
        "f": fg.io.FixedLenFeature([3], fg.float32), "i": fg.io.FixedLenFeature([2], fg.int64),
        "b": fg.io.FixedLenFeature([2], fg.string),
        "m": fg.io.FixedLenFeature([2, 1], fg.float32, default_value=[[7.0], [8.0]]),
        "z": fg.io.FixedLenFeature([], fg.string, default_value="zz"),
        "sq": fg.io.FixedLenSequenceFeature([2], fg.int64, allow_missing=True)})
    assert out["f"].dtype == fg.float32 and out["f"].numpy().tolist() == \
        np.float32([1.5, 2.0, 3.1]).tolist()
    assert out["i"].dtype == fg.int64 and out["i"].numpy().tolist() == [-1, 2 ** 40]
    assert out["b"].numpy().tolist() == [b"x", b""]
    assert out["m"].numpy().tolist() == [[7.0], [8.0]]
    assert out["z"].numpy() == b"zz" and out["sq"].shape == (0, 2)
    assert fg.io.parse_single_example(s, {"f": fg.io.FixedLenFeature([3, 1], fg.float32)})[
        "f"].shape == (3, 1)


def test_parse_example_batches_and_pads_sequences():
    batch = [EX.SerializeToString(), _example(f=[9.0]).SerializeToString()]
    out = fg.io.parse_example(batch, {"f": fg.io.FixedLenSequenceFeature(
        [], fg.float32, allow_missing=True, default_value=-1.0)})
    assert out["f"].numpy().tolist() == [np.float32([1.5, 2.0, 3.1]).tolist(),
                                         [9.0, -1.0, -1.0]]
    out = fg.io.parse_example(fg.constant(batch), {"k": fg.io.FixedLenFeature(
        [], fg.int64, default_value=5)})
    assert out["k"].numpy().tolist() == [5, 5]


def test_parse_errors():
    s = EX.SerializeToString()

    def parse(spec):
        return fg.io.parse_single_example(s, {"f": spec})
    with pytest.raises(InvalidArgumentError, match="required but could not be found"):
        fg.io.parse_single_example(s, {"m": fg.io.FixedLenFeature([], fg.float32)})
    with pytest.raises(InvalidArgumentError, match="Can't parse serialized Example"):
        parse(fg.io.FixedLenFeature([2], fg.float32))
    with pytest.raises(InvalidArgumentError, match="Data types don't match"):
        parse(fg.io.FixedLenFeature([3], fg.int64))
    with pytest.raises(InvalidArgumentError, match="Tdense"):
        parse(fg.io.FixedLenFeature([3], fg.float64))
    with pytest.raises(ValueError, match="allow_missing"):
        parse(fg.io.FixedLenSequenceFeature([], fg.float32))
    with pytest.raises(ValueError, match="Missing shape"):
        parse(fg.io.FixedLenFeature(None, fg.float32))
    with pytest.raises(InvalidArgumentError, match="Could not parse example"):
        fg.io.parse_example([b"\xff"], {"f": fg.io.FixedLenFeature([3], fg.float32)})
    with pytest.raises(InvalidArgumentError, match="default_value"):
        parse(fg.io.FixedLenFeature([3], fg.float32, default_value=0.0))


@pytest.mark.parametrize("kind", ["VarLenFeature", "SparseFeature", "RaggedFeature"])
def test_sparse_and_ragged_features_say_they_are_not_supported(kind):
    feature = {"VarLenFeature": lambda: fg.io.VarLenFeature(fg.int64),
               "SparseFeature": lambda: fg.io.SparseFeature("i", "v", fg.float32, 4),
               "RaggedFeature": lambda: fg.io.RaggedFeature(fg.float32)}[kind]()
    with pytest.raises(NotImplementedError, match=f"{kind}.*finegrad does not have"):
        fg.io.parse_single_example(EX.SerializeToString(), {"f": feature})


# --- live, with TensorFlow ----------------------------------------------------------------

def test_bytes_both_ways_with_tensorflow():
    tf = pytest.importorskip("tensorflow")
    one = _example(f=[1.5, -2.25])
    theirs = tf.train.Example(features=tf.train.Features(feature={"f": tf.train.Feature(
        float_list=tf.train.FloatList(value=[1.5, -2.25]))}))
    assert one.SerializeToString() == theirs.SerializeToString()
    for ex in (EX, _example(n=[]), T.Example(), _example(b=[bytes(range(256))] * 3),
               _example(f=[3.1, 1e20, 2.0, float("inf"), -0.0, 1e-7]), _example(i=[-5, 0])):
        parsed = tf.train.Example.FromString(ex.SerializeToString())
        assert T.Example.FromString(parsed.SerializeToString()) == ex
        if len(ex.features.feature) <= 1:      # (map order may differ with several)
            assert str(parsed) == str(ex)
            assert parsed.SerializeToString() == ex.SerializeToString()


def test_parsing_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    batch = [EX.SerializeToString(), _example(f=[9.0, 1.0, 2.0], i=[4, 5],
                                              b=[b"p", b"q"]).SerializeToString()]

    def specs(io, d):
        return {"f": io.FixedLenFeature([3], d.float32), "i": io.FixedLenFeature([2], d.int64),
                "b": io.FixedLenFeature([2, 1], d.string),
                "d": io.FixedLenFeature([2], d.int64, default_value=[1, 2]),
                "s": io.FixedLenSequenceFeature([], d.float32, allow_missing=True)}
    ours = fg.io.parse_example(batch, specs(fg.io, fg))
    theirs = tf.io.parse_example(batch, specs(tf.io, tf))
    assert sorted(ours) == sorted(theirs)
    for k in ours:
        assert ours[k].numpy().dtype == theirs[k].numpy().dtype, k
        np.testing.assert_array_equal(ours[k].numpy(), theirs[k].numpy())
    single = fg.io.parse_single_example(batch[1], specs(fg.io, fg))
    theirs1 = tf.io.parse_single_example(batch[1], specs(tf.io, tf))
    for k in single:
        np.testing.assert_array_equal(single[k].numpy(), theirs1[k].numpy())


def test_tfrecord_of_examples_written_by_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for v in range(3):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[v]))}))
                .SerializeToString())
    spec = {"v": fg.io.FixedLenFeature([], fg.int64)}
    ds = fg.data.TFRecordDataset(path).map(lambda s: fg.io.parse_single_example(s, spec))
    assert [int(e["v"]) for e in ds] == [0, 1, 2]
    batched = fg.data.TFRecordDataset(path).batch(2).map(lambda s: fg.io.parse_example(s, spec))
    assert [e["v"].numpy().tolist() for e in batched] == [[0, 1], [2]]


def test_building_an_example_in_place_as_protobuf():
    ex = T.Example()
    ex.features.feature["x"].float_list.value.extend([1.0, 3.1])
    ex.features.feature["y"].int64_list.value.append(3)
    ex.features.feature["z"].bytes_list.value.append("s")
    _ = ex.features.feature["w"].float_list          # a read sets nothing
    assert ex.features.feature["w"].WhichOneof("kind") is None
    assert ex.features.feature["x"].float_list.value == [1.0, float(np.float32(3.1))]
    assert sorted(ex.features.feature) == ["w", "x", "y", "z"]
    out = fg.io.parse_single_example(ex.SerializeToString(), {
        "x": fg.io.FixedLenFeature([2], fg.float32), "y": fg.io.FixedLenFeature([], fg.int64),
        "w": fg.io.FixedLenFeature([], fg.int64, default_value=-1)})
    assert out["y"].numpy() == 3 and out["w"].numpy() == -1
    copy = T.Example()
    copy.CopyFrom(ex)
    assert copy == ex


def test_in_place_building_matches_tensorflow_bytes():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = T.Example(), tf.train.Example()
    for ex in (ours, theirs):
        ex.features.feature["v"].int64_list.value.extend([5, -6])
        ex.features.feature["v"].int64_list.value.append(7)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert str(ours) == str(theirs)


def test_parse_example_scalar_empty_and_matrix_as_tensorflow():
    s = _example(f=[1.0]).SerializeToString()
    spec = {"f": fg.io.FixedLenFeature([1], fg.float32)}
    assert fg.io.parse_example(s, spec)["f"].numpy().tolist() == [1.0]   # (as TF 2.21)
    assert fg.io.parse_example(np.array([], dtype=object), spec)["f"].shape == (0, 1)
    with pytest.raises(ValueError, match="dtype string"):
        fg.io.parse_example([], spec)                 # a float32 tensor, as in TF
    with pytest.raises(InvalidArgumentError, match="scalar or vector"):
        fg.io.parse_example([[s, s]], spec)


def _floats(*v):
    return fg.train.Example(features=fg.train.Features(feature={"x": fg.train.Feature(
        float_list=fg.train.FloatList(value=list(v)))})).SerializeToString()


def test_parsing_inside_function_parses_each_calls_strings():
    # (a trace must not keep the Example it saw while tracing as a constant)
    spec = {"x": fg.io.FixedLenFeature([2], fg.float32)}
    one = fg.function(lambda s: fg.io.parse_single_example(s, spec)["x"] * 2,
                      input_signature=[fg.TensorSpec([], fg.string)])
    np.testing.assert_array_equal(one(fg.constant(_floats(1., 2.))).numpy(), [2., 4.])
    np.testing.assert_array_equal(one(fg.constant(_floats(5., 7.))).numpy(), [10., 14.])
    batch = fg.function(lambda s: fg.io.parse_example(s, spec)["x"] + 1,
                        input_signature=[fg.TensorSpec([None], fg.string)])
    got = batch(fg.constant([_floats(1., 2.), _floats(3., 4.), _floats(0., 0.)]))
    np.testing.assert_array_equal(got.numpy(), [[2., 3.], [4., 5.], [1., 1.]])
    with pytest.raises(InvalidArgumentError, match="Could not parse example"):
        batch(fg.constant([b"\xff\xff"]))


def test_parsing_a_placeholder_in_a_tf1_graph():
    """TF1's input pipeline pattern: the graph parses a fed string placeholder; its results
    have TensorFlow's static shapes (a dense layer can follow), and each run parses what is
    fed (recorded from TensorFlow 2.21's compat.v1 with eager execution off)."""
    v1 = fg.compat.v1
    spec = {"x": fg.io.FixedLenFeature([2], fg.float32),
            "seq": fg.io.FixedLenSequenceFeature([], fg.int64, allow_missing=True)}
    with fg.Graph().as_default():
        one = v1.placeholder(fg.string, [])
        many = v1.placeholder(fg.string, [None])
        got = v1.io.parse_single_example(one, spec)
        batch = v1.io.parse_example(many, spec)
        assert got["x"].shape.as_list() == [2] and got["seq"].shape.as_list() == [None]
        assert batch["x"].shape.as_list() == [None, 2]
        assert batch["seq"].shape.as_list() == [None, None]
        y = got["x"] * 2.
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {one: _floats(1., 2.)}), [2., 4.])
            np.testing.assert_array_equal(sess.run(y, {one: _floats(5., 7.)}), [10., 14.])
            x, seq = sess.run([batch["x"], batch["seq"]], {many: [
                _example(x=[1., 2.], seq=[4, 5, 6]).SerializeToString(),
                _example(x=[3., 4.]).SerializeToString()]})
            np.testing.assert_array_equal(x, [[1., 2.], [3., 4.]])
            np.testing.assert_array_equal(seq, [[4, 5, 6], [0, 0, 0]])
            # (the made-up string the graph was built with is never taken as an Example)
            with pytest.raises(InvalidArgumentError, match="required but could not be found"):
                sess.run(y, {one: b""})

"""finegrad.io: read_file/write_file, serialize_tensor/parse_tensor (byte for byte as
TensorFlow 2.21's, checked live), decode_raw, base64, and gfile with TensorFlow's errors."""
import os

import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import (AlreadyExistsError, FailedPreconditionError,
                             InvalidArgumentError, NotFoundError)

VALUES = [np.float32([[1.5, -2.0], [0.0, 3.25]]), np.float64(2.5), np.int32([1, -2, 3]),
          np.int64([[7], [-8]]), np.uint8([0, 255]), np.bool_([True, False]),
          np.complex64([1 + 2j]), np.float16([0.5, -1.0]), np.zeros((0, 3), np.float32),
          np.array([[b"ab"], [b""]], dtype=object), np.array(b"scalar", dtype=object)]


def test_read_and_write_file(tmp_path):
    path = tmp_path / "deep" / "er" / "f.bin"
    fg.io.write_file(str(path), fg.constant(b"\x00abc"))
    assert path.read_bytes() == b"\x00abc"
    assert fg.io.read_file(str(path)).numpy() == b"\x00abc"
    with pytest.raises(NotFoundError, match="No such file"):
        fg.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(FailedPreconditionError):
        fg.io.read_file(str(tmp_path))
    with pytest.raises(InvalidArgumentError, match="scalar"):
        fg.io.write_file(str(path), ["a", "b"])


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{v.dtype}{v.shape}")
def test_serialize_parse_round_trip(value):
    s = fg.io.serialize_tensor(fg.constant(value))
    back = np.asarray(fg.io.parse_tensor(s, fg.constant(value).dtype).numpy())
    assert back.shape == value.shape and back.tolist() == value.tolist()


def test_parse_tensor_errors():
    s = fg.io.serialize_tensor(fg.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"Type mismatch.*float32.*int32"):
        fg.io.parse_tensor(s, fg.int32)
    with pytest.raises(InvalidArgumentError, match="TensorProto"):
        fg.io.parse_tensor(b"\xff\xff", fg.float32)


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{v.dtype}{v.shape}")
def test_serialize_tensor_bytes_as_tensorflow(value):
    tf = pytest.importorskip("tensorflow")
    ours = fg.io.serialize_tensor(fg.constant(value)).numpy()
    theirs = tf.io.serialize_tensor(tf.constant(value)).numpy()
    assert ours == theirs
    back = np.asarray(tf.io.parse_tensor(ours, tf.constant(value).dtype).numpy())
    assert back.tolist() == value.tolist()


def test_decode_raw():
    x = fg.constant([b"abcd", b"efgh"])
    assert fg.io.decode_raw(x, fg.int16).numpy().tolist() == [[25185, 25699], [26213, 26727]]
    assert fg.io.decode_raw(x, fg.int16, little_endian=False).numpy().tolist() == \
        [[24930, 25444], [25958, 26472]]
    assert fg.io.decode_raw(fg.constant([b"abcd", b"ef"]), fg.uint8,
                            fixed_length=3).numpy().tolist() == [[97, 98, 99], [101, 102, 0]]
    f = np.float32([1.5, -2.0])
    assert fg.io.decode_raw(fg.constant(f.tobytes()), fg.float32).numpy().tolist() == \
        f.tolist()
    with pytest.raises(InvalidArgumentError, match="same size"):
        fg.io.decode_raw(fg.constant([b"abcd", b"ef"]), fg.uint8)
    with pytest.raises(InvalidArgumentError, match="multiple"):
        fg.io.decode_raw(fg.constant(b"abc"), fg.int16)


def test_base64_as_tensorflow():
    data = [b"\xff\xfe?", b"a", b"", bytes(range(40))]
    enc = fg.io.encode_base64(fg.constant(data)).numpy().tolist()
    assert enc[:3] == [b"__4_", b"YQ", b""]
    assert fg.io.encode_base64(fg.constant([b"a"]), pad=True).numpy().tolist() == [b"YQ=="]
    assert fg.io.decode_base64(fg.constant(enc)).numpy().tolist() == data
    assert fg.io.decode_base64(fg.constant(["YQ=="])).numpy().tolist() == [b"a"]
    with pytest.raises(InvalidArgumentError, match="Invalid character"):
        fg.io.decode_base64(fg.constant(["!!"]))
    tf = pytest.importorskip("tensorflow")
    for pad in (False, True):
        assert fg.io.encode_base64(fg.constant(data), pad=pad).numpy().tolist() == \
            tf.io.encode_base64(tf.constant(data), pad=pad).numpy().tolist()


def test_gfile_files(tmp_path):
    gf = fg.io.gfile
    p = str(tmp_path / "m.txt")
    with gf.GFile(p, "w") as f:
        f.write("l1\nl2\n")
        f.write(b"x")
    with gf.GFile(p) as f:
        assert f.readline() == "l1\n"
        assert f.readlines() == ["l2\n", "x"]
        assert f.size() == 7 and f.tell() == 7
    with gf.GFile(p, "rb") as f:
        assert list(f) == [b"l1\n", b"l2\n", b"x"]
        f.seek(1)
        assert f.read(2) == b"1\n"
    with pytest.raises(NotFoundError):
        gf.GFile(str(tmp_path / "zz")).read()
    s = gf.stat(p)
    assert (s.length, s.is_directory) == (7, False) and isinstance(s.mtime_nsec, int)
    with pytest.raises(NotFoundError):
        gf.stat(str(tmp_path / "zz"))


def test_gfile_directories(tmp_path):
    gf = fg.io.gfile
    d = str(tmp_path)
    gf.makedirs(d + "/a/b")
    gf.makedirs(d + "/a/b")
    gf.mkdir(d + "/a")                                 # an existing directory is fine
    with pytest.raises(NotFoundError):
        gf.mkdir(d + "/x/y")
    fg.io.write_file(d + "/c.txt", "c")
    assert gf.listdir(d) == ["a", "c.txt"] and gf.isdir(d + "/a") and gf.exists(d + "/c.txt")
    assert gf.glob(d + "/*") == [d + "/a", d + "/c.txt"] and gf.glob(d + "/zz/*") == []
    with pytest.raises(NotFoundError, match="Could not find directory"):
        gf.listdir(d + "/zz")
    with pytest.raises(FailedPreconditionError):
        gf.remove(d + "/a")
    with pytest.raises(NotFoundError):
        gf.remove(d + "/zz")
    gf.copy(d + "/c.txt", d + "/d.txt")
    with pytest.raises(AlreadyExistsError):
        gf.copy(d + "/c.txt", d + "/d.txt")
    with pytest.raises(AlreadyExistsError):
        gf.rename(d + "/c.txt", d + "/d.txt")
    gf.rename(d + "/c.txt", d + "/d.txt", overwrite=True)
    assert not gf.exists(d + "/c.txt") and fg.io.read_file(d + "/d.txt").numpy() == b"c"
    with pytest.raises(NotFoundError):
        gf.copy(d + "/zz", d + "/e.txt")
    gf.rmtree(d + "/a")
    with pytest.raises(NotFoundError):
        gf.rmtree(d + "/a")
    gf.remove(d + "/d.txt")
    assert gf.listdir(d) == []


def test_gfile_errors_are_tensorflows_classes(tmp_path):
    tf = pytest.importorskip("tensorflow")
    d = str(tmp_path)
    fg.io.write_file(d + "/c.txt", "c")
    os.mkdir(d + "/a")
    cases = [("listdir", (d + "/zz",)), ("remove", (d + "/zz",)), ("remove", (d + "/a",)),
             ("rmtree", (d + "/zz",)), ("rename", (d + "/a", d + "/c.txt")),
             ("copy", (d + "/zz", d + "/q")), ("stat", (d + "/zz",)), ("mkdir", (d + "/x/y",))]
    for name, args in cases:
        with pytest.raises(tf.errors.OpError) as theirs:
            getattr(tf.io.gfile, name)(*args)
        with pytest.raises(fg.errors.OpError) as ours:
            getattr(fg.io.gfile, name)(*args)
        assert type(ours.value).__name__ == type(theirs.value).__name__, name


def test_gfile_walk_and_join_as_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    d = str(tmp_path)
    fg.io.gfile.makedirs(d + "/a/c")
    fg.io.gfile.makedirs(d + "/a/b")
    fg.io.write_file(d + "/f", "")
    fg.io.write_file(d + "/a/e", "")
    fg.io.write_file(d + "/a/d", "")
    assert list(fg.io.gfile.walk(d)) == [(p, sorted(s), sorted(f))
                                         for p, s, f in tf.io.gfile.walk(d)]
    assert list(fg.io.gfile.walk(d + "/nope")) == []
    assert fg.io.gfile.join("a", "b", "/c") == tf.io.gfile.join("a", "b", "/c") == "/c"
    assert fg.io.gfile.glob(d + "/a/*") == sorted(tf.io.gfile.glob(d + "/a/*"))


def test_decode_compressed_and_matching_files(tmp_path):
    import gzip
    import zlib
    out = fg.io.decode_compressed(fg.constant([gzip.compress(b"ab"), gzip.compress(b"")]),
                                  "GZIP")
    assert out.numpy().tolist() == [b"ab", b""]
    assert fg.io.decode_compressed(zlib.compress(b"ab"), "ZLIB").numpy() == b"ab"
    assert fg.io.decode_compressed(b"raw").numpy() == b"raw"
    with pytest.raises(fg.errors.DataLossError):
        fg.io.decode_compressed(b"xx", "ZLIB")
    d = str(tmp_path)
    for n in ("b.txt", "a.txt", "c.bin"):
        fg.io.write_file(os.path.join(d, n), "")
    got = fg.io.matching_files([d + "/*.txt", d + "/a*"]).numpy().tolist()
    assert got == [f"{d}/a.txt".encode(), f"{d}/b.txt".encode()]
    none = fg.io.matching_files(d + "/zz/*")
    assert none.shape == (0,) and none.dtype == fg.string


def test_io_functions_in_a_function_use_each_calls_values(tmp_path):
    # (a trace must not keep what it read while tracing, nor write only once)
    s = fg.TensorSpec([], fg.string)
    write = fg.function(lambda p, c: fg.io.write_file(p, c), input_signature=[s, s])
    read = fg.function(fg.io.read_file, input_signature=[s])
    for name, body in (("a", b"1"), ("b", b"22")):
        write(fg.constant(str(tmp_path / name)), fg.constant(body))
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]
    assert read(fg.constant(str(tmp_path / "b"))).numpy() == b"22"
    raw = fg.function(lambda x: fg.io.decode_raw(x, fg.uint8), input_signature=[s])
    assert raw(fg.constant(b"ab")).numpy().tolist() == [97, 98]
    assert raw(fg.constant(b"cd")).numpy().tolist() == [99, 100]
    ser = fg.function(fg.io.serialize_tensor, input_signature=[fg.TensorSpec([1], fg.float32)])
    par = fg.function(lambda x: fg.io.parse_tensor(x, fg.float32), input_signature=[s])
    for v in (1., 2.):
        assert par(ser(fg.constant([v]))).numpy().tolist() == [v]
    b64 = fg.function(fg.io.encode_base64, input_signature=[s])
    assert [b64(fg.constant(b)).numpy() for b in (b"ab", b"cd")] == [b"YWI", b"Y2Q"]

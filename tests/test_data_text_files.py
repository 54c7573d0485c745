"""``tf.data.TextLineDataset`` and ``FixedLengthRecordDataset``: elements, line endings,
compression, interleaving and errors as TensorFlow 2.21 gives them (recorded; compared live
where TensorFlow is installed)."""
import gzip
import zlib

import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError, NotFoundError


@pytest.fixture
def files(tmp_path):
    paths = {"t1": tmp_path / "t1.txt", "t2": tmp_path / "t2.txt", "gz": tmp_path / "t.gz",
             "zl": tmp_path / "t.zlib", "fixed": tmp_path / "f.bin", "odd": tmp_path / "o.bin"}
    paths["t1"].write_bytes(b"a\nbb\r\n\nccc")
    paths["t2"].write_bytes(b"x\n")
    paths["gz"].write_bytes(gzip.compress(b"g1\ng2\n"))
    paths["zl"].write_bytes(zlib.compress(b"z1\nz2"))
    paths["fixed"].write_bytes(b"HHabcdefFF")
    paths["odd"].write_bytes(b"abcdefgh")
    return {k: str(v) for k, v in paths.items()}


CASES = {
    "lines": (lambda T, f: T.data.TextLineDataset([f["t1"], f["t2"]]),
              [b"a", b"bb", b"", b"ccc", b"x"]),
    "interleaved": (lambda T, f: T.data.TextLineDataset([f["t1"], f["t2"]],
                                                        num_parallel_reads=2),
                    [b"a", b"x", b"bb", b"", b"ccc"]),
    "gzip": (lambda T, f: T.data.TextLineDataset(f["gz"], compression_type="GZIP"),
             [b"g1", b"g2"]),
    "zlib": (lambda T, f: T.data.TextLineDataset(f["zl"], compression_type="ZLIB"),
             [b"z1", b"z2"]),
    "records": (lambda T, f: T.data.FixedLengthRecordDataset(f["fixed"], 3, header_bytes=2,
                                                             footer_bytes=2), [b"abc", b"def"]),
    "mapped": (lambda T, f: T.data.TextLineDataset(f["t1"]).map(T.strings.length),
               [1, 2, 0, 3]),
}


def _elements(ds):
    return [x.numpy().item() if hasattr(x.numpy(), "item") else x.numpy() for x in ds]


@pytest.mark.parametrize("name", sorted(CASES))
def test_elements_as_tensorflow(files, name):
    make, want = CASES[name]
    ds = make(fg, files)
    assert _elements(ds) == want
    assert ds.element_spec == fg.TensorSpec((), ds.element_spec.dtype)


def test_recorded_elements_are_tensorflows(files):
    tf = pytest.importorskip("tensorflow")
    for name, (make, want) in CASES.items():
        assert _elements(make(tf, files)) == want, name


def test_errors_are_tensorflows(files):
    with pytest.raises(InvalidArgumentError, match="body length 8 bytes, which is not an "
                                                   "exact multiple of the record length"):
        list(fg.data.FixedLengthRecordDataset(files["odd"], 3))
    with pytest.raises(NotFoundError, match="No such file or directory"):
        list(fg.data.TextLineDataset(files["t1"] + ".missing"))
    with pytest.raises(TypeError, match="must contain `tf.string` elements"):
        fg.data.TextLineDataset(3)

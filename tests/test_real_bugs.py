"""bench/real_bugs.py: real custom-gradient bugs and their fixes. finegrad check (order 2)
flags every bug and passes every fix, and docs/custom_gradients.md's table (section 13.3) is
the one the script prints, with what gradcheck, gradgradcheck, check_grads and
tf.test.compute_gradient say."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("real_bugs", ROOT / "bench" / "real_bugs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_bug_flagged_every_fix_passes_and_the_docs_table_is_current():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    pytest.importorskip("tensorflow")
    bench = _bench()
    rows = bench.rows()
    assert len(rows) == 2 * len(bench.CASES) >= 14
    for name, _, version, finegrad, *_ in rows:
        assert finegrad.startswith("MISMATCH") == (version == "bug"), (name, version, finegrad)
    by = {(r[0], r[2]): r for r in rows}
    # where the others cannot see: the overflow (float64 random points) and, for gradcheck,
    # the double backward
    assert by["float32 overflow", "bug"][4:6] == ["pass", "pass"]
    assert by["double backward", "bug"][4:6] == ["pass", "FAIL"]
    assert "x in [88.8, 100]" in by["float32 overflow", "bug"][3]
    assert "x in [0.546, 0.996]" in by["wrong region", "bug"][3]
    assert "d/dy" in by["sign error", "bug"][3] and by["sign error", "bug"][6] == "FAIL"
    # one wrong element: named, where gradcheck (normal inputs, never exactly 0) passes
    assert by["one wrong element", "bug"][4:6] == ["pass", "pass"]
    assert "wrong at its worst point: x[0] (1 of 4)" in by["one wrong element", "bug"][3]
    # a broadcast not reduced: the input and both shapes named; compute_gradient fails too
    assert by["broadcast not reduced", "bug"][3] == \
        "MISMATCH, wrong shape: d/dbeta has shape () where beta has shape (2,)"
    assert [by["broadcast not reduced", v][7] for v in ("bug", "fix")] == ["FAIL", "pass"]
    lines = ["| " + " | ".join(bench.HEAD) + " |", "|" + "---|" * len(bench.HEAD)]
    table = "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"
    doc = (ROOT / "docs" / "custom_gradients.md").read_text()
    start = doc.index("<!-- real-bugs-table -->\n") + len("<!-- real-bugs-table -->\n")
    assert doc[start:doc.index("<!-- /real-bugs-table -->")] == table, \
        "regenerate the table with python bench/real_bugs.py"

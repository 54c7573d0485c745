"""docs/backends.md's op table is generated from the backends (docs/gen_backends.py) and must
not drift from them. Needs JAX, PyTorch and TensorFlow (the table has a column for each)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("finegrad_docs_gen_backends",
                                                  ROOT / "docs" / "gen_backends.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_op_table_matches_the_backends():
    for framework in ("jax", "torch", "tensorflow"):
        pytest.importorskip(framework)
    gen = _generator()
    page = (ROOT / "docs" / "backends.md").read_text()
    assert page == gen.page_with(gen.render()), (
        f"docs/backends.md's op table differs from the backends: regenerate it with "
        f"`{gen.REGENERATE}` and commit it")


def test_the_table_has_a_row_per_keras_name():
    from finegrad._src.backends import keras_names
    page = (ROOT / "docs" / "backends.md").read_text()
    table = page.partition("<!-- op table")[2].partition("<!-- end of op table")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `ops.")]
    assert len(rows) == len(keras_names.TOP) + len(keras_names.IMAGE) == 353
    assert all(line.count("|") == 6 for line in rows)
    assert "| `ops.image.resize` |" in page and "| `ops.add` |" in page

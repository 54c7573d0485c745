"""docs/api.md is generated from the package (docs/gen_api.py) and must not drift from it."""
import importlib.util
from pathlib import Path

import pytest

import finegrad

ROOT = Path(__file__).resolve().parents[1]


def _load_generator():
    spec = importlib.util.spec_from_file_location("finegrad_docs_gen_api",
                                                  ROOT / "docs" / "gen_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_api = _load_generator()


def test_api_page_matches_the_package():
    committed = (ROOT / "docs" / "api.md").read_text()
    assert committed == gen_api.render(), (
        f"docs/api.md differs from the package's public names: regenerate it with "
        f"`{gen_api.REGENERATE}` (from the repository root) and commit it")


def test_every_public_name_of_every_public_module_is_listed():
    page = gen_api.render()
    for module in gen_api.public_modules(finegrad):
        for name in (n for n in dir(module) if not n.startswith("_")):
            assert f"| `{module.__name__}.{name}` |" in page, f"{module.__name__}.{name}"
    assert "| `finegrad.reduce_sum` | `tf.reduce_sum` | Sum over" in page
    assert "| `finegrad.stable.log1pexp` | finegrad only |" in page


def test_counterparts():
    assert gen_api.counterpart("finegrad.math.cumsum") == "`tf.math.cumsum`"
    assert gen_api.counterpart("finegrad.stable.safe_sqrt") == "finegrad only"
    assert gen_api.counterpart("finegrad.testing") == "finegrad only"
    assert gen_api.counterpart("finegrad.grad").startswith("finegrad only")
    assert gen_api.counterpart("finegrad.linalg.transpose").startswith("`tf.transpose`")


def test_signatures():
    page = gen_api.render()
    assert "| `finegrad.add` | `tf.add` |" in page
    add_row = next(line for line in page.splitlines() if line.startswith("| `finegrad.add` |"))
    assert add_row.endswith("| `(x, y, name=None)` |")
    assert gen_api.signature(finegrad.float32) == "" and gen_api.signature(finegrad.nn) == ""
    assert gen_api.signature(finegrad.Variable).startswith("`(initial_value=None")

    def annotated(x: int, y: "str | None" = None) -> int:
        return x
    assert gen_api.signature(annotated) == "`(x, y=None)`"


def test_summaries_are_one_table_cell():
    def documented():
        """First line
        continued.

        Details | not shown."""
    assert gen_api.summary(documented) == "First line continued."
    assert gen_api.summary(lambda: 0) == "(no docstring)"
    assert gen_api.summary(finegrad.float64) == "the `float64` dtype"


def _resolve(tf, dotted):
    obj = tf
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_named_counterparts_exist_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for module in gen_api.public_modules(finegrad):
        for name in [""] + [n for n in dir(module) if not n.startswith("_")]:
            qualname = f"{module.__name__}.{name}".rstrip(".")
            text = gen_api.counterpart(qualname)
            if text.startswith("`tf"):
                _resolve(tf, text.split("`")[1])   # AttributeError names a wrong counterpart


def test_every_public_name_has_a_docstring_summary():
    missing = [line.split("`")[1] for line in gen_api.render().splitlines()
               if line.endswith("| (no docstring) |")]
    assert not missing, f"public names without a docstring: {missing}"

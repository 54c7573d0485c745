"""The root conftest.py: modules and docs that import a missing optional package are skipped
with a reason at collection, never a collection error (the README's test command installs only
the ``[test]`` extra)."""
import subprocess
import sys
import textwrap

import types

import conftest

FOUND = types.SimpleNamespace(origin="/site-packages/pkg/__init__.py")


def test_top_level_imports_of_a_module_are_found_and_function_level_ones_are_not(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("import os\nimport jax.numpy as jnp\nfrom torch import nn\n"
                   "def f():\n    import tensorflow\n")
    assert conftest._top_level_imports(mod) == {"os", "jax", "torch"}


def test_a_module_importing_a_missing_optional_package_is_named(tmp_path, monkeypatch):
    mod = tmp_path / "m.py"
    mod.write_text("import numpy\nimport torch\n")
    monkeypatch.setattr(conftest.importlib.util, "find_spec",
                        lambda name: None if name == "torch" else FOUND)
    assert conftest._missing_optional(mod) == "torch"
    monkeypatch.setattr(conftest.importlib.util, "find_spec", lambda name: FOUND)
    assert conftest._missing_optional(mod) is None


def test_a_folder_of_the_same_name_is_not_the_package(tmp_path, monkeypatch):
    # tests/keras_api once was tests/keras: with keras missing, that folder on sys.path was
    # found as a namespace package named keras (no origin), and collection broke
    mod = tmp_path / "m.py"
    mod.write_text("import keras\n")
    monkeypatch.setattr(conftest.importlib.util, "find_spec",
                        lambda name: types.SimpleNamespace(origin=None))
    assert conftest._missing_optional(mod) == "keras"


def test_a_docs_page_importing_a_missing_package_in_an_example_is_named(tmp_path, monkeypatch):
    page = tmp_path / "p.md"
    page.write_text("text\n\n>>> import numpy as np\n>>> from jax import numpy as jnp\n")
    monkeypatch.setattr(conftest.importlib.util, "find_spec",
                        lambda name: None if name == "jax" else FOUND)
    assert conftest._missing_optional(page) == "jax"


def test_collecting_such_a_module_reports_a_skip_with_the_reason(tmp_path):
    # a real pytest run over a package whose doctest module imports a package that no
    # environment has: OPTIONAL is extended for the run through a conftest beside it
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("root_conftest", {conftest.__file__!r})
        root = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(root)
        root.OPTIONAL["finegrad_no_such_framework"] = "pip install nothing"
        pytest_collect_file = root.pytest_collect_file
    """))
    (tmp_path / "needs.py").write_text('import finegrad_no_such_framework\n"""\n>>> 1\n1\n"""\n')
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "--doctest-modules",
                          "-p", "no:cacheprovider", "needs.py", "test_plain.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 1 skipped" in out.stdout
    assert "needs.py needs finegrad_no_such_framework, which is not installed" in out.stdout

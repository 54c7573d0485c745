"""Collection rules for the whole repository (tests, the package's doctests, docs/*.md).

The README's test command installs only the ``[test]`` extra, so JAX, PyTorch, TensorFlow and
the other optional packages may be missing. A package module or a docs page that imports one of
them at its top level cannot even be collected then; instead of a collection error it is
reported as skipped, with the package that is missing and the extra that brings it. Test
modules guard themselves with ``pytest.importorskip``.
"""
from __future__ import annotations

import ast
import importlib.util
import pathlib
import re

import pytest

# optional package -> what installs it (an extra of pyproject.toml where one brings it)
OPTIONAL = {"jax": 'pip install "finegrad[jax]"', "jaxlib": 'pip install "finegrad[jax]"',
            "torch": 'pip install "finegrad[torch]"',
            "tensorflow": 'pip install "finegrad[tensorflow]"',
            "keras": "pip install keras", "numba": 'pip install "finegrad[fast]"',
            "matplotlib": 'pip install "finegrad[plot]"', "pandas": "pip install pandas",
            "h5py": "pip install h5py"}
_DOC_IMPORT = re.compile(r"^\s*>>>\s+(?:import|from)\s+([A-Za-z_][\w]*)", re.MULTILINE)


def _top_level_imports(path: pathlib.Path) -> set[str]:
    """Root names of the modules a Python file imports outside functions and classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def _missing_optional(path: pathlib.Path) -> str | None:
    """The first optional package ``path`` imports that is not installed, or None."""
    if path.suffix == ".py":
        wanted = _top_level_imports(path)
    elif path.suffix == ".md":
        wanted = set(_DOC_IMPORT.findall(path.read_text(encoding="utf-8")))
    else:
        return None
    for name in sorted(wanted & OPTIONAL.keys()):
        spec = importlib.util.find_spec(name)
        # a folder of that name on sys.path (a namespace package, no origin) is not the package
        if spec is None or spec.origin is None:
            return name
    return None


class _NeedsOptionalPackage(pytest.File):
    """Stands in for a module whose optional package is missing: collecting it skips."""

    def __init__(self, *, package: str, **kwargs):
        super().__init__(**kwargs)
        self.package = package

    def collect(self):
        pytest.skip(f"{self.path.name} needs {self.package}, which is not installed "
                    f"({OPTIONAL[self.package]})")


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path: pathlib.Path, parent):
    outcome = yield
    collectors = outcome.get_result()
    if not collectors or file_path.name == "conftest.py":
        return
    package = _missing_optional(file_path)
    if package is not None:
        outcome.force_result([_NeedsOptionalPackage.from_parent(
            parent, path=file_path, package=package)])


@pytest.fixture
def jax64():
    """JAX with 64-bit types for one test, then as it was: the switch is global, and left on
    it would change every later test of the jax backend. Skips where JAX is missing."""
    jax = pytest.importorskip("jax")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)

"""The direction of imports inside finegrad/_src (DESIGN.md, "Layers"):

    core (dtypes, state, tensor, nest, core, variables, shapes, dims, errors, interop, dlpack,
          types)
        <-  ops  <-  ad  <-  graph  <-  backends

The rule the code follows today, checked here on every import statement (including imports
inside functions, which would otherwise hide a cycle):

- the core modules import only the standard library, NumPy and other core modules;
- ``ops`` imports core modules and other ``ops`` modules, never ``ad``: differentiation rules
  are stored on the `Primitive` objects, so no op needs the tape. (No op builds its JVP by
  transposition through ``ad``; that is reserved to ``custom_gradient``, which lives in ``ad``.)
- ``ad`` imports core and ``ops``, never ``graph`` or ``backends``.
"""
import ast
import pathlib
import sys

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "finegrad" / "_src"
CORE = {"core", "dtypes", "state", "tensor", "nest", "variables", "shapes", "dims", "errors",
        "threads", "interop", "dlpack", "types", "graph_values"}
STDLIB = set(getattr(sys, "stdlib_module_names", ())) or {
    "threading", "numbers", "itertools", "enum", "functools", "inspect", "string", "math",
    "warnings", "collections", "contextlib", "weakref", "operator", "types", "typing"}


def _module_name(path):
    rel = path.relative_to(SRC.parent.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path):
    """Absolute names of every module imported anywhere in ``path`` (relative ones resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            if mod != "finegrad._src":  # the (empty) package itself; its modules follow
                names.append(mod)
            # `from finegrad._src import ad` imports the subpackage `ad`
            names += [f"{mod}.{a.name}" for a in node.names if mod.startswith("finegrad")]
    return names


def _layer(name):
    """The layer of a finegrad._src module name, or None for other modules."""
    parts = name.split(".")
    if parts[:2] != ["finegrad", "_src"] or len(parts) < 3:
        return None
    return "core" if parts[2] in CORE else parts[2]


def _files(layer):
    if layer == "core":
        return [SRC / f"{m}.py" for m in sorted(CORE) if (SRC / f"{m}.py").exists()]
    return sorted((SRC / layer).rglob("*.py"))


def _finegrad_layers(path):
    return {(n, _layer(n)) for n in _imports(path) if n.startswith("finegrad")}


def test_the_layers_exist():
    assert _files("core") and _files("ops") and _files("ad")
    assert (SRC / "core.py").exists() and (SRC / "tensor.py").exists()


@pytest.mark.parametrize("path", _files("core"), ids=lambda p: p.name)
def test_core_imports_only_stdlib_numpy_and_core(path):
    for name in _imports(path):
        top = name.split(".")[0]
        if top == "finegrad":
            assert _layer(name) == "core", f"{path.name} imports {name}"
        else:
            assert top == "numpy" or top in STDLIB, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", _files("ops"), ids=lambda p: p.name)
def test_ops_never_import_ad(path):
    for name, layer in _finegrad_layers(path):
        assert layer in ("core", "ops"), f"ops/{path.name} imports {name}"


@pytest.mark.parametrize("path", _files("ad"), ids=lambda p: p.name)
def test_ad_imports_only_core_ops_and_ad(path):
    for name, layer in _finegrad_layers(path):
        assert layer in ("core", "ops", "ad"), f"ad/{path.name} imports {name}"


def test_import_reader_sees_function_level_and_relative_imports(tmp_path):
    # the checker itself: a lazy import inside a function is still an import
    pkg = tmp_path / "finegrad" / "_src" / "ops"
    pkg.mkdir(parents=True)
    f = pkg / "bad.py"
    f.write_text("def g():\n    from finegrad._src.ad import tape\n"
                 "from ..ad import forward\n")
    global SRC
    saved, SRC = SRC, tmp_path / "finegrad" / "_src"
    try:
        names = _imports(f)
    finally:
        SRC = saved
    assert "finegrad._src.ad" in names and "finegrad._src.ad.forward" in names
    assert {_layer(n) for n in names} == {"ad"}


def _ops_graph():
    """Module -> the ops modules it imports (anywhere in it), over finegrad/_src/ops/**.py but
    the packages' __init__ files (which import them all to register their primitives); names
    are relative to ops (``array.structural``)."""
    ops = SRC / "ops"
    mods = {".".join(p.relative_to(ops).with_suffix("").parts): p
            for p in ops.rglob("*.py") if p.name != "__init__.py"}
    prefix = "finegrad._src.ops."
    return {m: {n[len(prefix):] for n in _imports(p) if n.startswith(prefix)}
            & set(mods) - {m} for m, p in mods.items()}


def _cycle(graph):
    """A list of modules that import each other in a ring, or None when ``graph`` is acyclic."""
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n, path + [n])
                if found:
                    return found
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


def test_ops_modules_import_each_other_in_one_direction():
    # array.structural's conversion packs lists with stack (concat), whose VJP slices with
    # getitem: indexing sits below structural, zeros_and_axes below both, and nothing may
    # import back up
    graph = _ops_graph()
    assert {"zeros_and_axes", "array.indexing", "array.structural", "array.constants",
            "array.gather", "array.shape_queries"} <= set(graph)
    assert _cycle(graph) is None, f"ops modules import each other in a ring: {_cycle(graph)}"
    assert graph["zeros_and_axes"] == set()
    assert graph["array.indexing"] == {"zeros_and_axes"}
    assert "array.structural" in graph["array.constants"]
    assert "array.structural" in graph["array.gather"]


def test_cycle_finder_finds_rings():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": set(), "b": {"b2"}, "b2": {"b"}}) == ["b", "b2", "b"]


@pytest.mark.parametrize("path", _files("ops"), ids=lambda p: p.name)
def test_ops_modules_import_other_ops_modules_at_the_top(path):
    # a function-level import would hide a ring from the reader (the graph above sees it)
    tree = ast.parse(path.read_text(), filename=str(path))
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))):
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                assert not (node.level or mod.startswith("finegrad._src.ops")), \
                    f"ops/{path.name} imports {mod} inside {getattr(fn, 'name', 'a lambda')}"
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("finegrad._src.ops") for a in node.names), \
                    f"ops/{path.name} imports inside {getattr(fn, 'name', 'a lambda')}"

"""The direction of imports in the whole package (DESIGN.md, "Layers"), read from the source:

    core (the modules at the root of finegrad/_src) < ops < api < ad < graph < control_flow
        < data < v1 < keras < backends < testing < the public modules (finegrad/*.py, ...)

Checked on every import statement of every module under finegrad/, imports inside functions
included (a function-level import would otherwise hide a cycle):

- a module imports only modules of its own layer or of layers below it;
- the core modules import only the standard library, NumPy and other core modules;
- the import graph of the package has no cycle: not between layers, not inside a folder.

A folder of finegrad/_src missing from the layer table fails the test: a new layer gets its
place in the order before it gets code. ``data``, ``v1`` and ``keras`` have their places
before they exist.
"""
import ast
import pathlib
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "finegrad"
SRC = PACKAGE / "_src"
LAYERS = ["core", "ops", "api", "ad", "graph", "control_flow", "data", "v1", "keras",
          "backends", "testing", "public"]
STDLIB = set(getattr(sys, "stdlib_module_names", ())) or {
    "threading", "numbers", "itertools", "enum", "functools", "inspect", "string", "math",
    "warnings", "collections", "contextlib", "weakref", "operator", "types", "typing"}


def _module_name(path, root=PACKAGE):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root=PACKAGE):
    """Dotted name -> path, for every module of the package."""
    return {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _imports(path, known, root=PACKAGE):
    """(name, line) of each module of ``known`` that ``path`` imports, anywhere in it:
    ``from p import m`` imports the module ``p.m`` when there is one, else ``p``; relative
    imports are resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            found += [(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod, node.lineno)
                      for a in node.names]
    return [(name, line) for name, line in found if name in known]


def _layer(name):
    """The layer of a module of the package."""
    parts = name.split(".")
    if parts[1:2] != ["_src"]:
        return "public"
    if len(parts) == 2 or not (SRC / parts[2]).is_dir():
        return "core"
    return parts[2]


MODULES = _modules()
GRAPH = {m: {n for n, _ in _imports(p, MODULES)} - {m} for m, p in MODULES.items()}


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


def test_every_folder_has_a_layer():
    folders = {p.name for p in SRC.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= set(LAYERS), f"folders of finegrad/_src without a layer: " \
        f"{sorted(folders - set(LAYERS))}; give each its place in LAYERS"
    assert {"ops", "api", "ad", "graph", "control_flow", "backends", "testing"} <= folders


def test_the_root_of_src_holds_the_core_layer():
    root = sorted(p.stem for p in SRC.glob("*.py") if p.name != "__init__.py")
    assert {"core", "tensor", "dims", "dtypes", "shapes", "variables"} <= set(root)
    for name in root:
        for imported, line in _imports(SRC / f"{name}.py", MODULES):
            assert _layer(imported) == "core", f"_src/{name}.py:{line} imports {imported}"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _layer(m) == "core"))
def test_core_imports_only_stdlib_numpy_and_core(name):
    tree = ast.parse(MODULES[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            tops = [node.module.split(".")[0]]
        else:
            continue
        for top in tops:
            assert top in ("numpy", "finegrad") or top in STDLIB, \
                f"{name}:{node.lineno} imports {top}"


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_point_down_the_layers(layer):
    rank = LAYERS.index(layer)
    wrong = [f"{m}:{line} ({layer}) imports {n} ({_layer(n)})"
             for m, p in MODULES.items() if _layer(m) == layer
             for n, line in _imports(p, MODULES) if LAYERS.index(_layer(n)) > rank]
    assert not wrong, "imports pointing up the layers:\n" + "\n".join(wrong)


def test_the_package_has_no_import_cycle():
    cycle = _cycle(GRAPH)
    assert cycle is None, f"modules that import each other in a ring: {' -> '.join(cycle)}"


@pytest.mark.parametrize("folder", sorted({m.rpartition(".")[0] for m in MODULES}))
def test_no_folder_has_an_import_cycle_inside(folder):
    inside = {m: GRAPH[m] & {n for n in GRAPH if n.startswith(folder + ".")}
              for m in GRAPH if m.startswith(folder + ".")}
    assert _cycle(inside) is None, f"{folder}: {_cycle(inside)}"


def test_ops_register_their_rules_without_ad():
    # rules are stored on the Primitive objects, so no op needs the tape
    assert not [(m, n) for m in GRAPH if _layer(m) == "ops" for n in GRAPH[m]
                if _layer(n) not in ("core", "ops")]


def test_the_reader_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "finegrad" / "_src" / "ops"
    pkg.mkdir(parents=True)
    (tmp_path / "finegrad" / "_src" / "ad").mkdir()
    for p in (tmp_path / "finegrad" / "__init__.py", tmp_path / "finegrad" / "_src" / "ad" /
              "forward.py", tmp_path / "finegrad" / "_src" / "ad" / "tape.py"):
        p.write_text("")
    bad = pkg / "bad.py"
    bad.write_text("def g():\n    from finegrad._src.ad import tape\n"
                   "from ..ad import forward\n")
    known = _modules(tmp_path / "finegrad")
    names = {n for n, _ in _imports(bad, known, tmp_path / "finegrad")}
    assert names == {"finegrad._src.ad.tape", "finegrad._src.ad.forward"}


def test_the_layer_of_a_module():
    assert _layer("finegrad") == "public" and _layer("finegrad.math.special") == "public"
    assert _layer("finegrad._src.core") == "core"
    assert _layer("finegrad._src.ops.math.elementwise") == "ops"
    assert _layer("finegrad._src.graph.compile.fuse") == "graph"


def test_cycle_finder_finds_rings():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": set(), "b": {"b2"}, "b2": {"b"}}) == ["b", "b2", "b"]


def test_ops_modules_keep_their_order():
    # array.structural's conversion packs lists with stack (concat), whose VJP slices with
    # getitem: indexing sits below structural, zeros_and_axes below both
    ops = "finegrad._src.ops."
    # (ops.lowering, what lowerings share, imports no finegrad module: any op may use it)
    assert GRAPH[ops + "zeros_and_axes"] & {m for m in GRAPH if m.startswith(ops)} == set()
    assert {m for m in GRAPH[ops + "lowering"] if m.startswith("finegrad")} == set()
    assert GRAPH[ops + "array.indexing"] & {m for m in GRAPH if m.startswith(ops)} == \
        {ops + "zeros_and_axes", ops + "lowering"}
    assert ops + "array.structural" in GRAPH[ops + "array.constants"]

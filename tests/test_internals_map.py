"""docs/internals.md's floor plan lists every module of the package, one line each, under its
folder's heading: a module added without its line fails here (regenerate the section with
`python3 docs/gen_floor_plan.py`)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "finegrad"


def _listed():
    """(folder, file name) of each module line of the floor plan."""
    text = (ROOT / "docs" / "internals.md").read_text()
    plan = text[text.index("## The floor plan"):]
    plan = plan[:plan.index("\n## ", 1)]
    listed, folder = set(), None
    for line in plan.splitlines():
        heading = re.match(r"#+ `(finegrad[\w/]*)/`", line)
        if heading:
            folder = heading.group(1)
        item = re.match(r"- `(\w+\.py)`: \S", line)
        if item and folder:
            listed.add((folder, item.group(1)))
    return listed


def _modules():
    return {(p.parent.relative_to(ROOT).as_posix(), p.name) for p in PACKAGE.rglob("*.py")
            if p.name != "__init__.py" or p.parent == PACKAGE}


def test_every_module_has_its_line():
    missing = sorted(f"{d}/{n}" for d, n in _modules() - _listed())
    assert not missing, f"modules missing from docs/internals.md's floor plan: {missing}; " \
                        f"regenerate it with python3 docs/gen_floor_plan.py"


def test_every_line_names_a_module():
    stale = sorted(f"{d}/{n}" for d, n in _listed() - _modules())
    assert not stale, f"docs/internals.md lists modules that do not exist: {stale}"


def test_every_folder_is_described():
    text = (ROOT / "docs" / "internals.md").read_text()
    for folder in {p.parent for p in PACKAGE.rglob("*.py")} - {PACKAGE}:
        rel = folder.relative_to(ROOT).as_posix()
        if rel == "finegrad/_src":
            continue
        heading = re.search(rf"#+ `{re.escape(rel)}/`\n\n(\S.*)\n", text)
        assert heading, f"{rel}/ has no heading with a description in docs/internals.md"

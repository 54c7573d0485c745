"""Print the floor plan of finegrad (every folder, every module, one line each) from the
package's docstrings, for docs/internals.md ("The floor plan"): `python3 docs/gen_floor_plan.py`.

A folder's line is the first sentence of its ``__init__`` docstring, a module's the first
sentence of its own. tests/test_internals_map.py fails when a module is missing from the page.
"""
import ast
import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "finegrad"
LAYERS = ["core", "ops", "api", "ad", "graph", "control_flow", "data", "v1", "keras",
          "backends", "testing"]


def first_sentence(path):
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    text = " ".join(doc.split("\n\n")[0].split())
    m = re.match(r"(.+?\.)(\s|$)", text)
    line = m.group(1) if m else text
    return line if len(line) <= 160 else line[:156].rsplit(" ", 1)[0] + " ..."


def folder_block(folder, depth):
    rel = folder.relative_to(PACKAGE.parent).as_posix()
    init = folder / "__init__.py"
    title = "#" * depth + f" `{rel}/`"
    lines = [title, ""]
    if init.exists() and first_sentence(init):
        lines += [first_sentence(init), ""]
    for p in sorted(folder.glob("*.py")):
        if p.name != "__init__.py":
            lines.append(f"- `{p.name}`: {first_sentence(p) or '(no docstring)'}")
    lines.append("")
    for sub in sorted(d for d in folder.iterdir() if d.is_dir() and d.name != "__pycache__"):
        lines += folder_block(sub, min(depth + 1, 5))
    return lines


def render():
    src = PACKAGE / "_src"
    lines = ["## The floor plan", "",
             "Generated from the docstrings by `python3 docs/gen_floor_plan.py`; "
             "`tests/test_internals_map.py` fails when a module is missing here. Layers, low to "
             "high (imports point down; `tests/test_layering.py`): core (the modules at the root "
             "of `_src/`) < " + " < ".join(f"`{n}/`" for n in LAYERS[1:]) +
             " < the public modules. `data/`, `v1/` and `keras/` have their places before "
             "their code lands.", ""]
    lines += ["### `finegrad/` (the public modules: re-exports, each with `__all__`)", ""]
    for p in sorted(PACKAGE.glob("*.py")):
        lines.append(f"- `{p.name}`: {first_sentence(p)}")
    lines.append("")
    for sub in sorted(d for d in PACKAGE.iterdir() if d.is_dir() and d.name not in
                      ("_src", "__pycache__")):
        lines += folder_block(sub, 4)
    lines += ["### `finegrad/_src/` (the core layer at its root)", ""]
    for p in sorted(src.glob("*.py")):
        if p.name != "__init__.py":
            lines.append(f"- `{p.name}`: {first_sentence(p)}")
    lines.append("")
    order = {n: i for i, n in enumerate(LAYERS)}
    for sub in sorted((d for d in src.iterdir() if d.is_dir() and d.name != "__pycache__"),
                      key=lambda d: (order.get(d.name, 99), d.name)):
        lines += folder_block(sub, 4)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(render(), end="")

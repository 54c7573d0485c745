"""``import finegrad`` alone registers every primitive: importing every module under
finegrad._src.ops afterwards adds none (a module that only some public module imports would
register its primitives late, or never)."""
import json
import subprocess
import sys

_CODE = """
import importlib, json, pkgutil, sys
import finegrad
from finegrad._src import core, ops
before = sorted(core.primitives())
for info in pkgutil.walk_packages(ops.__path__, "finegrad._src.ops."):
    importlib.import_module(info.name)
print(json.dumps([before, sorted(core.primitives())]))
"""


def test_import_finegrad_registers_every_primitive():
    out = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True,
                         check=True).stdout
    before, after = json.loads(out)
    assert len(before) > 150
    assert sorted(set(after) - set(before)) == []
    assert before == after

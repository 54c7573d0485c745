"""The package around the code (issue 20): one version, the command's --version, the license
and changelog the metadata promises, and extras that never pin a framework."""
import pathlib
import re
import subprocess
import sys

import pytest

import finegrad
from finegrad.__main__ import main
from finegrad._version import __version__

ROOT = pathlib.Path(__file__).resolve().parent.parent

def _pyproject():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_written_once():
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    attr = _pyproject()["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "finegrad._version.__version__"
    assert finegrad.__version__ == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc|\.dev)?\d*", __version__)
    hits = [p for p in (ROOT / "finegrad").rglob("*.py")
            if re.search(rf"""=\s*["']{re.escape(__version__)}["']""", p.read_text())]
    assert hits == [ROOT / "finegrad" / "_version.py"]


def test_version_option(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"finegrad {__version__}\n"


def test_python_m_finegrad_version():
    out = subprocess.run([sys.executable, "-m", "finegrad", "--version"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"finegrad {__version__}"


def test_license_matches_the_metadata():
    assert _pyproject()["project"]["license"] == "Apache-2.0"       # an SPDX expression
    assert _pyproject()["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text         # the full text, not a pointer


def test_changelog_has_a_section_for_this_version_newest_first():
    sections = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert sections[0] == "Unreleased"
    assert __version__ in sections
    released = [tuple(int(p) for p in s.split(".")) for s in sections[1:]]
    assert released == sorted(released, reverse=True)


def test_extras_have_lower_bounds_never_pins():
    extras = _pyproject()["project"]["optional-dependencies"]
    for name, reqs in extras.items():
        for req in reqs:
            assert "==" not in req and "<" not in req, (name, req)
            if not req.startswith("finegrad["):
                assert ">=" in req, (name, req)
    listed = set(re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(","))
    assert listed == set(extras) - {"test", "all"}

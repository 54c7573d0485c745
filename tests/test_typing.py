"""Types for users' type checkers (issue 20): the package is marked typed, the public aliases
exist, the core of the API is annotated, and the docs' examples can be extracted for the
checker (CI runs ``python3 docs/doc_examples.py build/doc_examples && python3 -m mypy
finegrad build/doc_examples``; see pyproject.toml's [tool.mypy])."""
import importlib.util
import inspect
import pathlib

import numpy as np
import pytest

import finegrad as fg
from finegrad.types.experimental import TensorLike

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_package_is_marked_typed():
    assert (ROOT / "finegrad" / "py.typed").exists()
    assert 'finegrad = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()


def test_tensor_like_covers_what_convert_to_tensor_takes():
    import typing
    members = set(typing.get_args(TensorLike))
    assert {fg.Tensor, fg.Variable, np.ndarray, int, float, bool} <= members


def _fully_annotated(fn, bound=("self",)):
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name not in bound
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return sig.return_annotation is not sig.empty and all(
        p.annotation is not p.empty for p in params)


def test_the_core_api_is_annotated():
    names = [fg.constant, fg.Variable.__init__, fg.Variable.assign, fg.Variable.assign_add,
             fg.Variable.read_value, fg.Tensor.numpy, fg.Tensor.__array__,
             fg.experimental.dlpack.from_dlpack, fg.experimental.dlpack.to_dlpack]
    missing = [f.__qualname__ for f in names if not _fully_annotated(f)]
    assert not missing, missing


def _public_callables():
    """Every public function, class ``__init__``, public method and property of the public
    modules (``finegrad`` and its packages without a leading underscore), once each."""
    import pkgutil
    mods = [fg] + [importlib.import_module(i.name)
                   for i in pkgutil.walk_packages(fg.__path__, "finegrad.")
                   if not any(p.startswith("_") for p in i.name.split("."))]
    seen = {}
    for mod in mods:
        for name in dir(mod):
            value = getattr(mod, name)
            if name.startswith("_") or inspect.ismodule(value) or not callable(value):
                continue
            if inspect.isclass(value):
                for key, f in vars(value).items():
                    if isinstance(f, property) and not key.startswith("_"):
                        f = f.fget
                    elif key.startswith("_") and key != "__init__" or not callable(f):
                        continue
                    seen.setdefault(f"{value.__module__}.{value.__qualname__}.{key}",
                                    (f, ("self", "cls")))
            else:
                seen.setdefault(f"{value.__module__}.{value.__qualname__}", (value, ()))
    return seen


# TODO(#20): merged from main at the deadline, not annotated yet (finegrad.ops's keras.ops
# dispatch, 359 names, and tf.image's new ops, 40): remove a prefix once its module is done
_NOT_YET: tuple[str, ...] = ()


def test_every_public_callable_is_annotated():
    found = _public_callables()
    missing = sorted(k for k, (f, bound) in found.items()
                     if not _fully_annotated(getattr(f, "__func__", f), bound)
                     and not k.startswith(_NOT_YET))
    assert len(found) > 1000 and not missing, missing


def test_docs_examples_extract_to_modules(tmp_path):
    spec = importlib.util.spec_from_file_location("doc_examples_gen",
                                                  ROOT / "docs" / "doc_examples.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    written = gen.main(tmp_path)
    assert "example_getting_started.py" in written and "example_readme.py" in written
    source = (tmp_path / "example_readme.py").read_text()
    compile(source, "example_readme.py", "exec")
    assert "@tf.custom_gradient" in source
    for name in written:
        compile((tmp_path / name).read_text(), name, "exec")   # valid Python


def test_type_checker_sees_tensors(tmp_path):
    """What mypy infers for a user's code: ``reveal_type(finegrad.constant(1.))`` is a finegrad
    Tensor, and so are ops and operators on it; a dataset's transformations stay Datasets."""
    api = pytest.importorskip("mypy.api")
    user = tmp_path / "user_code.py"
    user.write_text(
        "import finegrad as tf\n"
        "x = tf.constant(1.)\n"
        "reveal_type(x)\n"
        "reveal_type(tf.exp(x))\n"
        "reveal_type(x * 2)\n"
        "reveal_type(tf.Variable(2.).read_value())\n"
        "reveal_type(tf.convert_to_tensor([1, 2]))\n"
        "reveal_type(tf.data.Dataset.range(3).map(lambda v: v * 2).batch(2))\n"
        "y: tf.Tensor = tf.reduce_sum(x)\n")
    out, err, status = api.run([str(user), "--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(ROOT / ".mypy_cache")])
    revealed = [line.split("Revealed type is ")[1].strip('"')
                for line in out.splitlines() if "Revealed type is" in line]
    assert revealed == ["finegrad._src.tensor.Tensor"] * 5 + [
        "finegrad._src.data.dataset.Dataset"], out + err
    assert status == 0, out + err

"""Public modules export only public names: no imported helper modules, no foreign objects.

A name from elsewhere that a module uses internally (``numpy`` as ``np``, a private helper)
must be imported under a private alias, so that ``dir(finegrad.testing)`` is its API.
"""
import importlib
import pkgutil
import types

import pytest

import finegrad


def public_modules():
    """``finegrad`` and every public module under it, at any depth (not ``_src``, not
    ``__main__``)."""
    names = [info.name for info in pkgutil.walk_packages(finegrad.__path__, "finegrad.")
             if not any(part.startswith("_") for part in info.name.split("."))]
    return [finegrad] + [importlib.import_module(name) for name in sorted(names)]


def _is_public_module(value):
    parts = value.__name__.split(".")
    return parts[0] == "finegrad" and not any(p.startswith("_") for p in parts)


def _is_public_submodule(module, name, value):
    """``finegrad.math`` in ``finegrad``, ``finegrad.compat.v1`` in ``finegrad.compat``;
    ``finegrad.math`` in ``finegrad.compat.v2``, the package's names under TensorFlow's second
    name; and a public finegrad module that ``module`` declares as its own under the same
    name in its ``__all__`` (``finegrad.keras.ops`` is ``finegrad.ops``, as Keras 3's
    ``keras.ops`` is its ops namespace)."""
    home = "finegrad" if module.__name__ == "finegrad.compat.v2" else module.__name__
    if value.__name__ == f"{home}.{name}":
        return True
    return name in getattr(module, "__all__", ()) and _is_public_module(value) and \
        value.__name__.rpartition(".")[2] == name


def _stray_names(module):
    """Public-looking attributes of ``module`` that are not finegrad API, with the reason."""
    stray = []
    for name in dir(module):
        if not name.isidentifier() or name.startswith("_"):
            continue   # (pytest's assertion rewriting adds '@py_builtins' to modules it collects)
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            if not _is_public_submodule(module, name, value):
                stray.append(f"{name} (the module {value.__name__})")
        elif value is None or (type(value) is int and name.isupper() and
                               name in getattr(module, "__all__", ())):
            continue   # a constant of TensorFlow's API (newaxis, tf.errors' codes)
        elif getattr(value, "__module__", None) in ("typing", "types") and \
                name in getattr(module, "__all__", ()):
            continue   # a type alias finegrad defines (a union's module is typing or types)
        elif str(getattr(value, "__module__", None)).partition(".")[0] != "finegrad":
            stray.append(f"{name} ({type(value).__name__} from "
                         f"{getattr(value, '__module__', None)})")
    return stray


def test_the_walk_sees_every_public_module():
    names = {m.__name__ for m in public_modules()}
    assert {f"finegrad.{n}" for n in ("math", "nn", "linalg", "autodiff", "stable", "testing",
                                      "compat", "compat.v1")} <= names


@pytest.mark.parametrize("module", public_modules(), ids=lambda m: m.__name__)
def test_public_module_exports_only_finegrad_api(module):
    stray = _stray_names(module)
    assert not stray, (f"{module.__name__} has public attributes that are not its API: "
                       f"{', '.join(stray)}; import them under a private alias "
                       f"(import numpy as _np)")


@pytest.mark.parametrize("module", [m for m in public_modules() if hasattr(m, "__all__")],
                         ids=lambda m: m.__name__)
def test_all_lists_exactly_the_public_attributes(module):
    public = {name for name in dir(module) if name.isidentifier() and not name.startswith("_")}
    # a public submodule the package does not import itself (finegrad.ops) appears as an
    # attribute once some code imports it; it is API without being in __all__
    public -= {name for name in public - set(module.__all__)
               if isinstance(getattr(module, name), types.ModuleType)
               and _is_public_submodule(module, name, getattr(module, name))}
    assert public == set(module.__all__), (
        f"{module.__name__}: public but not in __all__: {sorted(public - set(module.__all__))}; "
        f"in __all__ but missing: {sorted(set(module.__all__) - public)}")


def test_the_check_catches_an_imported_module_and_a_foreign_name():
    fake = types.ModuleType("finegrad.fake")
    fake.np, fake.partial, fake.ok = types, print, finegrad.reduce_sum
    assert _stray_names(fake) == ["np (the module types)",
                                  "partial (builtin_function_or_method from builtins)"]
    assert "testing" not in _stray_names(finegrad)


def test_a_public_module_under_another_name_is_api_only_when_declared():
    """An alias of a public module counts as API when ``__all__`` lists it under the module's
    own name; undeclared, or a private module, or under another name, it is stray."""
    fake = types.ModuleType("finegrad.fake")
    fake.nn, fake.ops, fake.core, fake.maths = (finegrad.nn, finegrad.nn, finegrad._src.core,
                                                finegrad.math)
    fake.__all__ = ["nn", "core", "maths"]
    assert _stray_names(fake) == ["core (the module finegrad._src.core)",
                                  "maths (the module finegrad.math)",
                                  "ops (the module finegrad.nn)"]


def test_keras_ops_has_the_names_of_ops():
    from finegrad import ops
    from finegrad.keras import ops as keras_ops
    import finegrad.keras.ops as imported
    assert keras_ops is imported is finegrad.keras.ops
    assert "ops" in finegrad.keras.__all__ and "ops" in dir(finegrad.keras)
    assert keras_ops.__all__ == ops.__all__
    assert all(getattr(keras_ops, n) is getattr(ops, n) for n in ops.__all__)
    assert float(finegrad.keras.ops.add(1.0, 2.0)) == 3.0
    with pytest.raises(AttributeError, match=r"'finegrad.keras.ops' has no attribute 'nope'"):
        _ = keras_ops.nope

"""finegrad.ops has every public name of Keras 3's keras.ops, in Keras's namespaces, with
Keras's parameters and defaults; each backend has each name, or says it does not."""
import inspect
import subprocess
import sys

import pytest

from finegrad import ops
from finegrad._src import backends
from finegrad._src.backends import keras_names, keras_signatures

EXTRAS = {"backend", "set_backend", "backend_scope", "grad", "value_and_grad", "result_type"}
NAMESPACES = ("numpy", "nn", "linalg", "math", "core", "image")


def test_the_recorded_names_are_keras_315s():
    assert len(keras_names.TOP) == 337 and len(keras_names.IMAGE) == 16
    assert len(set(keras_names.TOP)) == 337


def test_all_lists_every_keras_name_and_the_namespaces():
    assert set(ops.__all__) == set(keras_names.TOP) | EXTRAS | set(NAMESPACES)
    for name in keras_names.TOP:
        assert callable(getattr(ops, name)), name
    assert set(ops.image.__all__) == set(keras_names.IMAGE)
    for group in ("numpy", "nn", "linalg", "math"):
        assert set(getattr(ops, group).__all__) == set(keras_names.GROUPS[group])
    assert set(ops.core.__all__) == set(keras_names.CORE) | set(keras_names.EINOPS)


def test_namespaces_hold_the_top_level_functions():
    assert ops.nn.relu is ops.relu and ops.numpy.add is ops.add and ops.linalg.qr is ops.qr
    assert callable(ops.image.resize) and not hasattr(ops, "resize")


def _keras():
    return pytest.importorskip("keras")


def test_every_name_of_the_installed_keras_is_here():
    keras = _keras()
    top = {n for n in dir(keras.ops) if not n.startswith("_")
           and not inspect.ismodule(getattr(keras.ops, n))}
    missing = sorted(top - set(dir(ops)))
    assert not missing, f"keras.ops names missing from finegrad.ops: {missing}"
    for space in ("numpy", "nn", "linalg", "image"):
        theirs = {n for n in dir(getattr(keras.ops, space)) if not n.startswith("_")}
        missing = sorted(theirs - set(dir(getattr(ops, space))))
        assert not missing, f"keras.ops.{space} names missing from finegrad.ops.{space}: {missing}"


def _parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def _same_or_extended(theirs, mine):
    """Keras's parameters, then only finegrad's keyword-only extensions (custom_gradient's
    forward= and jvp=)."""
    a, b = _parameters(theirs), _parameters(mine)
    if a == b:
        return True
    if [n for n, _, _ in a] != [n for n, _, _ in b[:len(a)]]:
        return False
    extra = b[len(a):]
    return all(kind is inspect.Parameter.KEYWORD_ONLY for _, kind, _ in extra)


def test_parameters_and_defaults_are_keras():
    keras = _keras()
    differ = [name for name in keras_names.TOP
              if not _same_or_extended(getattr(keras.ops, name), getattr(ops, name))]
    differ += [f"image.{name}" for name in keras_names.IMAGE
               if _parameters(getattr(keras.ops.image, name)) !=
               _parameters(getattr(ops.image, name))]
    assert not differ, f"parameters differ from Keras's: {differ}"


def test_the_recorded_positional_parameters_match_the_functions():
    for name in keras_names.TOP:
        if name in keras_signatures.PARAMETERS:
            params = [p.name for p in inspect.signature(getattr(ops, name)).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            assert tuple(params) == keras_signatures.PARAMETERS[name], name


@pytest.mark.parametrize("name", backends.names())
def test_each_backend_has_each_name_or_says_which_it_lacks(name):
    if name != "finegrad":
        pytest.importorskip(name)
    backend = backends.load(name)
    lacking = [n for n, src in backend.sources.items() if src is None
               and n not in ("shape", "dtype")]
    for n in lacking:
        with pytest.raises(NotImplementedError, match=rf"ops\.(image\.)?"
                                                      rf"{n.removeprefix('image_')} is not "
                                                      rf"implemented on the '{name}' backend"):
            getattr(backend, n)()


def test_tf_ops_says_where_keras_ops_is():
    code = ("import finegrad as tf\ntry:\n    tf.ops\nexcept AttributeError as e:\n"
            "    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout
    assert "TensorFlow has no tf.ops namespace" in out and "from finegrad import ops" in out

"""Errors raised on behalf of user code (a grad_fn, a custom-gradient f, a traced function,
a loop body) leave with finegrad's internal frames filtered out of the traceback, as JAX and
TensorFlow do; FINEGRAD_TRACEBACK_FILTERING=off (or disable_traceback_filtering) keeps them."""
import os
import subprocess
import sys
import traceback

import pytest

import finegrad as fg

PACKAGE = os.path.dirname(fg.__file__) + os.sep


def _frames(exc):
    return [f.filename for f in traceback.extract_tb(exc.__traceback__)]


def _internal(files):
    return [f for f in files if f.startswith(PACKAGE) and not f.endswith("tracebacks.py")]


def _grad_fn_error():
    @fg.custom_gradient
    def f(x):
        def grad_fn(dy):
            raise KeyError("from grad_fn")
        return x * 2, grad_fn

    x = fg.constant(1.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    tape.gradient(y, x)


def _forward_error():
    @fg.custom_gradient
    def f(x):
        raise KeyError("from f")

    x = fg.constant(1.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        f(x)


def _traced_error():
    @fg.function
    def f(x):
        return fg.cond(x > 0, lambda: x[{}], lambda: x)
    f(fg.constant(1.))


def _loop_error():
    fg.while_loop(lambda i: i < 3, lambda i: {}["body"], [fg.constant(0)])


def _jacobian_error():
    @fg.custom_gradient
    def f(x):
        return x * 2, lambda dy: {}["jac"]

    x = fg.constant([1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    tape.jacobian(y, x)


CASES = {"grad_fn": (_grad_fn_error, KeyError), "custom_f": (_forward_error, KeyError),
         "function": (_traced_error, TypeError), "while_loop": (_loop_error, KeyError),
         "jacobian": (_jacobian_error, KeyError)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_internal_frames_are_hidden(name):
    run, cls = CASES[name]
    with pytest.raises(cls) as info:
        run()
    files = _frames(info.value)
    assert _internal(files) == [], files
    assert files[-1] == __file__    # the user's frame is last
    assert files[0] == __file__


@pytest.mark.parametrize("name", sorted(CASES))
def test_disabled_filtering_keeps_every_frame(name):
    run, cls = CASES[name]
    fg.debugging.disable_traceback_filtering()
    try:
        assert not fg.debugging.is_traceback_filtering_enabled()
        with pytest.raises(cls) as info:
            run()
    finally:
        fg.debugging.enable_traceback_filtering()
    assert _internal(_frames(info.value))
    assert fg.debugging.is_traceback_filtering_enabled()


def test_environment_variable_turns_it_off():
    code = "import finegrad as fg; print(fg.debugging.is_traceback_filtering_enabled())"
    env = dict(os.environ, FINEGRAD_TRACEBACK_FILTERING="off",
               PYTHONPATH=os.path.dirname(os.path.dirname(fg.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"


def test_message_and_cause_are_kept():
    def body(i):
        try:
            {}["x"]
        except KeyError as e:
            raise ValueError("in body") from e

    with pytest.raises(ValueError, match="in body") as info:
        fg.while_loop(lambda i: i < 3, body, [fg.constant(0)])
    assert isinstance(info.value.__cause__, KeyError)


def test_tensorflow_has_the_same_switches():
    tf = pytest.importorskip("tensorflow")
    assert tf.debugging.is_traceback_filtering_enabled() is True
    assert callable(tf.debugging.disable_traceback_filtering)


def test_custom_gradient_message_says_where_f_is():
    @fg.custom_gradient
    def not_a_pair(x):
        return x, 3.

    line = test_custom_gradient_message_says_where_f_is.__code__.co_firstlineno + 1  # @...
    with pytest.raises(TypeError, match=rf"not_a_pair must return .*\(defined at "
                                        rf"test_tracebacks.py:{line}\)"):
        not_a_pair(fg.constant(1.))

"""``tf.config``'s devices and eager switch, ``tf.errors``' codes, ``tf.get_logger`` and
``tf.autodiff.GradientTape``: what TensorFlow 2.21 gives on a machine without a GPU
(recorded; compared live where TensorFlow is installed)."""
import pytest

import finegrad as fg


def test_devices_on_a_machine_without_gpus():
    cpu = fg.config.list_physical_devices("CPU")
    assert [tuple(d) for d in cpu] == [("/physical_device:CPU:0", "CPU")]
    assert [tuple(d) for d in fg.config.list_logical_devices("CPU")] == [
        ("/device:CPU:0", "CPU")]
    assert fg.config.list_physical_devices("XPU") == []
    assert fg.config.get_visible_devices("CPU") == cpu
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
        fg.config.experimental.set_memory_growth(cpu[0], True)
    for gpu in fg.config.list_physical_devices("GPU"):   # (the usual script: no-op here)
        fg.config.experimental.set_memory_growth(gpu, True)
        assert fg.config.experimental.get_memory_growth(gpu)


def test_visible_devices_are_kept_and_checked():
    cpu = fg.config.list_physical_devices("CPU")
    fg.config.set_visible_devices(cpu, "CPU")
    assert fg.config.get_visible_devices("CPU") == cpu
    with pytest.raises(TypeError, match="PhysicalDevices"):
        fg.config.set_visible_devices(["/CPU:0"])


def test_run_functions_eagerly_runs_the_python_each_call():
    calls = []

    @fg.function
    def f(x):
        calls.append(fg.executing_eagerly())
        return x * 2.
    f(fg.constant(1.))
    f(fg.constant(2.))
    assert calls == [False]   # traced once
    fg.config.run_functions_eagerly(True)
    try:
        assert fg.config.functions_run_eagerly()
        assert float(f(fg.constant(3.))) == 6.
        assert calls == [False, True]
    finally:
        fg.config.run_functions_eagerly(False)
    assert not fg.config.experimental_functions_run_eagerly()


CODES = {"OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
         "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
         "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
         "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16}


def test_error_codes_and_classes_as_tensorflow():
    for name, code in CODES.items():
        assert getattr(fg.errors, name) == code
    assert fg.errors.InvalidArgumentError("x").error_code == 3
    assert fg.errors.OutOfRangeError.error_code == 11
    assert fg.errors.OpError("x").error_code == 2
    assert issubclass(fg.errors.OperatorNotAllowedInGraphError, TypeError)
    tf = pytest.importorskip("tensorflow")
    for name, code in CODES.items():
        assert getattr(tf.errors, name) == code
    for cls in ("CancelledError", "DeadlineExceededError", "PermissionDeniedError",
                "UnauthenticatedError", "AbortedError", "UnavailableError"):
        assert getattr(fg.errors, cls)("m").error_code == \
            getattr(tf.errors, cls)(None, None, "m").error_code


def test_logger_and_autodiff_tape():
    assert fg.get_logger() is fg.get_logger() and fg.get_logger().name == "finegrad"
    assert fg.autodiff.GradientTape is fg.GradientTape

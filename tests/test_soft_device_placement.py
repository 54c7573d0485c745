"""``finegrad.config.set_soft_device_placement`` / ``get_soft_device_placement``, TensorFlow's
switch: on by default; off, a device block naming a device the machine lacks raises
``InvalidArgumentError`` (TensorFlow 2.21 with no GPU: "Could not satisfy device
specification ... enable_soft_placement=0"), eagerly and for a compiled function."""
import numpy as np
import pytest

import finegrad as fg
from finegrad._src.api import placement


@pytest.fixture
def hard_placement():
    saved = fg.config.get_soft_device_placement()
    fg.config.set_soft_device_placement(False)
    yield
    fg.config.set_soft_device_placement(saved)


def test_on_by_default_and_a_missing_device_runs_on_the_cpu():
    assert fg.config.get_soft_device_placement() is True
    with fg.device("/TPU:7"):
        assert float(fg.constant(2.) * 3.) == 6.


def test_the_switch_takes_bools_only():
    with pytest.raises(TypeError, match="set_soft_device_placement"):
        fg.config.set_soft_device_placement("x")
    assert fg.config.get_soft_device_placement() is True


def test_off_a_device_the_machine_lacks_raises(hard_placement):
    assert fg.config.get_soft_device_placement() is False
    with pytest.raises(fg.errors.InvalidArgumentError, match="TPU:7"):
        with fg.device("/TPU:7"):
            fg.constant(1.)
    with fg.device("/cpu:0"):   # the CPU it has
        assert float(fg.constant(2.) + 1.) == 3.
    with pytest.raises(fg.errors.InvalidArgumentError):
        fg.device("/job:localhost/replica:0/task:0/device:CPU:1")


def test_off_a_compiled_function_placed_on_a_missing_device_raises(hard_placement):
    pytest.importorskip("jax")
    f = fg.function(lambda x: x * 2., jit_compile=True)
    x = fg.constant(np.float32(1.5))
    fg.config.set_soft_device_placement(True)
    with fg.device("/TPU:7"):   # on: the default device (and that placement is cached)
        assert float(f(x)) == 3.
        fg.config.set_soft_device_placement(False)
        with pytest.raises(fg.errors.InvalidArgumentError, match="TPU:7"):
            f(x)


@pytest.mark.skipif(not placement.has_device("GPU", 0), reason="no GPU on this machine")
def test_off_a_gpu_the_machine_has_is_accepted(hard_placement):
    with fg.device("/GPU:0"):
        assert float(fg.function(lambda x: x + 1., jit_compile=True)(fg.constant(1.))) == 2.

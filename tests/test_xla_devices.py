"""``function(jit_compile=True)`` and ``finegrad.device``: the compiled listing names the
device the executable runs on; a device this machine does not have (a GPU on a CPU-only
machine) is placed on the default device, as TensorFlow's soft placement (on by default)
does, and the listing says so. A GPU machine's own test is in tests/test_xla.py."""
import numpy as np
import pytest

import finegrad as fg

jax = pytest.importorskip("jax")

NO_GPU = not any(d.platform == "gpu" for d in jax.devices())
DEFAULT = jax.devices()[0]


def _f():
    return fg.function(lambda x: fg.reduce_sum(fg.exp(x) * 2.), jit_compile=True)


@pytest.mark.skipif(not NO_GPU, reason="this machine has a GPU: nothing falls back")
@pytest.mark.parametrize("name", ["/GPU:0", "/device:GPU:0", "/gpu:1",
                                  "/job:localhost/replica:0/task:0/device:GPU:0"])
def test_a_gpu_asked_for_without_one_runs_on_the_default_device_and_says_so(name):
    f = _f()
    x = fg.constant([0., 1.])
    with fg.device(name):
        y = f(x)
        src = f.get_concrete_function(x).compiled_source
        hlo = f.get_concrete_function(x).compiled_hlo()
    assert y.numpy() == pytest.approx(2 * (1 + np.e))
    assert src.startswith(f"# XLA through jax.jit on {DEFAULT};")
    assert f"finegrad.device({name!r}): no such device here" in src
    assert "soft placement" in hlo.split("\n", 2)[1]
    xf = f.get_concrete_function(x)._xla_function()
    assert {e.device for e in xf._cache.values()} == {DEFAULT}


def test_the_listing_names_the_device_asked_for_when_it_is_here():
    f = _f()
    x = fg.constant([0., 1.])
    with fg.device("/CPU:0"):
        f(x)
        src = f.get_concrete_function(x).compiled_source
    cpu = jax.devices("cpu")[0]
    assert src.startswith(f"# XLA through jax.jit on {cpu};") and "no such device" not in src
    assert "no such device" not in f.get_concrete_function(x).compiled_source   # no block


def test_device_strings_that_place_on_one_device_share_its_executable():
    f = _f()
    x = fg.constant([0., 1.])
    xf = f.get_concrete_function(x)._xla_function()
    for _ in range(2):
        with fg.device("/GPU:0"):
            f(x)
        with fg.device("/CPU:0"):
            f(x)
        f(x)
    assert xf.compilations == (1 if NO_GPU else 2)   # /GPU:0 placed on the CPU here

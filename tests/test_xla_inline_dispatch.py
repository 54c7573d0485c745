"""`dispatch.run_inline`: when finegrad starts JAX's CPU runtime (its first compiled function
in a process), the runtime runs programs on the calling thread (no asynchronous dispatch,
which finegrad's immediate NumPy results cannot use); a program that started JAX first keeps
its runtime, and ``FINEGRAD_XLA_ASYNC_DISPATCH=1`` keeps JAX's default. Values are the same
in every case. Each case runs in a fresh process (JAX reads the setting once)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("jax")

_PROBE = """
import numpy as np, finegrad as fg
if {jax_first}:
    import jax, jax.numpy as jnp
    jnp.ones(3).block_until_ready()
f = fg.function(lambda x: fg.tanh(x) * 2. + x, jit_compile=True)
got = f(fg.constant(np.linspace(-3., 3., 7))).numpy()
np.testing.assert_allclose(got, np.tanh(np.linspace(-3., 3., 7)) * 2. + np.linspace(-3., 3., 7),
                           rtol=1e-12)
from jax._src import xla_bridge
print(xla_bridge._CPU_ENABLE_ASYNC_DISPATCH.value)
"""


@pytest.mark.parametrize("jax_first, env, inline", [
    (False, "0", True), (True, "0", False), (False, "1", False)])
def test_finegrad_starts_jax_without_asynchronous_dispatch(jax_first, env, inline):
    environ = dict(os.environ, FINEGRAD_XLA_ASYNC_DISPATCH=env, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", _PROBE.format(jax_first=jax_first)],
                         env=environ, capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.split()[-1] == str(not inline)

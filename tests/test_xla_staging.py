"""Large NumPy arguments of a compiled function that are not 64-byte aligned go through an
aligned staging buffer (finegrad/_src/graph/xla/staging.py), which JAX reads in place: the
values are those of the argument, a buffer is reused across calls, and a result that JAX
forwards from a staged argument is never overwritten by the next call."""
import numpy as np
import pytest

import finegrad as fg
from finegrad._src.graph.xla import staging

jax = pytest.importorskip("jax")

N = staging.MIN_BYTES // 4 + 5   # float32 elements: just over the staging size


def misaligned(values, offset=16):
    """A copy of float32 ``values`` whose data starts ``offset`` bytes past a multiple of 64."""
    raw = np.empty(values.nbytes + 128, np.uint8)
    start = (offset - raw.ctypes.data) % 64
    out = raw[start:start + values.nbytes].view(np.float32)
    out[...] = values
    assert out.ctypes.data % 64 == offset
    return out


@pytest.mark.parametrize("shape, dtype", [((3,), np.float32), ((5, 7), np.float64),
                                          ((1,), np.int8), ((2, 3, 4), np.complex128)])
def test_aligned_empty_is_aligned_contiguous_and_of_the_shape(shape, dtype):
    a = staging.aligned_empty(shape, dtype)
    assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
    assert a.ctypes.data % staging.ALIGN == 0


def test_only_large_unaligned_or_strided_numeric_arrays_are_staged():
    big = np.arange(N, dtype=np.float32)
    assert staging.needs_staging(misaligned(big))
    assert not staging.needs_staging(staging.aligned_empty((N,), np.float32))
    assert not staging.needs_staging(misaligned(big[:100]))   # small: JAX's copy is cheap
    assert staging.needs_staging(np.arange(2 * N, dtype=np.float32)[::2])
    assert not staging.needs_staging(np.empty(N, object))
    assert not staging.needs_staging(np.float64(1.))


def _xla(f, x):
    """The `XlaFunction` of ``f`` for arguments like ``x`` (its ``run`` takes the NumPy
    values as they are: ``finegrad.constant`` would copy them, aligned or not)."""
    return f.get_concrete_function(fg.constant(x))._xla_function()


def test_staged_argument_gives_the_values_and_reuses_one_buffer():
    rng = np.random.default_rng(0)
    a, b = (misaligned(rng.standard_normal(N, dtype=np.float32)) for _ in range(2))
    xf = _xla(fg.function(lambda x: fg.exp(x) * 2. + x, jit_compile=True), a)
    (ya,) = xf.run([a])
    buf = xf.entry([(a.shape, a.dtype)]).staging._free[0]
    assert buf.ctypes.data % 64 == 0
    (yb,) = xf.run([b])
    assert xf.entry([(a.shape, a.dtype)]).staging._free[0] is buf   # the same one, reused
    np.testing.assert_allclose(ya, np.exp(a) * 2 + a, rtol=1e-6, atol=1e-6)   # not b's
    np.testing.assert_allclose(yb, np.exp(b) * 2 + b, rtol=1e-6, atol=1e-6)


def test_an_argument_returned_unchanged_is_not_overwritten_by_the_next_call():
    v = fg.Variable(np.zeros(N, np.float32))

    @fg.function(jit_compile=True)
    def f(x):
        v.assign(x)
        return x, fg.reduce_sum(v.read_value())

    a, b = misaligned(np.full(N, 1., np.float32)), misaligned(np.full(N, 2., np.float32))
    xf = _xla(f, a)
    ra, sa = xf.run([a])
    rb, sb = xf.run([b])
    assert (ra == 1.).all() and (rb == 2.).all() and sa == N and sb == 2 * N
    assert (v.numpy() == 2.).all()
    xf.run([a])
    assert (rb == 2.).all() and (v.numpy() == 1.).all()
    assert xf.run([b])[1] == 2 * N   # the variable's value kept on the device: not a's
    assert xf.entry([(a.shape, a.dtype)]).staging._free   # it did go through staging


def test_unalias_copies_a_result_that_holds_a_staged_buffer():
    buf = staging.aligned_empty((N,), np.float32)
    buf[...] = 3.
    held = jax.device_put(buf)   # read in place: aligned
    assert held.unsafe_buffer_pointer() == buf.ctypes.data
    other = jax.numpy.ones(4)
    out = staging.unalias([held, None, other], [(0, buf)])
    assert out[0].unsafe_buffer_pointer() != buf.ctypes.data and out[1] is None
    assert out[2] is other
    buf[...] = 4.
    assert (np.asarray(out[0]) == 3.).all()


_FAULTS = """
import resource, sys
import numpy as np
import finegrad as fg
from finegrad._src.graph.xla import heap
f = fg.function(lambda x: fg.exp(x), jit_compile=True)
x = fg.constant(np.zeros(10 ** 7, np.float32))   # 40 MB results
held = []   # the last three results held: the function's own buffer pool (`reuse`) finds
for _ in range(6):   # none free, XLA allocates each result (the heap grows over the first calls)
    held = held[-2:] + [f(x)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    held = held[-2:] + [f(x)]
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10
print(heap.keep_freed_memory(), faults)
"""


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="glibc's mallopt")
@pytest.mark.parametrize("keep", ["1", "0"])
def test_each_call_reuses_the_last_calls_pages_unless_switched_off(keep):
    """`heap.keep_freed_memory`: with it, a compiled call's 40 MB result takes the memory
    an earlier one freed (measured: 0 page faults a call, at times 1,000-2,000 where a buffer
    lands on new memory; without it one per 4 KiB page: 9,766), here where the caller holds
    the results long enough that the function's own kept buffers (`reuse`) are all taken;
    ``FINEGRAD_XLA_KEEP_MEMORY=0`` leaves glibc's defaults (a fresh mapping each call)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, FINEGRAD_XLA_KEEP_MEMORY=keep, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", _FAULTS], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout.split()
    kept, faults = out[-2] == "True", float(out[-1])
    assert kept == (keep == "1")
    assert faults < 4000 if kept else faults > 8000, faults


def test_large_constants_are_aligned_copies_that_need_no_staging():
    """`finegrad.constant` copies a large array to a 64-byte boundary: a compiled call reads
    it in place (no staging copy); still a copy, C-contiguous, of the same values."""
    src = np.asfortranarray(misaligned(np.arange(N, dtype=np.float32)).reshape(1, -1))
    t = fg.constant(src)
    v = t._value
    assert v.ctypes.data % 64 == 0 and v.flags.c_contiguous and not np.shares_memory(v, src)
    np.testing.assert_array_equal(v, src)
    assert not staging.needs_staging(v)
    small = fg.constant(np.ones(10, np.float32))._value   # (small ones: a plain copy)
    assert small.flags.owndata

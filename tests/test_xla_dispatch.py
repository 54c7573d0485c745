"""The call path of ``function(jit_compile=True)``: a call with the same tensor signature as
the last one skips the signature lookup (`Function._last`), an executable's call decides
once what it needs (64-bit types, staging, callbacks), and every behaviour of the full path
stays: dtypes, 0-d NumPy scalars, variables, device placement, callback errors, output
structures; and arrays of other libraries (JAX, PyTorch) are taken as tensors through
DLPack, sharing their buffers."""
import numpy as np
import pytest

import finegrad as fg

jax = pytest.importorskip("jax")


def _spy(f, *args, **kwargs):
    """The arguments each call of ``f``'s executable for ``args`` gets (a list that grows)."""
    xf = f.get_concrete_function(*args, **kwargs)._xla_function()
    seen = []
    for e in xf._cache.values():
        exe = e.exe

        def spy(args, reads, assigned, bufs, exe=exe):
            seen.append(list(args))
            return exe(args, reads, assigned, bufs)
        e.exe = spy
    return seen


def test_repeated_calls_take_the_last_graph_and_compile_once():
    f = fg.function(lambda x: fg.sin(x) * 2., jit_compile=True)
    x = fg.constant([0.5, 1.5])
    for _ in range(3):
        np.testing.assert_allclose(f(x).numpy(), 2 * np.sin([0.5, 1.5]), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(x)._xla_function().compilations == 1
    assert f._last is not None and f._last[1] is f.get_concrete_function(x)


def test_alternating_signatures_give_each_its_own_graph_and_dtype():
    f = fg.function(lambda x: x * 3, jit_compile=True)
    a32, a64, ai = fg.constant([1., 2.]), fg.constant([1., 2.], fg.float64), fg.constant([1, 2])
    for _ in range(2):
        for x in (a32, a64, ai, a32):
            y = f(x)
            assert y.dtype == x.dtype and y.numpy().tolist() == [3, 6]
    assert f.experimental_get_tracing_count() == 3


def test_float64_keeps_its_precision_with_jax_x64_off():
    assert not jax.config.jax_enable_x64
    f = fg.function(lambda x: (x + 1e-12) - x, jit_compile=True)
    y = f(fg.constant(1., fg.float64))
    assert type(y.numpy()) is np.float64
    assert y.numpy() == pytest.approx(1e-12, rel=1e-3)   # float32 would give 0


def test_a_wide_result_of_narrow_arguments_keeps_its_dtype():
    f = fg.function(lambda x: (fg.cast(x, fg.int64) * 2 ** 40, fg.argmax(x)), jit_compile=True)
    for _ in range(2):
        big, arg = f(fg.constant([3., 1., 7.]))
        assert big.dtype == fg.int64 and big.numpy().tolist() == [3 * 2 ** 40, 2 ** 40,
                                                                   7 * 2 ** 40]
        assert arg.dtype == fg.int64 and arg.numpy() == 2


def test_a_callback_of_a_wide_dtype_in_a_narrow_call():
    f = fg.function(lambda x: fg.numpy_function(lambda a: a.astype(np.float64) * 2 + 1e-12,
                                                [x], fg.float64) - 2., jit_compile=True)
    for _ in range(2):
        y = f(fg.constant(1.))
        assert y.dtype == fg.float64 and y.numpy() == pytest.approx(1e-12, rel=1e-3)


def test_scalar_outputs_are_numpy_scalars_and_structures_are_rebuilt():
    f = fg.function(lambda x: {"s": fg.reduce_sum(x), "p": [x * 2., (x, 7)], "n": None},
                    jit_compile=True)
    x = fg.constant([1., 2.])
    for _ in range(2):
        out = f(x)
        assert type(out["s"].numpy()) is np.float32 and out["s"].numpy() == 3.
        assert isinstance(out["p"], list) and isinstance(out["p"][1], tuple)
        assert out["p"][1][1] == 7 and out["n"] is None
        np.testing.assert_array_equal(out["p"][0].numpy(), [2., 4.])
    g = fg.function(lambda x: [x + 1.], jit_compile=True)
    assert isinstance(g(x), list) and isinstance(g(x)[0], fg.Tensor)


def test_python_arguments_still_key_the_trace_by_value():
    f = fg.function(lambda x, k: x * k, jit_compile=True)
    x = fg.constant(2.)
    assert [f(x, 2).numpy(), f(x, 3).numpy(), f(x, 2).numpy()] == [4., 6., 4.]
    assert f.experimental_get_tracing_count() == 2


def test_variables_are_assigned_at_every_call_and_outside_writes_are_seen():
    v = fg.Variable(1.)
    w = fg.Variable([1., 1.], dtype=fg.float64)

    @fg.function(jit_compile=True)
    def step(x):
        v.assign_add(x)
        w.assign(w * 2.)
        return v.read_value() + fg.cast(fg.reduce_sum(w), fg.float32)

    x = fg.constant(1.)
    assert step(x).numpy() == 2. + 4.
    assert step(x).numpy() == 3. + 8.
    v.assign(10.)    # a write between calls: the next call reads it
    assert step(x).numpy() == 11. + 16.
    assert v.numpy() == 11. and w.numpy().tolist() == [8., 8.]


def test_a_tape_around_the_call_still_differentiates_it():
    f = fg.function(lambda x: fg.sin(x) * x, jit_compile=True)
    x = fg.constant(0.7)
    f(x)
    f(x)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(np.cos(0.7) * 0.7 + np.sin(0.7),
                                                        rel=1e-6)


@pytest.mark.skipif(any(d.platform == "gpu" for d in jax.devices()),
                    reason="this machine has a GPU: nothing falls back")
def test_soft_placement_off_still_refuses_a_missing_device_after_fast_calls():
    f = fg.function(lambda x: x + 1., jit_compile=True)
    x = fg.constant(1.)
    f(x)
    with fg.device("/GPU:0"):
        assert f(x).numpy() == 2.   # soft placement: the default device
        assert f(x).numpy() == 2.
        fg.config.set_soft_device_placement(False)   # (inside the block: it was entered)
        try:
            with pytest.raises(fg.errors.InvalidArgumentError, match="GPU:0"):
                f(x)
        finally:
            fg.config.set_soft_device_placement(True)
    assert f(x).numpy() == 2.


def test_a_callback_error_keeps_its_type_at_every_call():
    def check(a):
        if a < 0:
            raise ValueError("negative input")
        return a

    f = fg.function(lambda x: fg.numpy_function(check, [x], fg.float32) * 2.,
                    jit_compile=True)
    assert f(fg.constant(1.)).numpy() == 2.
    for _ in range(2):
        with pytest.raises(ValueError, match="negative input"):
            f(fg.constant(-1.))
    assert f(fg.constant(3.)).numpy() == 6.


def test_an_input_signature_still_checks_the_arguments():
    f = fg.function(lambda x: x * 2., input_signature=[fg.TensorSpec([2], fg.float32)],
                    jit_compile=True)
    x = fg.constant([1., 2.])
    f(x)
    f(x)
    with pytest.raises(TypeError, match="input_signature"):
        f(fg.constant([1., 2., 3.]))
    g = fg.function(lambda x: x * 2., input_signature=[fg.TensorSpec([None], fg.float32)],
                    jit_compile=True)
    for n in (2, 3, 2):
        assert g(fg.constant(np.ones(n, np.float32))).numpy().tolist() == [2.] * n
    assert g._last is None   # (a graph for every size checks its guards at every call)


# --- arrays of other libraries -------------------------------------------------------------

def test_jax_arrays_are_tensors_that_share_their_buffer():
    jnp = jax.numpy
    f = fg.function(lambda x: fg.exp(x) + 1., jit_compile=True)
    a = jnp.arange(64, dtype=jnp.float32) / 64
    np.testing.assert_allclose(f(a).numpy(), np.exp(np.asarray(a)) + 1, rtol=1e-6)
    seen = _spy(f, fg.constant(np.asarray(a)))
    b = jnp.arange(64, dtype=jnp.float32) / 32
    np.testing.assert_allclose(f(b).numpy(), np.exp(np.asarray(b)) + 1, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1   # a new array, not a new signature
    (arg,) = seen[-1]
    assert arg.ctypes.data == b.unsafe_buffer_pointer()   # no host copy on our side
    # (and JAX reads such a buffer in place on the CPU: it is 64-byte aligned)
    assert jax.device_put(arg).unsafe_buffer_pointer() == b.unsafe_buffer_pointer()


def test_torch_cpu_tensors_are_tensors_that_share_their_buffer():
    torch = pytest.importorskip("torch")
    f = fg.function(lambda x, *, s: x * s, jit_compile=True)
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    out = f(t, s=torch.tensor(2., dtype=torch.float64))
    assert out.dtype == fg.float64 and out.numpy().tolist() == (2 * t).tolist()
    seen = _spy(f, fg.constant(t.numpy()), s=fg.constant(2., fg.float64))
    u = torch.ones(2, 3, dtype=torch.float64)
    assert f(u, s=torch.tensor(2., dtype=torch.float64)).numpy().tolist() == [[2.] * 3] * 2
    assert f(u, s=fg.constant(3., fg.float64)).numpy().tolist() == [[3.] * 3] * 2
    assert f.experimental_get_tracing_count() == 1   # a new tensor, not a new signature
    assert seen and np.shares_memory(seen[-1][0], u.numpy())


def test_a_torch_tensor_that_requires_grad_stays_a_python_argument():
    torch = pytest.importorskip("torch")
    f = fg.function(lambda x: x, jit_compile=True)
    t = torch.ones(2, requires_grad=True)
    assert f(t) is not None   # (as with jit_compile=None: not taken as a tensor)

"""Arrays from other libraries in and out (issue 20): anything NumPy turns into an array goes
into constant, convert_to_tensor, Variable and ops with TensorFlow's dtype rules for NumPy
arrays; tensors come out through __array__ and DLPack. The expected dtypes are TensorFlow
2.21's (tf.constant on the same input; compared live in test_same_dtypes_as_tensorflow)."""
import array

import numpy as np
import pytest

import finegrad as fg
from finegrad.experimental import dlpack


class OnlyArray:
    """An object that speaks only ``__array__`` (as xarray, and many others do)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a

    def __repr__(self):
        return "SECRET-PRINTOUT"


class OnlyInterface:
    """An object that speaks only ``__array_interface__``."""

    def __init__(self, a):
        self.a = a
        self.__array_interface__ = a.__array_interface__


class OnlyDLPack:
    """An object that speaks only DLPack."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class Refuses:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("not on this device")


# (value, dtype TensorFlow 2.21's tf.constant gives it, values): arrays keep their dtype,
# buffers that are not arrays are sequences of Python numbers (float -> float32, int -> int32)
ARRAY_LIKES = [
    (lambda: OnlyArray(np.array([1.5, 2.5])), "float64", [1.5, 2.5]),
    (lambda: OnlyArray(np.array([1, 2], np.int64)), "int64", [1, 2]),
    (lambda: OnlyArray(np.array([True, False])), "bool", [True, False]),
    (lambda: OnlyInterface(np.array([1.5, 2.5])), "float64", [1.5, 2.5]),
    (lambda: OnlyInterface(np.array([[1, 2]], np.uint16)), "uint16", [[1, 2]]),
    (lambda: OnlyDLPack(np.array([1.5, 2.5], np.float32)), "float32", [1.5, 2.5]),
    (lambda: memoryview(np.array([1.5, 2.5])), "float32", [1.5, 2.5]),
    (lambda: array.array("d", [1.5, 2.5]), "float32", [1.5, 2.5]),
    (lambda: array.array("i", [1, 2]), "int32", [1, 2]),
    (lambda: bytearray(b"\x01\x02"), "int32", [1, 2]),
]


@pytest.mark.parametrize("make, dtype, values", ARRAY_LIKES)
def test_array_likes_into_constant_and_convert_to_tensor(make, dtype, values):
    for convert in (fg.constant, fg.convert_to_tensor):
        t = convert(make())
        assert t.dtype.name == dtype
        assert t.numpy().tolist() == values


def test_array_like_with_dtype_and_in_a_variable():
    t = fg.constant(OnlyArray(np.array([1., 2.])), dtype=fg.float32)
    assert t.dtype == fg.float32
    v = fg.Variable(OnlyArray(np.array([1., 2.])))
    assert v.dtype == fg.float64
    v.assign(OnlyInterface(np.array([3., 4.])))
    np.testing.assert_array_equal(v.numpy(), [3., 4.])


def test_constant_copies_so_the_producer_can_change_its_array():
    a = np.array([1., 2.])
    t = fg.constant(OnlyArray(a))
    a[0] = 9.
    assert t.numpy()[0] == 1.


def test_array_likes_into_ops_take_the_tensor_dtype_as_numpy_arrays_do():
    x = fg.constant([1., 2.])                       # float32
    y = x + OnlyArray(np.array([0.5, 0.25]))        # a float64 array beside it: float32
    assert y.dtype == fg.float32
    np.testing.assert_allclose(y.numpy(), [1.5, 2.25])
    z = fg.multiply(OnlyArray(np.array([1, 2], np.int32)), x)
    assert z.dtype == fg.float32 and z.numpy().tolist() == [1., 4.]
    e = fg.exp(OnlyArray(np.array([0., 1.])))
    assert e.dtype == fg.float64
    np.testing.assert_allclose(e.numpy(), np.exp([0., 1.]))
    m = fg.matmul(OnlyInterface(np.eye(2)), OnlyArray(np.array([[1.], [2.]])))
    np.testing.assert_array_equal(m.numpy(), [[1.], [2.]])


def test_gradient_with_an_array_like_operand():
    x = fg.constant([1., 2.], fg.float64)
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(x * OnlyArray(np.array([3., 4.])))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3., 4.])


def test_unconvertible_names_the_type_never_the_printout():
    for bad in (object(), {"a": 1}, OnlyArray(np.array([{"a": 1}], object))):
        with pytest.raises(TypeError) as info:
            fg.constant(bad)
        assert type(bad).__name__ in str(info.value)
        assert "SECRET" not in str(info.value) and "{'a': 1}" not in str(info.value)
    with pytest.raises(TypeError, match=r"finegrad.add: .*got NoneType$"):
        fg.add(fg.constant(1.), None)


def test_a_producer_that_refuses_is_a_type_error_with_its_reason():
    with pytest.raises(TypeError, match=r"finegrad.constant: cannot convert "
                                        r"test_interop.Refuses to a tensor: "
                                        r"RuntimeError: not on this device"):
        fg.constant(Refuses())


# --- out: __array__ and DLPack ---------------------------------------------------------------

def test_numpy_reads_a_tensor_through_dlpack_without_a_copy_and_read_only():
    t = fg.constant([1., 2., 3.])
    a = np.from_dlpack(t)
    assert a.dtype == np.float32 and np.shares_memory(a, np.asarray(t))
    assert not a.flags.writeable
    assert t.__dlpack_device__() == (1, 0)
    s = np.from_dlpack(fg.constant(2.5, fg.float64))
    assert s.shape == () and s == 2.5


def test_from_dlpack_shares_the_producer_buffer_and_keeps_dtype():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = dlpack.from_dlpack(a)
    assert t.dtype == fg.int64 and t.shape == (2, 3)
    assert np.shares_memory(np.asarray(t), a)
    s = dlpack.from_dlpack(np.array(2.))
    assert s.shape == () and s.numpy() == 2.
    np.testing.assert_array_equal((t * 2).numpy(), a * 2)     # usable in ops


def test_to_dlpack_capsule_round_trip():
    t = fg.constant([[1, 2], [3, 4]], fg.int32)
    back = dlpack.from_dlpack(dlpack.to_dlpack(t))
    assert back.dtype == fg.int32
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_variable_exports_a_snapshot():
    v = fg.Variable([1., 2.])
    a = np.from_dlpack(v)
    t = dlpack.from_dlpack(dlpack.to_dlpack(v))
    v.assign([5., 6.])
    assert a.tolist() == [1., 2.] and t.numpy().tolist() == [1., 2.]


def test_dlpack_errors_name_the_function_and_type():
    with pytest.raises(TypeError, match=r"from_dlpack: expected an object with __dlpack__ "
                                        r"or a DLPack capsule, got list"):
        dlpack.from_dlpack([1, 2])
    with pytest.raises(TypeError, match=r"to_dlpack: expected a finegrad Tensor or "
                                        r"Variable, got numpy.ndarray"):
        dlpack.to_dlpack(np.ones(2))


# --- pandas ------------------------------------------------------------------------------------

def test_pandas_in_and_out():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1., 2., 3.], index=["a", "b", "c"])
    t = fg.constant(s)
    assert t.dtype == fg.float64
    assert fg.constant(pd.Series([1, 2])).dtype == fg.int64
    assert fg.constant(pd.Series([True])).dtype == fg.bool
    df = pd.DataFrame({"x": [1., 2.], "y": [3., 4.]})
    np.testing.assert_array_equal(fg.reduce_sum(df, axis=0).numpy(), [3., 7.])
    back = pd.Series(fg.square(s), index=s.index)
    assert back.dtype == np.float64 and back.tolist() == [1., 4., 9.]
    frame = pd.DataFrame(fg.transpose(df), index=["x", "y"])
    assert frame.values.tolist() == [[1., 2.], [3., 4.]]
    assert (fg.constant([1., 2.], fg.float64) + s[:2]).numpy().tolist() == [2., 4.]


def test_mixed_dataframe_is_refused_without_printing_it():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"x": [1.5, 2.5], "name": ["alpha-row", "beta-row"]})
    with pytest.raises(TypeError, match=r"cannot convert pandas.DataFrame to a tensor: NumPy "
                                        r"makes an array of dtype object") as info:
        fg.constant(df)
    assert "alpha-row" not in str(info.value)


# --- frameworks --------------------------------------------------------------------------------

def test_torch_in_and_out():
    torch = pytest.importorskip("torch")
    for value, dtype in ((torch.tensor([1., 2.]), fg.float32),
                         (torch.tensor([1., 2.], dtype=torch.float64), fg.float64),
                         (torch.tensor([1, 2]), fg.int64), (torch.tensor(3.), fg.float32)):
        t = fg.constant(value)
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.numpy(), value.numpy())
    assert fg.exp(torch.zeros(2, dtype=torch.float64)).numpy().tolist() == [1., 1.]
    with pytest.raises(TypeError, match=r"cannot convert torch.Tensor .*requires grad"):
        fg.constant(torch.ones(2, requires_grad=True))
    t, s = fg.constant([1., 2.]), fg.constant(3.)
    assert torch.as_tensor(s).item() == 3. and torch.as_tensor(s).dim() == 0
    assert torch.as_tensor(t).tolist() == [1., 2.] and torch.tensor(t).dtype == torch.float32
    shared = torch.from_dlpack(t)
    assert shared.data_ptr() == np.asarray(t).ctypes.data              # no copy
    back = dlpack.from_dlpack(torch.arange(3, dtype=torch.float64))
    assert back.dtype == fg.float64 and back.numpy().tolist() == [0., 1., 2.]
    src = torch.arange(4.)
    assert np.asarray(dlpack.from_dlpack(src)).ctypes.data == src.data_ptr()  # no copy
    cap = dlpack.to_dlpack(t)
    assert torch.utils.dlpack.from_dlpack(cap).tolist() == [1., 2.]
    assert dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(src)).numpy().tolist() == \
        [0., 1., 2., 3.]
    assert torch.as_tensor(fg.Variable([1., 2.])).tolist() == [1., 2.]


def test_jax_in_and_out():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    assert fg.constant(jnp.array([1., 2.])).dtype == fg.float32
    assert fg.constant(jnp.array([1, 2])).dtype == fg.int32
    np.testing.assert_allclose(fg.sin(jnp.array([0.5])).numpy(), np.sin([0.5]), rtol=1e-6)
    t = fg.constant([1., 2.])
    assert jnp.asarray(t).tolist() == [1., 2.] and jnp.asarray(fg.constant(3.)).shape == ()
    assert jax.dlpack.from_dlpack(t).tolist() == [1., 2.]
    back = dlpack.from_dlpack(jnp.arange(3.))
    assert back.dtype == fg.float32 and back.numpy().tolist() == [0., 1., 2.]


def test_tensorflow_in_and_out():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant([1., 2.], tf.float64)
    assert fg.constant(x).dtype == fg.float64 and fg.constant(tf.constant(3)).dtype == fg.int32
    assert (fg.constant([1., 1.]) + x).dtype == fg.float32     # TF's rule for arrays
    t = fg.constant([[1, 2]], fg.int64)
    r = tf.convert_to_tensor(t)
    assert r.dtype == tf.int64 and r.numpy().tolist() == [[1, 2]]
    assert tf.constant(fg.constant(2.5)).numpy() == 2.5
    r = tf.experimental.dlpack.from_dlpack(dlpack.to_dlpack(t))
    assert r.dtype == tf.int64 and r.numpy().tolist() == [[1, 2]]
    back = dlpack.from_dlpack(tf.experimental.dlpack.to_dlpack(x))
    assert back.dtype == fg.float64 and back.numpy().tolist() == [1., 2.]


def test_same_dtypes_as_tensorflow():
    """finegrad.constant's dtype against tf.constant's on the same inputs."""
    tf = pytest.importorskip("tensorflow")
    values = [make() for make, _, _ in ARRAY_LIKES if not isinstance(make(), OnlyDLPack)]
    try:
        import pandas as pd
        values += [pd.Series([1., 2.]), pd.Series([1, 2]), pd.DataFrame({"a": [1.], "b": [2.]})]
    except ImportError:
        pass
    for value in values:
        assert fg.constant(value).dtype.name == tf.constant(value).dtype.name, type(value)

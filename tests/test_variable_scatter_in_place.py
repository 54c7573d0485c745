"""Variable.scatter_* update the variable's buffer in place eagerly (no copy of the whole
variable), copy on write when a tensor read earlier still holds the buffer (that tensor keeps
its value), and keep their tape and trace behaviour; scatter_mul, scatter_div and
batch_scatter_update against TensorFlow 2.21 (recorded values, and live when installed)."""
import gc
import threading

import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

S = fg.IndexedSlices


def _calls(m):
    """(name, update) pairs covering every scatter method."""
    S = m.IndexedSlices
    return [("scatter_update", lambda v: v.scatter_update(S(m.constant([[9., 9.]]),
                                                            m.constant([1])))),
            ("scatter_add", lambda v: v.scatter_add(S(m.constant([[1., 1.]]), m.constant([0])))),
            ("scatter_sub", lambda v: v.scatter_sub(S(m.constant([[1., 1.]]), m.constant([2])))),
            ("scatter_max", lambda v: v.scatter_max(S(m.constant([[7., 0.]]), m.constant([0])))),
            ("scatter_min", lambda v: v.scatter_min(S(m.constant([[0., 0.]]), m.constant([2])))),
            ("scatter_mul", lambda v: v.scatter_mul(S(m.constant([[2., 3.]]), m.constant([1])))),
            ("scatter_div", lambda v: v.scatter_div(S(m.constant([[2., 4.]]), m.constant([0])))),
            ("scatter_nd_update", lambda v: v.scatter_nd_update([[0, 1]], [5.])),
            ("scatter_nd_add", lambda v: v.scatter_nd_add([[2]], [[1., 2.]])),
            ("scatter_nd_sub", lambda v: v.scatter_nd_sub([[1, 0]], [3.])),
            ("batch_scatter_update", lambda v: v.batch_scatter_update(
                S(m.constant([[8.], [8.], [8.]]), m.constant([[1], [0], [1]]))))]


V0 = [[1., 2.], [3., 4.], [5., 6.]]


@pytest.mark.parametrize("case", range(len(_calls(fg))))
def test_in_place_without_readers_and_copy_on_write_with_one(case):
    name, update = _calls(fg)[case]
    v = fg.Variable(V0)
    address = v._storage.ctypes.data      # (an int: holding the array would force a copy)
    update(v)
    after = v.numpy()
    assert v._storage.ctypes.data == address, f"{name} copied the variable"   # in place
    assert not v._storage.flags.writeable                          # still read-only outside
    w = fg.Variable(V0)
    before = w.read_value()
    row = w[1]                                                     # a view of the buffer
    update(w)
    np.testing.assert_array_equal(before.numpy(), V0)              # the earlier read is kept
    np.testing.assert_array_equal(row.numpy(), V0[1])
    np.testing.assert_array_equal(w.numpy(), after)
    del before, row
    gc.collect()
    address = w._storage.ctypes.data
    update(w)
    assert w._storage.ctypes.data == address                       # no holder left: in place


@pytest.mark.parametrize("case", range(len(_calls(fg))))
def test_values_against_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    name, ours = _calls(fg)[case]
    _, theirs = _calls(tf)[case]
    v, t = fg.Variable(V0), tf.Variable(V0)
    for _ in range(2):
        ours(v)
        theirs(t)
    np.testing.assert_allclose(v.numpy(), t.numpy(), rtol=1e-6, err_msg=name)


def test_traced_updates_run_at_each_call():
    for name, update in _calls(fg):
        eager, traced = fg.Variable(V0), fg.Variable(V0)
        def step(update=update, traced=traced):
            update(traced)
        f = fg.function(step)
        for _ in range(2):
            update(eager)
            f()
        np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-6, err_msg=name)


def test_under_a_tape_the_variable_is_watched_as_in_tf():
    v = fg.Variable([1., 2., 3.])
    x = fg.constant(1.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        v.scatter_add(S(fg.reshape(x * 2., [1]), fg.constant([0])))
        y = fg.reduce_sum(v * 1.)
    gx, gv = tape.gradient(y, [x, v])
    assert gx is None                                  # TF 2.21: None (assignments cut it)
    np.testing.assert_array_equal(gv.numpy(), [1., 1., 1.])
    assert [w.name for w in tape.watched_variables()] == [v.name]
    np.testing.assert_array_equal(v.numpy(), [3., 2., 3.])


def test_mul_div_batch_recorded_values():
    v = fg.Variable([2., 3., 4.])
    v.scatter_mul(S(fg.constant([2., 5.]), fg.constant([0, 0])))
    v.scatter_div(S(fg.constant([2., 5.]), fg.constant([1, 1])))
    np.testing.assert_allclose(v.numpy(), [20., 0.3, 4.], rtol=1e-6)      # TF 2.21
    i = fg.Variable([7, -7, 9, 5])
    i.scatter_div(S(fg.constant([2, 2, 2]), fg.constant([0, 1, 2])))
    assert i.numpy().tolist() == [3, -3, 4, 5]                             # TF 2.21
    b = fg.Variable([[1., 2., 3.], [4., 5., 6.]])
    b.batch_scatter_update(S(fg.constant([[10., 20.], [30., 40.]]), fg.constant([[0, 2], [1, 1]])))
    assert b.numpy().tolist() == [[10., 2., 20.], [4., 40., 6.]]           # TF 2.21


def test_errors_name_the_method_and_leave_the_variable():
    v = fg.Variable(V0)
    with pytest.raises(InvalidArgumentError, match="finegrad.Variable.scatter_update: "
                                                   "indices.*does not index"):
        v.scatter_update(S(fg.constant([[1., 1.]]), fg.constant([5])))
    with pytest.raises(ValueError, match="finegrad.Variable.scatter_mul: updates must have"):
        v.scatter_mul(S(fg.constant([[1., 1., 1.]]), fg.constant([0])))
    with pytest.raises(TypeError, match="finegrad.Variable.scatter_add: updates must have the "
                                        "variable's dtype"):
        v.scatter_add(S(fg.constant([[1., 1.]], fg.float64), fg.constant([0])))
    with pytest.raises(ValueError, match="finegrad.Variable.batch_scatter_update: updates"):
        fg.Variable([[1, 2], [3, 4]]).batch_scatter_update(S(fg.constant([9, 8]),
                                                             fg.constant([1, 0])))
    with pytest.raises(InvalidArgumentError, match="scatter_div: integer division by zero"):
        fg.Variable([1, 2]).scatter_div(S(fg.constant([0]), fg.constant([1])))
    np.testing.assert_array_equal(v.numpy(), V0)


def test_in_place_updates_from_threads_lose_nothing():
    v = fg.Variable(np.zeros(10 ** 5, np.float32))
    delta = S(fg.constant(np.ones(4, np.float32)), fg.constant([0, 1, 2, 3]))

    def work():
        for _ in range(500):
            v.scatter_add(delta)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(v.numpy()[:5], [2000., 2000., 2000., 2000., 0.])

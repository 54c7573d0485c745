"""Variables and traces used from several threads (issue 22, cause 3): TensorFlow's updates
are atomic and a function traces each signature once; so are finegrad's."""
import threading
import time

import numpy as np
import pytest

import finegrad as fg

THREADS, STEPS = 8, 500


def _run(work):
    barrier = threading.Barrier(THREADS)
    errors = []

    def body():
        barrier.wait()
        try:
            work()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=body) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


UPDATES = {
    "assign_add": (0., lambda v: v.assign_add(1.), float(THREADS * STEPS)),
    "assign_sub": (0., lambda v: v.assign_sub(1.), -float(THREADS * STEPS)),
    "assign_add_vector": ([0., 0.], lambda v: v.assign_add([1., 2.]),
                          [THREADS * STEPS, 2. * THREADS * STEPS]),
    "scatter_nd_add": ([0., 0.], lambda v: v.scatter_nd_add([[1]], [1.]),
                       [0., THREADS * STEPS]),
    "scatter_add": ([0., 0.], lambda v: v.scatter_add(fg.IndexedSlices(fg.constant([1.]),
                                                                       fg.constant([0]))),
                    [THREADS * STEPS, 0.]),
    "slice_assign": ([0., 0.], lambda v: v[0:1].assign(v[0:1] + 1.), None),
}


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_eager_updates_are_atomic(name):
    init, update, want = UPDATES[name]
    v = fg.Variable(init)

    def work():
        for _ in range(STEPS):
            update(v)

    _run(work)
    if want is not None:
        np.testing.assert_array_equal(v.numpy(), want)


@pytest.mark.parametrize("name", ["assign_add", "assign_sub", "assign_add_vector",
                                  "scatter_nd_add", "scatter_add", "slice_assign"])
def test_traced_updates_are_atomic(name):
    init, update, want = UPDATES[name]
    v = fg.Variable(init)

    @fg.function
    def step():
        update(v)

    step()
    v.assign(init)

    def work():
        for _ in range(STEPS):
            step()

    _run(work)
    np.testing.assert_array_equal(v.numpy(), want if want is not None else [THREADS * STEPS, 0.])


def test_traced_read_modify_write_is_atomic_per_call():
    """A graph that reads a variable and assigns it runs as one step per variable (a train
    step from several threads loses no update)."""
    v = fg.Variable(0.)

    @fg.function
    def step():
        v.assign(v.read_value() * 1. + 1.)

    def work():
        for _ in range(STEPS):
            step()

    _run(work)
    assert float(v) == THREADS * STEPS


def test_concurrent_first_calls_trace_once():
    traces = []

    @fg.function
    def f(x):
        traces.append(1)
        time.sleep(0.02)   # a slow trace: the other threads' calls arrive meanwhile
        return x * 2.

    results = []
    _run(lambda: results.append(float(f(fg.constant(1.5)))))
    assert results == [3.] * THREADS
    assert len(traces) == 1 and f.experimental_get_tracing_count() == 1


def test_concurrent_calls_of_two_signatures_trace_each_once():
    @fg.function
    def f(x):
        time.sleep(0.02)
        return fg.reduce_sum(x)

    shapes = [(2,), (3,)]
    _run(lambda: [f(fg.ones(s)) for s in shapes])
    assert f.experimental_get_tracing_count() == 2


def test_concurrent_gradients_with_variable_updates():
    w = fg.Variable(1.)

    def work():
        for _ in range(100):
            with fg.GradientTape() as tape:
                y = w * 3.
            w.assign_add(tape.gradient(y, w) * 0. + 1.)

    _run(work)
    assert float(w) == 1. + THREADS * 100


def test_copied_variable_has_its_own_lock():
    import copy
    import pickle
    v = fg.Variable([1., 2.])
    for w in (copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        w.assign_add([1., 1.])
        assert w.numpy().tolist() == [2., 3.] and v.numpy().tolist() == [1., 2.]
        assert w._lock is not v._lock

"""Variables created inside finegrad.function: TensorFlow's rule (issue 22, cause 2)."""
import pytest

import finegrad as fg


def test_variable_created_at_every_trace_is_a_value_error():
    """TensorFlow 2.21: a first trace that creates a variable is followed by a second, which
    must create none; creating one at every call is a ValueError at the first call (checked
    live below), never a counter that keeps (or loses) its state."""
    @fg.function
    def counter(x):
        v = fg.Variable(0.)
        v.assign_add(x)
        return v.read_value()

    for _ in range(2):
        with pytest.raises(ValueError, match="'counter'.*singleton Variables created on the "
                                             "first trace"):
            counter(fg.constant(1.))

    @fg.function
    def shift(x):
        return x + fg.Variable(1.)

    with pytest.raises(ValueError, match="'shift'.*singleton"):
        shift(fg.constant(1.))


def test_variable_created_once_counts_as_tensorflow():
    holder = {}

    @fg.function
    def counter(x):
        if "v" not in holder:
            holder["v"] = fg.Variable(0.)
        holder["v"].assign_add(fg.reduce_sum(x))
        return holder["v"].read_value()

    assert [float(counter(fg.constant(1.))) for _ in range(3)] == [1., 2., 3.]
    assert counter.experimental_get_tracing_count() == 2    # TF's count too
    holder.clear()
    with pytest.raises(ValueError, match="singleton"):     # a later trace (a new shape)
        counter(fg.constant([1., 2.]))                     # creating another


def _counter_once(lib):
    holder = []

    @lib.function
    def g(x):
        if not holder:
            holder.append(lib.Variable(0.))
        holder[0].assign_add(x)
        return holder[0].read_value()
    return g


def test_variable_creation_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for lib in (tf, fg):
        @lib.function
        def f(x, lib=lib):
            v = lib.Variable(0.)
            v.assign_add(x)
            return v.read_value()

        with pytest.raises(ValueError):
            f(lib.constant(1.))
        g = _counter_once(lib)
        assert [float(g(lib.constant(2.))) for _ in range(3)] == [2., 4., 6.]

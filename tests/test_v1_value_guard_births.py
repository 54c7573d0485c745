"""How a TF1 graph learns which tensors a guarded call made (v1/value_guards.py): a
per-thread ``births`` hook in the recording state, set while the guarded call runs; no class
attribute changes at run time, and tensors other threads make meanwhile are not its."""
import threading

import numpy as np
import pytest

import finegrad as fg
from finegrad._src.state import state, watching_births
from finegrad._src.tensor import Tensor
from finegrad.errors import InvalidArgumentError

v1 = fg.compat.v1


def test_no_class_attribute_changes_while_a_graph_follows_a_guarded_call():
    before = dict(vars(Tensor))
    g = fg.Graph()
    with g.as_default():
        n = v1.placeholder(fg.int32, [])
        r = fg.range(n)                  # a value guard: n's value fixes the shape
        during = dict(vars(Tensor))
        y = fg.cast(r, fg.float32) * 2.  # a later call captures r: the guard follows it
    assert during == before and dict(vars(Tensor)) == before
    with v1.Session(graph=g) as sess:
        assert sess.run(y, {n: 0}).shape == (0,)   # the value the graph was built with
        with pytest.raises(InvalidArgumentError, match="traced as 0 and this call's is 3"):
            sess.run(y, {n: 3})


def test_the_hook_is_per_thread_and_goes_when_the_guarded_call_is_over():
    assert watching_births[0] == 0 and state.births is None
    g = fg.Graph()
    made = {}
    with g.as_default():
        n = v1.placeholder(fg.int32, [])
        r = fg.range(n)
        assert state.births is not None          # the guarded call's thread watches...
        worker = threading.Thread(target=lambda: made.update(
            other=Tensor(np.zeros(2)), hook=state.births))
        worker.start()
        worker.join()
        assert made["hook"] is None              # ...another thread does not
        uses = g._recorder.guard_uses
        assert uses.is_born(r) and not uses.is_born(made["other"])
        fg.cast(n, fg.float32) + 1.              # a later call: the guarded one is over
        assert state.births is None and watching_births[0] == 0
        later = Tensor(np.ones(3))
        assert not uses.is_born(later)

"""The values of tensors that must not be computed with: those made while a
`finegrad.function` traced, once the trace is over (`OutOfScope`), and those of a TF1 graph
outside it (`GraphOnly`); and the registry of live TF1 graphs, which a tensor asks for the
graph attributes (``name``, ``op``, ``graph``) it lacks."""
import weakref
from typing import Any

import numpy as np

from finegrad._src.state import state as _state


class OutOfScope:
    """The value of a tensor made while a `finegrad.function` traced, once that trace is over.

    Such a tensor holds the trace's example values, not the values of any call; code that kept
    it (in a global or an attribute) and uses it later would compute silently with them. So
    the trace's end replaces its value with this object, which refuses every use with a
    TypeError naming the function (TensorFlow's "out of scope" error)."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function

    def error(self):
        return TypeError(f"finegrad.function: this tensor was made while {self.function!r} was "
                         f"traced and is out of scope: it was kept (in a global, an attribute "
                         f"or a closure) after the trace ended, and its value is not the value "
                         f"of any call. Return it from {self.function!r} instead")

    def __getattr__(self, name):
        raise self.error()

    def __array__(self, *args, **kwargs):
        raise self.error()

    def __array_ufunc__(self, *args, **kwargs):
        raise self.error()

    def __array_function__(self, *args, **kwargs):
        raise self.error()

    def __getitem__(self, key):
        raise self.error()

    def __bool__(self):
        raise self.error()

    def __float__(self):
        raise self.error()

    def __index__(self):
        raise self.error()

    __int__ = __index__


class GraphOnly(OutOfScope):
    """The value of a tensor of a TF1 graph while that graph is not being built: its shape and
    dtype (those of the example value the graph was built with) answer, any use of the value
    in an op or in Python is a TypeError (TensorFlow's: a graph tensor passed to an eager
    op). Entering the graph's ``as_default`` block gives the example back."""

    __slots__ = ("example", "shape", "dtype", "ndim", "size")

    def __init__(self, example, graph):
        super().__init__(graph)
        self.example = example
        self.shape, self.dtype = np.shape(example), example.dtype
        self.ndim, self.size = len(self.shape), int(np.prod(self.shape, dtype=np.int64))

    def error(self):
        if getattr(_state.tracer, "v1_graph", None) is not None:   # another graph's op
            return ValueError("finegrad: a tensor must be from the same graph (finegrad.Graph) "
                              "as the op that uses it; this one belongs to another graph")
        return TypeError("finegrad: a tensor of a TF1 graph (finegrad.Graph) was used outside "
                         "that graph, by an op running eagerly or by Python: its value exists "
                         "only when a Session runs the graph. Build the op inside `with "
                         "graph.as_default():`, or get the value with sess.run(tensor)")


#: the TF1 graphs (`finegrad.Graph`, v1/graphs.py) alive: what a tensor asks for the graph
#: attributes it lacks (``Tensor.__getattr__``); each graph adds itself when it is made
# id(graph) -> a weak reference to it (a dict: `if graphs` costs nothing)
graphs: dict[int, Any] = {}


def add_graph(graph):
    """Register a TF1 graph (until it is collected)."""
    graphs[id(graph)] = weakref.ref(graph)
    weakref.finalize(graph, graphs.pop, id(graph), None)


def live_graphs():
    """The TF1 graphs alive."""
    return [g for g in (r() for r in list(graphs.values())) if g is not None]
MISSING = object()   # what a graph answers for a tensor it did not make


# --- len() and iteration of graph tensors (Tensor.__len__, Tensor.__iter__) ----------------

def graph_len(t):
    """TensorFlow's TypeError for ``len()`` of a graph tensor: always in a TF1 graph, where
    the length is not static in a function's."""
    for g in live_graphs():
        if g.tensor_attribute(t, "graph") is g:
            raise TypeError(f"len is not well defined for a symbolic Tensor "
                            f"({g.tensor_attribute(t, 'name')}). Please call `x.shape` "
                            f"rather than `len(x)` for shape information.")
    shape = t.shape
    if shape.rank is None or (shape.rank and shape[0] is None):
        raise TypeError(f"len is not well defined for a symbolic Tensor (of shape {shape}). "
                        f"Please call `x.shape` rather than `len(x)` for shape information.")


def graph_iter(t):
    """TensorFlow's TypeError (OperatorNotAllowedInGraphError) for iterating over a tensor
    of a TF1 graph, or of a function's graph along an axis whose length is not static (a
    static one is unrolled, as TensorFlow's autograph would loop over it)."""
    in_v1 = any(g.tensor_attribute(t, "graph") is g for g in live_graphs())
    shape = t.shape
    if in_v1 or shape.rank is None or (shape.rank and shape[0] is None):
        raise TypeError("Iterating over a symbolic `finegrad.Tensor` is not allowed"
                        + (" in graph execution: use finegrad.unstack, finegrad.map_fn or "
                           "finegrad.while_loop" if in_v1 else
                           f" when its length is not static (shape {shape}): use "
                           f"finegrad.map_fn, finegrad.while_loop or a static shape"))

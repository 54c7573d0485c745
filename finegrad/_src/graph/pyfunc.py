"""``tf.numpy_function`` and ``tf.py_function``: Python code as one op.

``numpy_function(func, inp, Tout)`` calls ``func`` on NumPy arrays and makes tensors of
``Tout`` from what it returns; it has no gradient (TensorFlow's neither). Inside a
`finegrad.function` it is a graph node (primitive ``numpy_function``, stateful: never folded
nor merged) that calls ``func`` each time the graph runs.

``py_function(func, inp, Tout)`` calls ``func`` on tensors. Eagerly that is a plain call, so
tapes record the ops ``func`` runs and gradients flow through them, as in TensorFlow. Inside a
trace it is a graph node (primitive ``py_function``) that calls ``func`` eagerly when the
graph runs; its gradient is another node (``py_function_vjp``) that runs ``func`` again
under a tape (`rediff.vjp_of`). A second derivative through a traced ``py_function`` is not
supported (NotImplementedError naming it).
"""

from __future__ import annotations

import itertools

import numpy as np

from finegrad._src import core, dims, dtypes, nest
from finegrad._src.ad.rediff import vjp_of
from finegrad._src.core import Primitive, bind, def_nondiff
from finegrad._src.ops.array.boolean_mask import DataDependentSize
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.tensor import Tensor

from typing import Any


_fresh = itertools.count()


class _eagerly:
    """Context manager: no tracer, recorder nor read listener while Python code of the user
    runs as an op (a trace is computing its example values, or a tape is replaying)."""

    def __enter__(self):
        st = core._state
        self._saved = (st.tracer, st.recorders, st.read_listener)
        st.tracer, st.recorders, st.read_listener = None, (), None

    def __exit__(self, *exc):
        st = core._state
        st.tracer, st.recorders, st.read_listener = self._saved


def _touts(tout, fn):
    """``Tout`` as a tuple of dtypes and whether it was a single dtype."""
    single = not isinstance(tout, (list, tuple))
    try:
        out = tuple(dtypes.as_dtype(t) for t in ([tout] if single else tout))
    except TypeError:
        raise TypeError(f"finegrad.{fn}: Tout must be a dtype or a list of dtypes, got "
                        f"{tout!r}") from None
    return out, single


def _as_arrays(results, touts, fn):
    """What ``func`` returned, as one array per entry of ``touts``."""
    values = list(results) if isinstance(results, (list, tuple)) else [results]
    if len(touts) == 1 and len(values) != 1:
        values = [results]
    if len(values) != len(touts):
        raise ValueError(f"finegrad.{fn}: func returned {len(values)} values, Tout lists "
                         f"{len(touts)}")
    out = []
    for v, t in zip(values, touts, strict=True):
        v = v.numpy() if isinstance(v, Tensor) else v
        out.append(np.asarray(v, dtype=t._np))
    return tuple(out)


class TraceOnly(Exception):
    """Raised by a host function (a numpy_function's ``func``) on the call a trace makes with
    made-up inputs (a TF1 graph's placeholders), where running it would mean nothing:
    ``values`` (arrays) stand in for its results, giving the trace their dtypes and ranks,
    and are never replayed as a run's results."""

    def __init__(self, values: Any) -> None:
        super().__init__("results of a trace's call on made-up inputs")
        self.values = values


class _Made:
    """The results ``func`` gave while a trace ran (the trace needs its outputs' shapes):
    the graph's first run uses them, in order, for as long as its inputs are the same, so
    that ``func``'s side effects (a data iterator's next batch) happen once per run of the
    graph, as in TensorFlow, not once more for the trace."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries = []

    def __repr__(self):
        return "made"

    def call(self, func, args):
        if core.current_tracer() is not None:   # tracing: keep what it gave
            try:
                result, replay = func(), True
            except TraceOnly as e:   # (stand-ins: the first run calls func itself)
                result, replay = tuple(np.asarray(v) for v in e.values), False
            self.entries.append((args if replay else None, result))
            return result
        if self.entries:
            made_args, result = self.entries.pop(0)
            if made_args is not None and len(made_args) == len(args) and all(
                    a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
                    for a, b in zip(made_args, args, strict=True)):
                return result
            self.entries.clear()   # other inputs: the trace's results do not apply
        return func()


class OpenShapes:
    """The shapes of a numpy_function's or py_function's results when an input has an open
    size (TensorFlow gives them unknown shapes): while tracing, fresh symbols (``p0``,
    ``p1``...) for every axis of every result, which later shapes follow and a resolved
    graph binds from the results' sizes; in each resolved graph, the shapes its first run
    found: a later run of it giving other shapes raises `DataDependentSize`, and the graph
    is resolved again (a TF1 session) or the call runs eagerly (`finegrad.function`)."""

    def __init__(self):
        self.dims, self.seen = None, None

    def _has_dims(self):
        return True   # (its results' sizes are symbols, made when the shape rule first runs)

    def _resolve_dims(self, resolve):
        return OpenShapes()

    def check(self, shapes):
        if core.current_tracer() is not None:
            return
        if self.seen is None:
            self.seen = shapes
        elif shapes != self.seen:
            raise DataDependentSize(f"finegrad.numpy_function: this graph was resolved for "
                                    f"results of shapes {self.seen}, this run's are {shapes}")


def _open_result_shapes(*shapes, made, sizes, **params):
    """Fresh symbols for each axis of each result (their values: the trace's results)."""
    if not isinstance(sizes, OpenShapes):
        return [r.shape for r in made.entries[-1][1]]
    if sizes.dims is None:
        sizes.dims = [tuple(dims.Dim.symbol(f"p{next(_fresh)}", int(n)) for n in r.shape)
                      for r in made.entries[-1][1]]
    return sizes.dims


def _unknown_shapes(outs):
    """The results of a traced numpy_function or py_function, whose static shapes are
    unknown (`TensorShape(None)`: any rank) as in TensorFlow, until ``set_shape``."""
    tracer = core.current_tracer()
    if tracer is not None:
        for t in outs:
            tracer.declare_shape(t, None)
    return list(outs)


def _open_sizes(ins):
    """An `OpenShapes` where a result's size may differ from the trace's: always, but in a
    trace that holds no symbolic sizes at all (its results' sizes then come from its run)."""
    return OpenShapes() if core.current_tracer() is not None else None


numpy_function_p = def_nondiff(Primitive("numpy_function", multiple_results=True, fresh=True,
                                         unify=False, stateful=True, effects=True,
                                         shape_rule=_open_result_shapes))


@numpy_function_p.def_impl
def _numpy_function_impl(*args, func, touts, made, sizes=None):
    args = [np.asarray(a) for a in args]

    def run():
        with _eagerly():
            return _as_arrays(func(*args), touts, "numpy_function")
    out = made.call(run, args)
    if isinstance(sizes, OpenShapes):
        sizes.check(tuple(r.shape for r in out))
    return out


def numpy_function(func: Any, inp: Any, Tout: Any, stateful: bool = True,  # TF's names
                   name: str | None = None) -> Any:
    """``func`` called on the NumPy values of ``inp``; its results become tensors of the
    dtypes ``Tout`` (a dtype: one tensor; a list: a list). No gradient flows through it, as
    in TensorFlow. Inside `finegrad.function` it runs each time the graph runs.

    >>> import numpy as np, finegrad as fg
    >>> fg.numpy_function(np.sort, [fg.constant([3., 1., 2.])], fg.float32).numpy()
    array([1., 2., 3.], dtype=float32)
    """
    touts, single = _touts(Tout, "numpy_function")
    ins = [convert_to_tensor(x) for x in inp]
    extra = {"sizes": sizes} if (sizes := _open_sizes(ins)) is not None else {}
    out = _unknown_shapes(bind(numpy_function_p, *ins, func=func, touts=touts, made=_Made(),
                               **extra))
    return out[0] if single else list(out)


py_function_p = Primitive("py_function", multiple_results=True, fresh=True, unify=False,
                          stateful=True, effects=True, shape_rule=_open_result_shapes)


@py_function_p.def_impl
def _py_function_impl(*args, func, touts, made, sizes=None):
    args = [np.asarray(a) for a in args]

    def run():
        with _eagerly():
            return _as_arrays(func(*(Tensor(a) for a in args)), touts, "py_function")
    out = made.call(run, args)
    if isinstance(sizes, OpenShapes):
        sizes.check(tuple(r.shape for r in out))
    return out


py_function_vjp_p = Primitive("py_function_vjp", multiple_results=True, fresh=True,
                              unify=False, stateful=True,
                              shape_rule=lambda *shapes, func, n_in: list(shapes[:n_in]))


@py_function_vjp_p.def_impl
def _py_function_vjp_impl(*args, func, n_in):
    ins = [Tensor(np.asarray(a)) for a in args[:n_in]]
    cts = [Tensor(np.asarray(c)) for c in args[n_in:]]
    with _eagerly():
        grads = vjp_of(lambda *xs: func(*xs), ins, cts)
    return tuple(np.zeros(np.shape(x._value), x._value.dtype) if g is None
                 else np.asarray(g._value, x._value.dtype)
                 for g, x in zip(grads, ins, strict=True))


def _float(t):
    return t.dtype.is_floating or t.dtype.is_complex


@py_function_p.def_vjp
def _py_function_vjp(ct, *ins, out, needs, batch, func, touts, made, sizes=None):
    """VJP of a traced py_function: run ``func`` again under a tape when the graph runs."""
    diff = [i for i, x in enumerate(ins) if _float(x)]
    if not diff:
        return (None,) * len(ins)
    cts = [cast(c, o.dtype) if c is not None else o * 0 for c, o in zip(ct, out, strict=True)]
    grads = bind(py_function_vjp_p, *ins, *cts, func=func, n_in=len(ins))
    return tuple(g if _float(x) else None for g, x in zip(grads, ins, strict=True))


def _no_second_order(*args, **params):
    raise NotImplementedError("finegrad.py_function: no second derivative through a "
                              "py_function inside finegrad.function (call it eagerly, where "
                              "its ops are recorded, for higher orders)")


py_function_p.def_jvp(_no_second_order)
py_function_vjp_p.def_jvp(_no_second_order)
py_function_vjp_p.def_vjp(_no_second_order)


def py_function(func: Any, inp: Any, Tout: Any,  # TF's names
                name: str | None = None) -> Any:
    """``func`` called on the tensors ``inp``; its results become tensors of the dtypes
    ``Tout`` (a dtype: one tensor; a list: a list). Eagerly ``func`` is simply called, so the
    ops it runs are recorded and differentiated as usual (TensorFlow's behaviour). Inside
    `finegrad.function` it runs eagerly each time the graph runs, and its gradient runs it
    again under a tape (first order only there).

    >>> import finegrad as fg
    >>> x = fg.constant(3.)
    >>> with fg.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = fg.py_function(lambda a: a * a, [x], fg.float32)
    >>> tape.gradient(y, x).numpy()
    np.float32(6.0)
    """
    touts, single = _touts(Tout, "py_function")
    ins = [convert_to_tensor(x) for x in inp]
    if core.current_tracer() is None:
        results = func(*ins)
        values = list(results) if isinstance(results, (list, tuple)) and not single \
            else [results]
        outs = [cast(convert_to_tensor(v), t) for v, t in zip(values, touts, strict=True)]
    else:
        extra = {"sizes": sizes} if (sizes := _open_sizes(ins)) is not None else {}
        outs = _unknown_shapes(bind(py_function_p, *ins, func=func, touts=touts, made=_Made(),
                                    **extra))
    return outs[0] if single else nest.pack_sequence_as(list(touts), outs)

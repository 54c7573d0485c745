"""TensorFlow 1's variables: ``get_variable``, ``variable_scope`` and the initializer ops.

Each graph keeps a store of the variables `get_variable` made, by full name (``"scope/w"``),
and the stack of open variable scopes; eager code has one store of its own. A variable scope
names variables (``"outer/inner/w"``) and opens a name scope for ops (made unique when the
scope is entered again: ``"outer_1/"``); its ``reuse`` flag (True, `AUTO_REUSE`, or inherited)
decides whether `get_variable` returns an existing variable or makes a new one. The variables
are `finegrad.Variable`s, so `GradientTape`, `gradients` and `custom_gradient` see their reads
as they see any variable's.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api import scopes
from finegrad._src.api.contexts import group
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor
from finegrad._src.v1 import default_graph, graphs, initializers
from finegrad._src import variables
from finegrad._src.variables import Variable as _Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from collections.abc import Iterator

    from finegrad._src.types import DTypeLike
    from finegrad._src.types import TensorLike


class _AutoReuse:
    def __repr__(self):
        return "AUTO_REUSE"


#: ``reuse=AUTO_REUSE``: `get_variable` makes the variable if it does not exist, else returns it
AUTO_REUSE = _AutoReuse()


class GraphKeys:
    """The names of TensorFlow 1's standard collections."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    UPDATE_OPS = "update_ops"
    REGULARIZATION_LOSSES = "regularization_losses"
    LOSSES = "losses"
    SUMMARIES = "summaries"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    INIT_OP = "init_op"
    SAVERS = "savers"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"


class VariableScope:
    """A variable scope: a ``name`` prefixing variables, a ``reuse`` flag, and defaults for
    `get_variable` (``initializer``, ``regularizer``, ``dtype``, ``constraint``)."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None, regularizer: Any = None,
                 dtype: Any = None, name_scope: str = "", constraint: Any = None,
                 use_resource: Any = None) -> None:
        self._name, self._reuse = name, reuse
        self._initializer, self._regularizer = initializer, regularizer
        self._dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        self._name_scope, self._constraint = name_scope, constraint
        self.use_resource = use_resource

    @property
    def name(self) -> str:
        return self._name
    @property
    def original_name_scope(self) -> str:
        return self._name_scope
    @property
    def reuse(self) -> Any:
        return self._reuse
    @property
    def initializer(self) -> Any:
        return self._initializer
    @property
    def regularizer(self) -> Any:
        return self._regularizer
    @property
    def dtype(self) -> Any:
        return self._dtype
    @property
    def constraint(self) -> Any:
        return self._constraint

    def reuse_variables(self) -> None:
        """From now on, `get_variable` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtypes.as_dtype(dtype)

    def get_variable(self, name: str, *args: Any, **kwargs: Any) -> Any:
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def global_variables(self) -> Any:
        return default_graph.get_collection(GraphKeys.GLOBAL_VARIABLES, self._name)

    def trainable_variables(self) -> Any:
        return default_graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, self._name)

    def __repr__(self):
        return f"<VariableScope {self._name!r} reuse={self._reuse}>"


class _Store:
    """The variables `get_variable` made (full name -> variable) and the open scopes."""

    def __init__(self):
        self.variables = {}
        self.stack = [VariableScope(False)]
        self.counts = {}     # full scope name -> how many times default_name gave it


class _EagerStore(threading.local):
    def __init__(self):
        self.store = _Store()


_eager = _EagerStore()


def _store():
    g = graphs.current_graph()
    if g is None:
        return _eager.store
    if g._scope_store is None:
        g._scope_store = _Store()
    return g._scope_store


def get_variable_scope() -> Any:
    """The variable scope open now.

    >>> import finegrad as fg
    >>> with fg.Graph().as_default():
    ...     with fg.compat.v1.variable_scope("layer"):
    ...         fg.compat.v1.get_variable_scope().name
    'layer'
    """
    return _store().stack[-1]


@contextlib.contextmanager
def variable_scope(name_or_scope: Any, default_name: str | None = None, values: Any = None,
                   initializer: Any = None, regularizer: Any = None, caching_device: Any = None,
                   partitioner: Any = None, custom_getter: Any = None, reuse: Any = None,
                   dtype: DTypeLike | None = None, use_resource: Any = None,
                   constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """Context manager: a variable scope (see the module docstring); ``with`` gives it.

    ``name_or_scope`` is a name (nested in the current scope), a `VariableScope` (entered
    again, with its own name scope), or None with ``default_name`` (made unique:
    ``"layer"``, ``"layer_1"``). ``reuse`` True or `AUTO_REUSE` is inherited by nested scopes.
    ``caching_device``, ``partitioner`` and ``custom_getter`` are accepted and must be None.

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> with fg.Graph().as_default():
    ...     with v1.variable_scope("dense"):
    ...         w = v1.get_variable("w", [2])
    ...     with v1.variable_scope("dense", reuse=True):
    ...         w is v1.get_variable("w", [2])
    True

    Raises:
        ValueError: with neither a name nor a ``default_name``; ``reuse`` with ``default_name``.
    """
    del values, caching_device, use_resource
    if partitioner is not None or custom_getter is not None:
        raise NotImplementedError("finegrad.compat.v1.variable_scope: partitioner and "
                                  "custom_getter are not supported")
    store = _store()
    parent = store.stack[-1]
    if name_or_scope is None and default_name is None:
        raise ValueError("If default_name is None then name_or_scope is required")
    if isinstance(name_or_scope, VariableScope):
        full, ns = name_or_scope.name, name_or_scope.original_name_scope
        base = name_or_scope
    else:
        if name_or_scope is None:
            if reuse is True:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            name_or_scope = _unique_default(store, parent, default_name)
        full = f"{parent.name}/{name_or_scope}" if parent.name else name_or_scope
        ns, base = None, parent
    inherited = parent.reuse if parent.reuse in (True, AUTO_REUSE) else False
    scope = VariableScope(
        reuse if reuse in (True, AUTO_REUSE) else (
            base.reuse if base is not parent and reuse is None else inherited),
        full, initializer if initializer is not None else base.initializer,
        regularizer if regularizer is not None else base.regularizer,
        dtype if dtype is not None else base.dtype, "",
        constraint if constraint is not None else base.constraint)
    with _name_scope_for(ns, full, auxiliary_name_scope) as opened:
        scope._name_scope = opened if ns is None else ns
        store.stack.append(scope)
        try:
            yield scope
        finally:
            store.stack.pop()


def _unique_default(store, parent, default_name):
    prefix = f"{parent.name}/" if parent.name else ""
    name = default_name
    i = store.counts.get(prefix + default_name, 0)
    store.counts[prefix + default_name] = i + 1
    if i:
        name = f"{default_name}_{i}"
    return name


@contextlib.contextmanager
def _name_scope_for(original, full, auxiliary):
    """The name scope of a variable scope: its original one when entered by object; else its
    last name component, nested and made unique (TensorFlow's rule)."""
    if not auxiliary:
        yield scopes._scopes.stack[-1]
        return
    name = original if original is not None else full.rpartition("/")[2] or full
    with scopes.name_scope(name) as opened:
        yield opened


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: Any = None, collections: Any = None,
                 caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                 use_resource: Any = None, custom_getter: Any = None, constraint: Any = None,
                 synchronization: Any = None, aggregation: Any = None) -> Variable:
    """The variable ``name`` of the current variable scope: made (its initial value from
    ``initializer``, the scope's, or Glorot-uniform for floats and zeros otherwise), or,
    when the scope reuses, the existing one (its shape checked).

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> with fg.Graph().as_default():
    ...     with v1.variable_scope("layer"):
    ...         b = v1.get_variable("b", [3], initializer=v1.zeros_initializer())
    ...     with v1.Session() as sess:
    ...         _ = sess.run(v1.global_variables_initializer())
    ...         b.name, sess.run(b)
    ('layer/b:0', array([0., 0., 0.], dtype=float32))

    Raises:
        ValueError: for a new variable in a reusing scope, an existing one in a scope that
            does not reuse, a shape that differs from the existing variable's, or no shape.
    """
    if partitioner is not None or custom_getter is not None:
        raise NotImplementedError("finegrad.compat.v1.get_variable: partitioner and "
                                  "custom_getter are not supported")
    store = _store()
    scope = store.stack[-1]
    full = f"{scope.name}/{name}" if scope.name else name
    existing = store.variables.get(full)
    if existing is not None:
        return _reused(existing, full, scope, shape, dtype)
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                         f"VarScope?")
    dt = dtypes.as_dtype(dtype) if dtype is not None else scope.dtype
    init = initializer if initializer is not None else scope.initializer
    value_fn, shape = _initial_value(init, shape, dt, full)
    if trainable is None:
        trainable = True
    var = _make(full, value_fn, dt, trainable, collections)
    var.constraint = constraint if constraint is not None else scope.constraint
    store.variables[full] = var
    reg = regularizer if regularizer is not None else scope.regularizer
    if reg is not None:
        with scopes.name_scope(f"{full}/Regularizer/"):
            loss = reg(var)
        if loss is not None:
            default_graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


def _reused(var, full, scope, shape, dtype):
    if scope.reuse is False or scope.reuse is None:
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                         f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    if shape is not None and not TensorShape(shape).is_compatible_with(var.shape):
        raise ValueError(f"Trying to share variable {full}, but specified shape "
                         f"{TensorShape(shape)} and found shape {var.shape}.")
    if dtype is not None and dtypes.as_dtype(dtype) != var.dtype:
        raise ValueError(f"Trying to share variable {full}, but specified dtype "
                         f"{dtypes.as_dtype(dtype).name} and found dtype {var.dtype.name}.")
    return var


def _initial_value(init, shape, dt, full):
    """(A function making the initial value, the variable's shape)."""
    if isinstance(init, (Tensor, _Variable, np.ndarray, np.generic, list, int, float)) and \
            not callable(init):
        if shape is not None:
            raise ValueError(f"If initializer is a constant, do not specify shape. "
                             f"(variable {full})")
        t = init if isinstance(init, Tensor) else Tensor(np.asarray(init, dt._np))
        return (lambda: t), tuple(np.shape(t._value))
    if shape is None:
        raise ValueError(f"The initializer passed is not valid. It should be a callable with "
                         f"no arguments and the shape should not be provided or an instance "
                         f"of `tf.keras.initializers.*' and `shape` should be fully defined. "
                         f"(variable {full} has no shape)")
    shape = tuple(int(d) for d in TensorShape(shape))
    if init is None:
        init = initializers.glorot_uniform_initializer() if dt.is_floating else \
            initializers.zeros_initializer()
    return (lambda: init(shape, dtype=dt)), shape


def _make(full, value_fn, dt, trainable, collections):
    g = graphs.current_graph()
    if g is None:
        return _Variable(value_fn, name=full, trainable=trainable, dtype=dt)
    with scopes.name_scope(f"{full}/Initializer/"):
        value = value_fn()
    if isinstance(value, Tensor) and value.dtype != dt:
        raise ValueError(f"Tried to create variable {full} of dtype {dt.name} with an "
                         f"initial value of dtype {value.dtype.name}")
    g._pending_variable = (full, None if collections is None else list(collections))
    try:
        return _Variable(value, name=full, trainable=trainable, dtype=dt)
    finally:
        g._pending_variable = None


# --- initializing and listing variables ------------------------------------------------------

def global_variables(scope: Any = None) -> Any:
    """The variables of the default graph's ``GLOBAL_VARIABLES`` collection."""
    return default_graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope: Any = None) -> Any:
    """The variables of the default graph's ``TRAINABLE_VARIABLES`` collection."""
    return default_graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: Any = None) -> Any:
    return default_graph.get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: Any = None) -> Any:
    return default_graph.get_collection(GraphKeys.MODEL_VARIABLES, scope)


def variables_initializer(var_list: Any, name: str = "init") -> Any:
    """One op that runs the initializers of ``var_list``."""
    if graphs.current_graph() is None:
        return None
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Any:
    """One op that initializes every global variable of the default graph (TensorFlow's
    ``init`` op); None while executing eagerly, where variables start initialized."""
    return variables_initializer(global_variables())


def tables_initializer(name: str = "init_all_tables") -> Any:
    """One operation initializing the graph's lookup tables: finegrad has none, so it does
    nothing (TensorFlow's op for a graph without tables does the same)."""
    return group(name=name) if graphs.current_graph() is not None else None


def local_variables_initializer() -> Any:
    return variables_initializer(local_variables(), name="init_1")


def assign(ref: Any, value: TensorLike, validate_shape: Any = None, use_locking: Any = None,
           name: str | None = None) -> Any:
    """``ref.assign(value)``: in a graph, a tensor whose evaluation assigns."""
    return ref.assign(value)


def assign_add(ref: Any, value: TensorLike, use_locking: Any = None,
               name: str | None = None) -> Any:
    return ref.assign_add(value)


def assign_sub(ref: Any, value: TensorLike, use_locking: Any = None,
               name: str | None = None) -> Any:
    return ref.assign_sub(value)


class Variable(variables.Variable):
    """TensorFlow 1's ``tf.compat.v1.Variable``: `finegrad.Variable` with TensorFlow 1's
    arguments (``collections``, ``validate_shape``, ``expected_shape``, ``constraint``, ...;
    those about devices and protocol buffers are accepted and ignored).

    >>> import finegrad as fg
    >>> with fg.Graph().as_default():
    ...     v = fg.compat.v1.Variable(1., collections=["mine"])
    ...     fg.compat.v1.get_collection("mine") == [v], fg.compat.v1.global_variables()
    (True, [])
    """

    def __init__(self, initial_value: Any = None, trainable: Any = None, collections: Any = None,
                 validate_shape: bool = True, caching_device: Any = None, name: str | None = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
                 import_scope: Any = None, constraint: Any = None, use_resource: Any = None,
                 synchronization: Any = None, aggregation: Any = None, shape: Any = None) -> None:
        if variable_def is not None:
            raise NotImplementedError("finegrad.compat.v1.Variable: variable_def (a "
                                      "VariableDef protocol buffer) is not supported")
        g = graphs.current_graph()
        if g is not None and collections is not None:
            g._pending_variable = (None, list(collections))
        try:
            super().__init__(initial_value, True if trainable is None else trainable, name,
                             dtype, shape)
        finally:
            if g is not None:
                g._pending_variable = None
        self.constraint = constraint

    def initialized_value(self) -> Any:
        """The variable's value once it is initialized (its initial value, in a graph)."""
        return self.initial_value if hasattr(self, "initial_value") else self.read_value()

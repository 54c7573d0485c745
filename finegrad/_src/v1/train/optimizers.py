"""TensorFlow 1's optimizers (``tf.compat.v1.train.*Optimizer``) as graph ops.

``minimize(loss)`` is ``compute_gradients`` (`gradients` of the loss with respect to the
trainable variables) then ``apply_gradients``: for each variable, its slots (variables named
``"<var>/<Optimizer>"``, made on first use, in ``GLOBAL_VARIABLES``) and assign ops computing
TensorFlow's update kernels in their order of operations (so float32 results match), grouped
into one operation; with ``global_step``, that operation also increments it after the
updates. Outside a graph (eager execution) ``minimize`` takes a callable loss and applies the
updates at once, as TensorFlow's v1 optimizers do eagerly.
"""

from __future__ import annotations

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api import scopes
from finegrad._src.ad.tape import GradientTape
from finegrad._src.api.contexts import group
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.array.constants import zeros
from finegrad._src.ops.math.elementwise import floor, sqrt, square
from finegrad._src.ops.array.gather import IndexedSlices, gather
from finegrad._src.v1 import default_graph, graphs, variable_scope as vs
from finegrad._src.v1.gradients import gradients
from finegrad._src.variables import Variable

from typing import Any


class Optimizer:
    """The base of TensorFlow 1's optimizers: ``minimize``, ``compute_gradients``,
    ``apply_gradients``, ``get_slot``, ``get_slot_names``, ``variables``."""

    _apply_dense: Any   # for the type checker: each optimizer's own update rule

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2
    # (slot name, initial value: "zeros" or a number), in creation order
    _slots_spec: tuple[tuple[str, object], ...] = ()

    def __init__(self, use_locking: Any, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._name = name
        self._slots: dict[str, Any] = {}        # slot name -> {id(var): slot variable}
        self._non_slot: dict[Any, Any] = {}

    def get_name(self) -> Any:
        return self._name

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: Any = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> Any:
        """``apply_gradients(compute_gradients(loss, var_list))``: one operation that
        updates the variables (and increments ``global_step`` when given).

        Raises:
            ValueError: when no variable gets a gradient.
        """
        grads_and_vars = self.compute_gradients(loss, var_list, gate_gradients,
                                                aggregation_method,
                                                colocate_gradients_with_ops, grad_loss)
        usable = [v for g, v in grads_and_vars if g is not None]
        if not usable:
            raise ValueError(f"No gradients provided for any variable, check your graph for "
                             f"ops that do not support gradients, between variables "
                             f"{[v.name for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: Any = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> Any:
        """A list of ``(gradient, variable)`` pairs, the gradient None where the loss does
        not depend on the variable. ``loss`` is a tensor (in a graph) or a callable."""
        if graphs.current_graph() is None:
            return self._eager_gradients(loss, var_list)
        if callable(loss):
            loss = loss()
        if var_list is None:
            var_list = vs.trainable_variables()
        var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=grad_loss)
        return list(zip(grads, var_list, strict=True))

    def _eager_gradients(self, loss, var_list):
        if not callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        with GradientTape() as tape:
            value = loss()
        if var_list is None:
            var_list = tape.watched_variables()
        var_list = list(var_list)
        return list(zip(tape.gradient(value, var_list), var_list, strict=True))

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None) -> Any:
        """One operation applying the updates (incrementing ``global_step`` after them)."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}.")
        graph = graphs.current_graph()
        with scopes.name_scope(name or self._name):
            self._prepare()
            self._make_non_slots([v for _, v in pairs])
            for _, v in pairs:
                self._make_slots(v)
            updates = [_constrained(v, self._apply_sparse(g, v) if type(g) is IndexedSlices
                                    else self._apply_dense(convert_to_tensor(g), v))
                       for g, v in pairs]
            finish = self._finish(updates)
            if graph is None:
                if global_step is not None:
                    global_step.assign_add(1)
                return None
            if global_step is None:
                return group(*finish, name=name or self._name)
            with graph.control_dependencies(finish):
                step = global_step.assign_add(1)
            return group(step, name=name or self._name)

    def _finish(self, updates):
        return updates

    def _apply_sparse(self, grad, var):
        """TensorFlow's sparse step: the kernels see each row once with its repeated
        indices' values summed. Here each index carries its row's sum (a gather of the dense
        sum; a repeated row is computed twice, identically) and `_apply_rows` writes the new
        rows with scatter updates; an optimizer without `_apply_rows` applies the dense
        value."""
        dense = convert_to_tensor(grad)
        if not hasattr(self, "_apply_rows"):
            return self._apply_dense(dense, var)
        return self._apply_rows(cast(gather(dense, grad.indices), var.dtype), grad.indices, var)

    def _prepare(self):
        pass

    def _make_non_slots(self, var_list):
        pass

    # --- slots --------------------------------------------------------------------------------

    def _make_slots(self, var):
        for slot, init in self._slots_spec:
            per = self._slots.setdefault(slot, {})
            if id(var) not in per:
                per[id(var)] = _slot_variable(var, self._slot_label(slot), init)

    def _slot_label(self, slot):
        return self._name

    def get_slot(self, var: Any, name: str) -> Variable:
        """The slot variable ``name`` of ``var`` (None if there is none)."""
        return self._slots.get(name, {}).get(id(var))

    def get_slot_names(self) -> Any:
        return sorted(self._slots)

    def variables(self) -> Any:
        out = [v for per in self._slots.values() for v in per.values()]
        return out + list(self._non_slot.values())

    def _lr(self, var):
        return _scalar(self._learning_rate, var)


def _constrained(var, update):
    """After ``update``, ``var`` takes ``var.constraint(var)`` when it has a constraint, as
    TensorFlow 1's optimizers apply it."""
    constraint = getattr(var, "constraint", None)
    if constraint is None:
        return update
    return _after(update, lambda: var.assign(constraint(var.read_value())))


def _scalar(value, var):
    if callable(value) and not isinstance(value, Variable):
        value = value()
    return cast(convert_to_tensor(value), var.dtype)


def _slot_variable(var, label, init):
    """The slot ``"<var>/<label>"`` of ``var``: zeros, or ``init`` everywhere, of its shape."""
    shape, dt = tuple(var.shape), var.dtype
    base = getattr(var, "_op_name", var.name.rpartition(":")[0])
    graph = graphs.current_graph()
    full = graph.unique_name(f"{base}/{label}", mark_as_used=False) if graph is not None \
        else f"{base}/{label}"

    def value():
        # (a constant: inside finegrad.function a slot is made from no traced tensor)
        return zeros(shape, dt) if init == "zeros" else \
            convert_to_tensor(np.full(shape, init, dt._np))
    return vs._make(full, value, dt, False, None)


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``.

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> with fg.Graph().as_default():
    ...     w = v1.get_variable("w", initializer=fg.constant(1.))
    ...     step = v1.train.GradientDescentOptimizer(0.1).minimize(w * w)
    ...     with v1.Session() as sess:
    ...         sess.run(w.initializer)
    ...         sess.run(step)
    ...         round(float(sess.run(w)), 4)
    0.8
    """

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        return var.assign_sub(grad * self._lr(var))

    def _apply_sparse(self, grad, var):
        # TensorFlow scatter-adds -grad * lr into the rows, repeated indices one by one
        return var.scatter_add(IndexedSlices(-cast(grad.values, var.dtype) * self._lr(var),
                                             grad.indices))


class MomentumOptimizer(Optimizer):
    """``accum = accum * momentum + grad; var -= lr * accum`` (Nesterov:
    ``var -= grad * lr + accum * momentum * lr``); slot ``"momentum"``."""

    _slots_spec = (("momentum", "zeros"),)

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._momentum, self._nesterov = learning_rate, momentum, \
            use_nesterov

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "momentum")
        lr, mom = self._lr(var), _scalar(self._momentum, var)
        a = accum * mom + grad
        new_accum = accum.assign(a)
        if self._nesterov:
            return _after(new_accum, lambda: var.assign_sub(grad * lr + a * mom * lr))
        return _after(new_accum, lambda: var.assign_sub(a * lr))

    def _apply_rows(self, grad, rows, var):
        accum = self.get_slot(var, "momentum")
        lr, mom = self._lr(var), _scalar(self._momentum, var)
        a = gather(accum.read_value(), rows) * mom + grad
        new_accum = accum.scatter_update(IndexedSlices(a, rows))
        step = grad * lr + a * mom * lr if self._nesterov else a * lr
        return _after(new_accum, lambda: _sub_rows(var, rows, step))


def _sub_rows(var, rows, step):
    """``var[rows] -= step``, a repeated row written once (with the same value)."""
    return var.scatter_update(IndexedSlices(gather(var.read_value(), rows) - step, rows))


def _after(first, then):
    """``then()``'s ops run after ``first`` (an assign), in a graph; eagerly, in order."""
    graph = graphs.current_graph()
    if graph is None:
        then()
        return first
    with graph.control_dependencies([first]):
        return then()


class AdamOptimizer(Optimizer):
    """TensorFlow 1's Adam: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``, ``m += (g - m)
    * (1 - beta1)``, ``v += (g^2 - v) * (1 - beta2)``, ``var -= m * lr_t / (sqrt(v) +
    epsilon)``; slots ``"m"`` and ``"v"`` (``"<var>/Adam"``, ``"<var>/Adam_1"``) and the
    variables ``beta1_power`` and ``beta2_power``, multiplied by the betas after each step."""

    _slots_spec = (("m", "zeros"), ("v", "zeros"))

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._beta1, self._beta2, self._epsilon = \
            learning_rate, beta1, beta2, epsilon

    def _make_slots(self, var):
        for slot, label in (("m", self._name), ("v", f"{self._name}_1")):
            per = self._slots.setdefault(slot, {})
            if id(var) not in per:
                per[id(var)] = _slot_variable(var, label, "zeros")

    def _make_non_slots(self, var_list):
        if "beta1_power" not in self._non_slot:
            first = min(var_list, key=lambda v: getattr(v, "_op_name", v.name))
            with scopes.name_scope(""):
                for key, value in (("beta1_power", self._beta1), ("beta2_power", self._beta2)):
                    self._non_slot[key] = vs._make(
                        _unique(key), lambda value=value: convert_to_tensor(
                            np.asarray(value, first.dtype._np)), first.dtype, False, None)

    def _get_beta_accumulators(self):
        return self._non_slot["beta1_power"], self._non_slot["beta2_power"]

    def _apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        b1p, b2p = (cast(convert_to_tensor(p), var.dtype) for p in self._get_beta_accumulators())
        lr, b1, b2 = self._lr(var), _scalar(self._beta1, var), _scalar(self._beta2, var)
        eps = _scalar(self._epsilon, var)
        alpha = lr * sqrt(1. - b2p) / (1. - b1p)
        m_t = m + (grad - m) * (1. - b1)
        v_t = v + (square(grad) - v) * (1. - b2)
        new_m, new_v = m.assign(m_t), v.assign(v_t)
        return _after(group(new_m, new_v) if graphs.current_graph() is not None else new_v,
                      lambda: var.assign_sub((m_t * alpha) / (sqrt(v_t) + eps)))

    def _apply_sparse(self, grad, var):
        # TensorFlow 1's sparse Adam decays all of m and v, scatter-adds the rows' summed
        # gradients (adding zeros elsewhere leaves a value as it is) and updates every row
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g = cast(convert_to_tensor(grad), var.dtype)
        b1p, b2p = (cast(convert_to_tensor(p), var.dtype) for p in self._get_beta_accumulators())
        lr, b1, b2 = self._lr(var), _scalar(self._beta1, var), _scalar(self._beta2, var)
        eps = _scalar(self._epsilon, var)
        alpha = lr * sqrt(1. - b2p) / (1. - b1p)
        m_t = m * b1 + g * (1. - b1)
        v_t = v * b2 + (g * g) * (1. - b2)
        new_m, new_v = m.assign(m_t), v.assign(v_t)
        return _after(group(new_m, new_v) if graphs.current_graph() is not None else new_v,
                      lambda: var.assign_sub(alpha * m_t / (sqrt(v_t) + eps)))

    def _finish(self, updates):
        b1p, b2p = self._get_beta_accumulators()
        graph = graphs.current_graph()
        if graph is None:
            b1p.assign(b1p * self._beta1)
            b2p.assign(b2p * self._beta2)
            return updates
        with graph.control_dependencies(updates):
            u1 = b1p.assign(b1p * _scalar(self._beta1, b1p))
            u2 = b2p.assign(b2p * _scalar(self._beta2, b2p))
        return list(updates) + [u1, u2]


def _unique(name):
    graph = graphs.current_graph()
    return graph.unique_name(name, mark_as_used=False) if graph is not None else name


class RMSPropOptimizer(Optimizer):
    """TensorFlow 1's RMSProp: ``ms += (g^2 - ms) * (1 - decay)``, ``mom = mom * momentum +
    g * lr / sqrt(ms + epsilon)``, ``var -= mom`` (centered: ``mg += (g - mg) * (1 - decay)``
    and ``sqrt(ms - mg^2 + epsilon)``); slots ``"rms"`` (starting at ones), ``"momentum"``
    and, centered, ``"mg"``."""

    def __init__(self, learning_rate: Any, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp") -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum = learning_rate, decay, momentum
        self._epsilon, self._centered = epsilon, centered

    def _make_slots(self, var):
        labels = [("rms", self._name, 1.), ("momentum", f"{self._name}_1", "zeros")]
        if self._centered:   # TensorFlow makes them in this order: rms, mg, momentum
            labels = [("rms", self._name, 1.), ("mg", f"{self._name}_1", "zeros"),
                      ("momentum", f"{self._name}_2", "zeros")]
        for slot, label, init in labels:
            per = self._slots.setdefault(slot, {})
            if id(var) not in per:
                per[id(var)] = _slot_variable(var, label, init)

    def _apply_dense(self, grad, var):
        ms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        lr, rho = self._lr(var), _scalar(self._decay, var)
        momentum, eps = _scalar(self._momentum, var), _scalar(self._epsilon, var)
        ms_t = ms + (square(grad) - ms) * (1. - rho)
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_t = mg + (grad - mg) * (1. - rho)
            denom = ms_t - square(mg_t) + eps
            writes = [ms.assign(ms_t), mg.assign(mg_t)]
        else:
            denom = ms_t + eps
            writes = [ms.assign(ms_t)]
        mom_t = mom * momentum + (grad * lr) / sqrt(denom)
        writes.append(mom.assign(mom_t))
        first = group(*writes) if graphs.current_graph() is not None else writes[-1]
        return _after(first, lambda: var.assign_sub(mom_t))

    def _apply_rows(self, grad, rows, var):
        # TensorFlow's sparse RMSProp kernels order their operations unlike the dense ones
        lr, rho = self._lr(var), _scalar(self._decay, var)
        momentum, eps = _scalar(self._momentum, var), _scalar(self._epsilon, var)
        ms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        ms_t = gather(ms.read_value(), rows) * rho + square(grad) * (1. - rho)
        writes = [ms.scatter_update(IndexedSlices(ms_t, rows))]
        denom = ms_t + eps
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_t = gather(mg.read_value(), rows) * rho + grad * (1. - rho)
            denom = (ms_t - square(mg_t)) + eps
            writes.append(mg.scatter_update(IndexedSlices(mg_t, rows)))
        mom_t = gather(mom.read_value(), rows) * momentum + (1. / sqrt(denom)) * lr * grad
        writes.append(mom.scatter_update(IndexedSlices(mom_t, rows)))
        first = group(*writes) if graphs.current_graph() is not None else writes[-1]
        return _after(first, lambda: _sub_rows(var, rows, mom_t))


class AdagradOptimizer(Optimizer):
    """TensorFlow 1's Adagrad: ``accum += g^2; var -= g * lr / sqrt(accum)``; slot
    ``"accumulator"`` starting at ``initial_accumulator_value``."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate, self._init = learning_rate, initial_accumulator_value
        self._slots_spec = (("accumulator", float(initial_accumulator_value)),)

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        acc_t = acc + square(grad)
        new_acc = acc.assign(acc_t)
        lr = self._lr(var)
        return _after(new_acc, lambda: var.assign_sub(grad * lr * (1. / sqrt(acc_t))))

    def _apply_rows(self, grad, rows, var):
        acc = self.get_slot(var, "accumulator")
        acc_t = gather(acc.read_value(), rows) + square(grad)
        new_acc = acc.scatter_update(IndexedSlices(acc_t, rows))
        lr = self._lr(var)
        return _after(new_acc, lambda: _sub_rows(var, rows, grad * lr * (1. / sqrt(acc_t))))


# --- the global step ---------------------------------------------------------------------------

def get_global_step(graph: Any = None) -> Any:
    """The graph's global step variable (collection ``GLOBAL_STEP``), or None."""
    g = graph if graph is not None else default_graph.get_default_graph()
    found = g.get_collection(vs.GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    return found[0] if found else None


def create_global_step(graph: Any = None) -> Variable:
    """A new global step: an int64 scalar variable ``global_step``, zero, not trainable.

    Raises:
        ValueError: when the graph already has one.
    """
    g = graph if graph is not None else default_graph.get_default_graph()
    if get_global_step(g) is not None:
        raise ValueError("\"global_step\" already exists.")
    with g.as_default():
        with scopes.name_scope(""):
            step = vs._make("global_step", lambda: zeros((), dtypes.int64), dtypes.int64, False,
                            [vs.GraphKeys.GLOBAL_VARIABLES, vs.GraphKeys.GLOBAL_STEP])
    return step


def get_or_create_global_step(graph: Any = None) -> Variable:
    """The graph's global step, made if it has none.

    >>> import finegrad as fg
    >>> with fg.Graph().as_default():
    ...     step = fg.compat.v1.train.get_or_create_global_step()
    ...     step.name, step is fg.compat.v1.train.get_global_step()
    ('global_step:0', True)
    """
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Any:
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (floored with
    ``staircase``), as a tensor of the graph."""
    lr = convert_to_tensor(learning_rate, dtype_hint=dtypes.float32)
    p = cast(convert_to_tensor(global_step), lr.dtype) / float(decay_steps)
    if staircase:
        p = floor(p)
    return lr * convert_to_tensor(decay_rate, dtype=lr.dtype) ** p


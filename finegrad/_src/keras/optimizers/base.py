"""Keras 3's optimizer base class: the step every optimizer shares.

``apply(grads, variables)`` (or ``apply_gradients(zip(grads, variables))``) builds the slot
variables on first use, drops ``None`` gradients, divides by ``loss_scale_factor``, clips
(``clipnorm``, ``global_clipnorm`` or ``clipvalue``), applies decoupled ``weight_decay``, runs
each optimizer's ``update_step``, keeps the EMA of the weights (``use_ema``), projects
variables with their ``constraint`` and counts the step in ``iterations``. All state lives in
finegrad Variables (``iterations`` and ``learning_rate`` included) and every data-dependent
choice is a tensor op or `cond`, so the same step runs eagerly and inside a traced
`finegrad.function`, where it reads and updates the variables each time the graph runs.
"""
import re
import warnings
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api.checkpoint import restore_on_creation
from finegrad._src.api.contexts import init_scope
from finegrad._src.control_flow.cond_while import cond
from finegrad._src.keras import initializers, naming
from finegrad._src.keras.optimizers.schedules import LearningRateSchedule
from finegrad._src.keras.optimizers import schedules
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum, stack
from finegrad._src.ops.nn.softmax_cross_entropy import clip_by_norm
from finegrad._src.keras.state_variables import state_variable
from finegrad._src.keras.optimizers import sparse_rows
from finegrad._src.variables import Variable

def _auto_name(cls_name):
    """Keras's default name: the class name in snake case, numbered after the first (the
    count shared with layers, and started again by `clear_session`)."""
    return naming.auto_name(cls_name)


def global_norm(values: Any) -> Any:
    """The L2 norm of all the tensors in ``values`` together (``None`` entries skipped)."""
    return ew.sqrt(reduce_sum(stack([reduce_sum(ew.square(_values(v))) for v in values
                                     if v is not None])))


def _values(g):
    """The values of an `IndexedSlices` (Keras's norms square each duplicate row), or g."""
    return g.values if sparse_rows.is_sparse(g) else g


def clip_by_global_norm(values: Any, clip_norm: Any) -> Any:
    """``values`` scaled by ``clip_norm / max(global_norm, clip_norm)`` (Keras's formula, whose
    scale is nan when the norm is inf or nan)."""
    norm = global_norm(values)
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm) + (norm - norm)
    return [None if v is None else sparse_rows.map_values(v, lambda t: t * cast(scale, t.dtype))
            for v in values]


def _clip_sparse_by_norm(g, clipnorm):
    """Keras's ``clipnorm`` of an `IndexedSlices`: the norm of its values (each duplicate
    row squared on its own), the result still sparse."""
    l2sum = reduce_sum(ew.square(g.values))
    l2norm = ew.where(l2sum > 0, ew.sqrt(ew.where(l2sum > 0, l2sum, 1.0)), l2sum)
    return sparse_rows.map_values(g, lambda t: (t * clipnorm) / maximum(l2norm, clipnorm))


def side_effect_cond(pred: Any, true_fn: Any, false_fn: Any) -> Any:
    """Run ``true_fn`` or ``false_fn`` (functions that only update variables) by ``pred``,
    eagerly or in a trace; whatever they return is dropped (a `cond` whose branches both
    return None is a side-effect-only one)."""
    def run(fn):
        def branch():
            fn()
        return branch
    cond(pred, run(true_fn), run(false_fn))


def _check_clip_args(clipnorm, clipvalue, global_clipnorm):
    given = [n for n, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                            ("global_clipnorm", global_clipnorm)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"Optimizer: only one of clipnorm, clipvalue and global_clipnorm can "
                         f"be set, got {', '.join(given)}")


def _check_ema_args(ema_momentum, ema_overwrite_frequency):
    if not 0 <= ema_momentum <= 1:
        raise ValueError(f"Optimizer: ema_momentum must be in [0, 1], got {ema_momentum}")
    if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                    or ema_overwrite_frequency < 1):
        raise ValueError(f"Optimizer: ema_overwrite_frequency must be an integer >= 1 or "
                         f"None, got {ema_overwrite_frequency!r}")


class Optimizer:
    """The base class of Keras 3's optimizers; subclasses define ``build`` (their slot
    variables, through `add_variable_from_reference`) and ``update_step``.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable of no arguments.
        weight_decay: decoupled weight decay: ``w -= w * weight_decay * lr`` before each step.
        clipnorm, clipvalue, global_clipnorm: at most one gradient clipping rule.
        use_ema, ema_momentum, ema_overwrite_frequency: keep an exponential moving average of
            the weights, copied into them every ``ema_overwrite_frequency`` steps (or by
            `finalize_variable_values`).
        loss_scale_factor: the gradients are divided by it (the loss was multiplied).
        gradient_accumulation_steps: update every that many steps with the mean gradient.
        name: the optimizer's name (``"adam"``, ``"adam_1"``... by default).

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> opt = fg.keras.optimizers.SGD(learning_rate=0.5)
    >>> _ = opt.apply_gradients([(fg.constant([1., 1.]), v)])
    >>> v.numpy(), int(opt.iterations)
    (array([0.5, 1.5], dtype=float32), 1)

    Raises:
        ValueError: for a learning rate that is neither a float, a schedule nor a callable;
            for more than one clipping rule; for an unknown keyword argument.
    """

    _sparse_steps = False   # True: update_step takes IndexedSlices (Keras's sparse rules)

    def __init__(self, learning_rate: Any, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.",
                          stacklevel=2)
        if kwargs:
            raise ValueError(f"{type(self).__name__}: argument(s) not recognized: {kwargs}")
        _check_clip_args(clipnorm, clipvalue, global_clipnorm)
        if use_ema:
            _check_ema_args(ema_momentum, ema_overwrite_frequency)
        if gradient_accumulation_steps is not None and gradient_accumulation_steps < 2:
            raise ValueError(f"{type(self).__name__}: gradient_accumulation_steps must be an "
                             f"integer >= 2, got {gradient_accumulation_steps}")
        self.name = name or _auto_name(type(self).__name__)
        self.weight_decay, self.clipnorm, self.clipvalue = weight_decay, clipnorm, clipvalue
        self.global_clipnorm, self.use_ema, self.ema_momentum = global_clipnorm, use_ema, \
            ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._variables: list[Any] = []
        self._trainable_variables: list[Any] = []
        self._index: dict[int, int] = {}
        self._exclude_ids: set[int] = set()
        self._exclude_pattern: Any = None
        self._iterations = self._new_variable(np.int64(0), "iteration")
        self._learning_rate = self._lr_value(learning_rate)

    # --- variables ------------------------------------------------------------------------

    def _new_variable(self, value, name):
        v = state_variable(value, f"{self.name}/{name}")
        self._variables.append(v)
        # a tf.train.Checkpoint restored before this slot existed kept its value
        restore_on_creation(self, f"_variables/{len(self._variables) - 1}", v)
        return v

    def _checkpoint_children(self):
        """The object-graph edges TensorFlow's checkpoints give a Keras 3 optimizer:
        ``_iterations``, ``_learning_rate``, then ``_variables/<i>`` for the slots (not the
        model's variables, which TF also lists here: restores match by key, and the model's
        own path must be the one that names them)."""
        yield "_iterations", self._iterations
        if isinstance(self._learning_rate, Variable):
            yield "_learning_rate", self._learning_rate
        yield "_variables", self._variables

    def _lr_value(self, learning_rate):
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if isinstance(learning_rate, Variable):
            learning_rate = float(learning_rate.numpy())
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int)):
            raise ValueError(f"{type(self).__name__}: learning_rate should be a float, a "
                             f"LearningRateSchedule or a callable, got {learning_rate!r}")
        return self._new_variable(np.float32(learning_rate), "learning_rate")

    @property
    def iterations(self) -> Any:
        """The number of steps applied so far (an int64 Variable; counted in updates when
        gradients are accumulated)."""
        if self.gradient_accumulation_steps:
            return self._iterations // self.gradient_accumulation_steps
        return self._iterations

    @property
    def variables(self) -> Any:
        """The optimizer's own variables: ``iterations``, the learning rate, the slots."""
        return self._variables[:]

    def add_variable(self, shape: Any, initializer: Any = "zeros", dtype: Any = None,
                     aggregation: Any = "none",
                     layout: Any = None, name: str | None = None) -> Any:
        """A new non-trainable optimizer variable of ``shape`` filled by ``initializer``."""
        init = initializers.get(initializer)
        dt = dtypes.as_dtype(dtype or "float32")
        with init_scope():
            value = init(tuple(shape), dtype=dt)
        return self._new_variable(value, name or "var")

    def add_variable_from_reference(self, reference_variable: Any, name: str | None = None,
                                    initializer: Any = "zeros") -> Any:
        """A slot variable shaped and typed as ``reference_variable`` (a model weight)."""
        ref = getattr(reference_variable, "path", None) or \
            str(reference_variable.name).replace(":", "_")
        return self.add_variable(tuple(reference_variable.shape), initializer,
                                 reference_variable.dtype,
                                 name=f"{ref.replace('/', '_')}_{name or 'var'}")

    def add_optimizer_variables(self, trainable_variables: Any, name: Any,
                                initializer: Any = "zeros") -> Any:
        """One slot per variable for ``name`` (or a tuple of lists for a list of names)."""
        names = [name] if isinstance(name, str) else list(name)
        inits = initializer if isinstance(initializer, (list, tuple)) else \
            [initializer] * len(names)
        slots: tuple[list[Any], ...] = tuple([] for _ in names)
        for v in trainable_variables:     # Keras's order: each variable's slots together
            for k, (n, i) in enumerate(zip(names, inits, strict=True)):   # (None: overwritten)
                slots[k].append(None if getattr(v, "overwrite_with_gradient", False)
                                else self.add_variable_from_reference(v, n, i))
        return slots[0] if isinstance(name, str) else slots

    def build(self, variables: Any) -> None:
        """Create the slot variables of ``variables`` (the base: EMA and accumulators)."""
        variables = list(variables)
        if self.use_ema:
            self._ema_averages = self.add_optimizer_variables(variables, "average")
        if self.gradient_accumulation_steps:
            self._accumulated = [self.add_variable_from_reference(v, "gradient_accumulator")
                                 for v in variables]
        self._index = {id(v): i for i, v in enumerate(variables)}
        self._trainable_variables = variables[:]
        self.built = True

    def _get_variable_index(self, variable):
        return self._index[id(variable)]

    # --- learning rate --------------------------------------------------------------------

    @property
    def learning_rate(self) -> Any:
        """The current learning rate: the Variable, or the schedule's value at this step."""
        if isinstance(self._learning_rate, LearningRateSchedule):
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return self._learning_rate()

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> Any:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError(f"{type(self).__name__}: this optimizer was created with a "
                            f"LearningRateSchedule, so its learning rate is not settable")
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(cast(convert_to_tensor(learning_rate), "float32"))
        else:
            self._learning_rate = self._lr_value(learning_rate)

    # --- the step -------------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars: Any) -> Any:
        """Apply ``(gradient, variable)`` pairs; returns ``iterations``."""
        grads, variables = zip(*grads_and_vars, strict=True)
        self.apply(list(grads), list(variables))
        return self._iterations

    def apply(self, grads: Any, trainable_variables: Any = None) -> Any:
        """One optimizer step: ``grads[i]`` updates ``trainable_variables[i]`` (by default
        the variables the optimizer was built with).

        Raises:
            ValueError: without variables on an unbuilt optimizer, with a gradient count that
                does not match, with variables it was not built with, or when every
                gradient is None.
        """
        grads = list(grads)
        if not grads:
            return
        variables = self._variables_for(grads, trainable_variables)
        grads, variables = self._filter_empty_gradients(grads, variables)
        grads, variables = self._overwrite_with_gradients(grads, variables)
        if self.loss_scale_factor is not None:
            grads = [sparse_rows.map_values(g, lambda t: t / self.loss_scale_factor)
                     for g in grads]
        if grads:
            self._backend_apply_gradients(grads, variables)
        for v in variables:
            if getattr(v, "constraint", None) is not None:
                v.assign(v.constraint(v))
        self._iterations.assign_add(1)

    def _variables_for(self, grads, trainable_variables):
        name = type(self).__name__
        if trainable_variables is None:
            if not self.built:
                raise ValueError(f"{name}.apply: without variables, the optimizer must "
                                 f"already be built; call optimizer.build(variables) first")
            if len(grads) != len(self._trainable_variables):
                raise ValueError(f"{name}.apply: got {len(grads)} gradients for "
                                 f"{len(self._trainable_variables)} variables")
            return self._trainable_variables
        variables = list(trainable_variables)
        if not self.built:
            self.build(variables)
        for v in variables:
            if id(v) not in self._index:
                raise ValueError(f"{name}.apply: unknown variable {v}; this optimizer can "
                                 f"only update the variables it was built with")
        return variables

    def _filter_empty_gradients(self, grads, variables):
        kept = [(g, v) for g, v in zip(grads, variables, strict=True) if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        if len(kept) < len(grads):
            missing = [getattr(v, "path", v.name) for g, v in
                       zip(grads, variables, strict=True) if g is None]
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing "
                          f"the loss.", stacklevel=3)
        return [g if sparse_rows.is_sparse(g) else convert_to_tensor(g) for g, _ in kept], \
            [v for _, v in kept]

    def _overwrite_with_gradients(self, grads, variables):
        """Assign each ``overwrite_with_gradient`` variable its gradient (float8's scales
        and histories; under gradient accumulation, the maximum over the accumulated steps)
        and leave the other pairs to the update."""
        rest: tuple[list, list] = ([], [])
        for g, v in zip(grads, variables, strict=True):
            if not getattr(v, "overwrite_with_gradient", False):
                rest[0].append(g)
                rest[1].append(v)
            elif not self.gradient_accumulation_steps:
                v.assign(g)
            else:
                due = ew.equal((self._iterations + 1) % self.gradient_accumulation_steps, 0)
                acc = self._accumulated[self._get_variable_index(v)]
                top = maximum(g, acc.read_value())
                v.assign(ew.where(due, top, v.read_value()))
                acc.assign(ew.where(due, acc * 0, top))
        return rest

    def _backend_apply_gradients(self, grads, variables):
        if self.gradient_accumulation_steps:
            self._accumulate_then_apply(grads, variables)
        else:
            self._clip_decay_update(grads, variables)
        if self.use_ema:
            self._update_ema(self._trainable_variables)
            if self.ema_overwrite_frequency:
                due = ew.equal((self.iterations + 1) % self.ema_overwrite_frequency, 0)
                for var, avg in zip(self._trainable_variables, self._ema_averages,
                                    strict=True):
                    if avg is None:
                        continue
                    var.assign(ew.where(due, avg.read_value(), var.read_value()))

    def _clip_decay_update(self, grads, variables):
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(variables)
        self._backend_update_step(grads, variables, self.learning_rate)

    def _accumulate_then_apply(self, grads, variables):
        steps = self.gradient_accumulation_steps
        accs = [self._accumulated[self._get_variable_index(v)] for v in variables]
        grads = [sparse_rows.dense(g) for g in grads]   # Keras adds them to dense sums

        def update():
            self._clip_decay_update([(g + a) / steps for g, a in zip(grads, accs, strict=True)],
                                    variables)
            for a in accs:
                a.assign(a * 0)

        def accumulate():
            for g, a in zip(grads, accs, strict=True):
                a.assign(a + g)

        side_effect_cond(ew.equal((self._iterations + 1) % steps, 0), update, accumulate)

    def _backend_update_step(self, grads, variables, learning_rate):
        for g, v in zip(grads, variables, strict=True):
            if not self._sparse_steps:   # an optimizer without Keras's sparse arithmetic
                g = sparse_rows.dense(g)
            self.update_step(g, v, learning_rate)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        """Update ``variable`` from its ``gradient`` (each optimizer defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define update_step")

    def _clip_gradients(self, grads):
        if self.clipnorm and self.clipnorm > 0:
            return [_clip_sparse_by_norm(g, self.clipnorm) if sparse_rows.is_sparse(g)
                    else clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            c = self.clipvalue
            return [sparse_rows.map_values(g, lambda t: minimum(maximum(t, -c), c))
                    for g in grads]
        return grads

    def exclude_from_weight_decay(self, var_list: Any = None, var_names: Any = None) -> None:
        """Exclude these variables, or those whose name contains one of ``var_names``, from
        weight decay (call before the first step)."""
        self._exclude_ids = {id(v) for v in var_list or ()}
        self._exclude_pattern = re.compile("|".join(set(var_names))) if var_names else None

    def _use_weight_decay(self, variable):
        if id(variable) in self._exclude_ids:
            return False
        return not (self._exclude_pattern is not None
                    and self._exclude_pattern.search(str(variable.name)))

    def _apply_weight_decay(self, variables):
        if self.weight_decay is None:
            return
        for v in variables:
            if self._use_weight_decay(v):
                lr = cast(self.learning_rate, v.dtype)
                v.assign_sub(v * cast(convert_to_tensor(self.weight_decay), v.dtype) * lr)

    def _update_ema(self, variables):
        for var, avg in zip(variables, self._ema_averages, strict=True):
            if avg is None:
                continue
            momentum = cast(ew.not_equal(self.iterations, 0), var.dtype) * self.ema_momentum
            avg.assign(momentum * avg + (1 - momentum) * var)

    def finalize_variable_values(self, var_list: Any) -> None:
        """With ``use_ema``, copy the moving averages into the model's variables."""
        if self.use_ema:
            for var, avg in zip(var_list, self._ema_averages, strict=True):
                if avg is not None:
                    var.assign(avg)

    # --- helpers subclasses use (Keras's names) --------------------------------------------

    def assign(self, variable: Any, value: Any) -> None:
        """``variable.assign(value)``."""
        variable.assign(value)

    def assign_add(self, variable: Any, value: Any) -> None:
        """``variable.assign_add(value)`` (a scatter of an `IndexedSlices` into its rows)."""
        sparse_rows.assign_add(variable, value)

    def assign_sub(self, variable: Any, value: Any) -> None:
        """``variable.assign_sub(value)`` (a scatter of an `IndexedSlices` into its rows)."""
        sparse_rows.assign_sub(variable, value)

    def scale_loss(self, loss: Any) -> Any:
        """``loss * loss_scale_factor`` (``loss`` when there is none)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    # --- saving ---------------------------------------------------------------------------

    def save_own_variables(self, store: Any) -> None:
        """Write the variables' values into ``store`` under ``"0"``, ``"1"``..."""
        for i, v in enumerate(self.variables):
            store[str(i)] = v.numpy()

    def load_own_variables(self, store: Any) -> None:
        """Read the variables back from a `save_own_variables` store (as Keras, a warning
        and nothing loaded when the store holds another number of variables)."""
        if len(store.keys()) != len(self.variables):
            warnings.warn(f"Skipping variable loading for optimizer '{self.name}', because it "
                          f"has {len(self.variables)} variables whereas the saved optimizer "
                          f"has {len(store.keys())} variables.", stacklevel=2)
            return
        for i, v in enumerate(self.variables):
            v.assign(np.asarray(store[str(i)]))

    def set_weights(self, weights: Any) -> None:
        """Assign ``weights`` (arrays, in the order of `variables`) to the optimizer's
        variables.

        Raises:
            ValueError: on an unbuilt optimizer, or for a weight of another shape.
        """
        if not self.built:
            raise ValueError(f"{type(self).__name__}.set_weights: the optimizer is not built; "
                             f"call optimizer.build(trainable_variables) first")
        for v, w in zip(self._variables, weights, strict=False):
            if tuple(v.shape) != tuple(np.shape(w)):
                raise ValueError(f"{type(self).__name__}.set_weights: variable {v.name} has "
                                 f"shape {tuple(v.shape)}, the weight {tuple(np.shape(w))}")
            v.assign(np.asarray(w, v.dtype._np))

    def get_config(self) -> dict:
        """The constructor's arguments (the learning rate as a float or a schedule's dict)."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            lr = schedules.serialize(lr)
        elif isinstance(lr, Variable):
            lr = float(lr.numpy())
        return {"name": self.name, "learning_rate": lr, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": self.use_ema,
                "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> Any:
        """An optimizer made from ``get_config()``'s dict."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)


def serialize(optimizer: Any) -> dict:
    """Keras's config dict of an optimizer.

    >>> import finegrad as fg
    >>> fg.keras.optimizers.serialize(fg.keras.optimizers.SGD())["class_name"]
    'SGD'
    """
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}

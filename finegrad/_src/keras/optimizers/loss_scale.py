"""Keras 3's ``LossScaleOptimizer``: dynamic loss scaling for mixed precision."""
from typing import Any
import numpy as np

from finegrad._src.keras.optimizers.base import Optimizer, side_effect_cond
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast, convert_to_tensor, stack
from finegrad._src.ops.math.statistics import reduce_all

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with a dynamic loss scale: `scale_loss` multiplies the loss
    by ``dynamic_scale``; `apply` divides the gradients by it and, when they are all finite,
    lets the inner optimizer step (the scale doubles after ``dynamic_growth_steps`` such
    steps in a row); otherwise it skips the step and halves the scale.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> opt = fg.keras.optimizers.LossScaleOptimizer(fg.keras.optimizers.SGD(0.5))
    >>> _ = opt.apply([fg.constant(float("inf"))], [v])   # skipped, the scale halves
    >>> float(v), float(opt.dynamic_scale)
    (1.0, 16384.0)
    >>> _ = opt.apply([opt.dynamic_scale * 2.], [v])     # the real gradient is 2
    >>> float(v)
    0.0

    Raises:
        ValueError: for ``dynamic=False`` or any base optimizer argument (set it on the inner
            optimizer).
    """

    def __init__(self, inner_optimizer: Any, initial_scale: Any = 2.0 ** 15,
                 dynamic_growth_steps: Any = 2000,
                 name: str | None = None, **kwargs) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports dynamic=False; set "
                             "loss_scale_factor on the inner optimizer instead")
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(f"LossScaleOptimizer does not support {arg}; set it on "
                                 f"the inner optimizer")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: "
                             f"{', '.join(kwargs)}")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale, self.dynamic_growth_steps = initial_scale, dynamic_growth_steps
        inner_optimizer.loss_scale_factor = None

    def build(self, variables: Any) -> None:
        variables = list(variables)
        self.step_counter = self.add_variable((), "zeros", "int64", name="step_counter")
        self.dynamic_scale = self._new_variable(np.float32(self.initial_scale),
                                                "dynamic_scale")
        self.inner_optimizer.build(variables)
        super().build(variables)

    @property
    def variables(self) -> Any:
        return self._variables + self.inner_optimizer.variables

    def check_finite(self, grads: Any) -> Any:
        """True when every entry of every (non-None) gradient is finite."""
        return reduce_all(stack([reduce_all(ew.is_finite(g)) for g in grads if g is not None]))

    def apply(self, grads: Any, trainable_variables: Any = None) -> Any:
        grads = list(grads)
        if not self.built:
            self.build(trainable_variables)
        side_effect_cond(self.check_finite(grads),
             lambda: self._apply_finite(grads, trainable_variables), self._skip)

    def _apply_finite(self, grads, trainable_variables):
        scale = self.dynamic_scale.read_value()
        tvs = trainable_variables or self.inner_optimizer._trainable_variables
        self.inner_optimizer.apply(   # (float8's state takes its gradient unscaled, as Keras's)
            [g if g is None or getattr(v, "overwrite_with_gradient", False)
             else convert_to_tensor(g) / cast(scale, convert_to_tensor(g).dtype)
             for g, v in zip(grads, tvs, strict=True)], trainable_variables)

        def grow():
            self.step_counter.assign(self.step_counter * 0)
            self.dynamic_scale.assign(self.dynamic_scale * 2.0)

        def count():
            self.step_counter.assign_add(1)

        side_effect_cond(ew.equal(self.step_counter, self.dynamic_growth_steps - 1), grow, count)

    def _skip(self):
        self.step_counter.assign(self.step_counter * 0)
        self.dynamic_scale.assign(self.dynamic_scale * 0.5)

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> Any:
        self.inner_optimizer.learning_rate = learning_rate

    @property
    def iterations(self) -> Any:
        return self.inner_optimizer.iterations

    def scale_loss(self, loss: Any) -> Any:
        """``loss`` times the current dynamic scale (the initial scale before building)."""
        return loss * (self.dynamic_scale if self.built else self.initial_scale)

    def finalize_variable_values(self, var_list: Any) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> Any:
        from_inner = {"module": "keras.optimizers",
                      "class_name": type(self.inner_optimizer).__name__,
                      "config": self.inner_optimizer.get_config(), "registered_name": None}
        return {"name": self.name, "inner_optimizer": from_inner,
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

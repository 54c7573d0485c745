"""Keras 3's ``ScheduleFreeAdamW``: AdamW without a learning-rate schedule, the weights an
interpolation between an Adam-stepped sequence ``z`` and its running average ``x`` (Defazio
et al., 2024)."""
from typing import Any

from finegrad._src.api.contexts import init_scope
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import minimum, pow as _pow


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW: ``z`` (the ``momentum`` slot, starting at the weights) takes
    Adam's step ``lr * g / (sqrt(v / (1 - beta_2^t)) + epsilon)`` (``lr`` ramped up over
    ``warmup_steps``); the average ``x`` is recovered from the weights ``y``, updated with
    weight ``1/t``, and ``y = (1 - beta_1) z + beta_1 x``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.ScheduleFreeAdamW(0.1).apply([fg.constant(3.)], [v])
    >>> round(float(v), 4)
    0.9
    """

    def __init__(self, learning_rate: Any = 0.0025, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Any = 1e-8, warmup_steps: int = 0, weight_decay: Any = None,
                 clipnorm: Any = None, clipvalue: Any = None, global_clipnorm: Any = None,
                 use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.warmup_steps = warmup_steps

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(
            variables, ["momentum", "velocity"])
        with init_scope():   # once, at build, even when the first step is being traced
            for z, var in zip(self._momentums, variables, strict=True):
                z.assign(var.read_value())

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(convert_to_tensor(gradient), dt)
        step = cast(self.iterations + 1, dt)
        if self.warmup_steps > 0:
            lr = lr * minimum(step / cast(self.warmup_steps, dt), 1.0)
        i = self._get_variable_index(variable)
        z, v = self._momentums[i], self._velocities[i]
        z_old = z.read_value()
        v.assign_add((ew.square(g) - v) * (1 - self.beta_2))
        denom = ew.sqrt(v / (1 - _pow(cast(self.beta_2, dt), step))) + self.epsilon
        z.assign_sub(lr * g / denom)
        weight = 1.0 / step
        x_old = (variable - (1 - self.beta_1) * z_old) / self.beta_1
        x_new = (1 - weight) * x_old + weight * z
        variable.assign((1 - self.beta_1) * z + self.beta_1 * x_new)

    def get_config(self) -> Any:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "warmup_steps": self.warmup_steps}

"""Keras 3's optimizers that scale by accumulated squared gradients: ``Adagrad``,
``Adadelta`` and ``RMSprop``."""
from typing import Any
from finegrad._src.keras import initializers
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import cast


class Adagrad(Optimizer):
    """Adagrad: ``a += g^2``, ``w -= lr * g / sqrt(a + epsilon)``, the accumulator starting
    at ``initial_accumulator_value``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.).apply(
    ...     [fg.constant(2.)], [v])
    >>> round(float(v), 4)
    0.9
    """

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: Any = 0.1,
                 epsilon: Any = 1e-7,
                 weight_decay: Any = None, clipnorm: Any = None, clipvalue: Any = None,
                 global_clipnorm: Any = None,
                 use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None,
                 loss_scale_factor: Any = None, gradient_accumulation_steps: Any = None,
                 name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulators = self.add_optimizer_variables(
            variables, "accumulator", initializers.Constant(self.initial_accumulator_value))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr, g = cast(learning_rate, variable.dtype), cast(gradient, variable.dtype)
        acc = self._accumulators[self._get_variable_index(variable)]
        acc.assign_add(ew.square(g))
        variable.assign_sub((lr * g) / ew.sqrt(acc + self.epsilon))

    def get_config(self) -> Any:
        return {**super().get_config(),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}


class Adadelta(Optimizer):
    """Adadelta: ``delta = -sqrt(D + eps) / sqrt(G + eps) * g`` from running averages ``G`` of
    ``g^2`` and ``D`` of ``delta^2`` (decay ``rho``); ``w += lr * delta``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Adadelta(1.).apply([fg.constant(2.)], [v])
    >>> bool(float(v) < 1.)
    True
    """

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-7,
                 weight_decay: Any = None,
                 clipnorm: Any = None, clipvalue: Any = None, global_clipnorm: Any = None,
                 use_ema: bool = False,
                 ema_momentum: Any = 0.99, ema_overwrite_frequency: Any = None,
                 loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            variables, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr, g = cast(learning_rate, variable.dtype), cast(gradient, variable.dtype)
        i, rho = self._get_variable_index(variable), self.rho
        acc_g, acc_d = self._accumulated_grads[i], self._accumulated_delta_vars[i]
        acc_g.assign(rho * acc_g + (1 - rho) * ew.square(g))
        delta = -(ew.sqrt(acc_d + self.epsilon) * g) / ew.sqrt(acc_g + self.epsilon)
        acc_d.assign(rho * acc_d + (1 - rho) * ew.square(delta))
        variable.assign_add(lr * delta)

    def get_config(self) -> Any:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


class RMSprop(Optimizer):
    """RMSprop: ``v = rho * v + (1 - rho) * g^2``, step ``lr * g / sqrt(v + epsilon)``
    (``v - mean(g)^2`` when ``centered``), through a momentum accumulator if ``momentum``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.RMSprop(0.1, rho=0.).apply([fg.constant(2.)], [v])
    >>> round(float(v), 4)
    0.9
    """

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-7,
                 centered: bool = False, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._velocities = self.add_optimizer_variables(variables, "velocity")
        self._momentums = self.add_optimizer_variables(variables, "momentum") \
            if self.momentum > 0 else []
        self._average_gradients = self.add_optimizer_variables(
            variables, "average_gradient") if self.centered else []

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr, g = cast(learning_rate, variable.dtype), cast(gradient, variable.dtype)
        i, rho = self._get_variable_index(variable), self.rho
        velocity = self._velocities[i]
        velocity.assign(rho * velocity + (1 - rho) * ew.square(g))
        if self.centered:
            avg = self._average_gradients[i]
            avg.assign(rho * avg + (1 - rho) * g)
            denominator = velocity - ew.square(avg) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = (lr * g) / ew.sqrt(denominator)
        if self.momentum > 0:
            m = self._momentums[i]
            m.assign(self.momentum * m + increment)
            variable.assign_sub(m)
        else:
            variable.assign_sub(increment)

    def get_config(self) -> Any:
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}

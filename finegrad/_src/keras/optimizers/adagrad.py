"""Keras 3's optimizers that scale by accumulated squared gradients: ``Adagrad``,
``Adadelta`` and ``RMSprop``."""
from typing import Any
from finegrad._src.keras import initializers
from finegrad._src.keras.optimizers import sparse_rows
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

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr, g = cast(learning_rate, variable.dtype), sparse_rows.cast_grad(gradient,
                                                                           variable.dtype)
        acc = self._accumulators[self._get_variable_index(variable)]
        if sparse_rows.is_sparse(g):   # Keras's sparse step: only the gathered rows change
            acc.scatter_add(sparse_rows.map_values(g, ew.square))
            denom = ew.sqrt(sparse_rows.rows_of(acc, g) + self.epsilon)
            variable.scatter_sub(sparse_rows.map_values(g, lambda t: (lr * t) / denom))
            return
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

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr = cast(learning_rate, variable.dtype)
        g = sparse_rows.cast_grad(gradient, variable.dtype)
        i, rho = self._get_variable_index(variable), self.rho
        acc_g, acc_d = self._accumulated_grads[i], self._accumulated_delta_vars[i]
        if sparse_rows.is_sparse(g):    # Keras's sparse arithmetic: delta only on the rows
            acc_g.assign(rho * acc_g + sparse_rows.dense(
                sparse_rows.map_values(g, lambda t: (1 - rho) * ew.square(t))))
            num = sparse_rows.rows_of(ew.sqrt(acc_d + self.epsilon), g)
            den = sparse_rows.rows_of(ew.sqrt(acc_g + self.epsilon), g)
            delta = sparse_rows.map_values(g, lambda t: -((num * t) / den))
            acc_d.assign(rho * acc_d + sparse_rows.dense(
                sparse_rows.map_values(delta, lambda t: (1 - rho) * ew.square(t))))
            variable.scatter_add(sparse_rows.map_values(delta, lambda t: lr * t))
            return
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

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr = cast(learning_rate, variable.dtype)
        g = sparse_rows.cast_grad(gradient, variable.dtype)
        i, rho = self._get_variable_index(variable), self.rho
        velocity = self._velocities[i]
        # a sparse gradient: Keras densifies it where it meets the dense accumulators
        velocity.assign(rho * velocity + sparse_rows.dense(
            sparse_rows.map_values(g, lambda t: (1 - rho) * ew.square(t))))
        if self.centered:
            avg = self._average_gradients[i]
            avg.assign(rho * avg + sparse_rows.dense(sparse_rows.map_values(
                g, lambda t: (1 - rho) * t)))
            denominator = velocity - ew.square(avg) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = _scaled_step(g, lr, ew.sqrt(denominator))
        if self.momentum > 0:
            m = self._momentums[i]
            m.assign(self.momentum * m + sparse_rows.dense(increment))
            variable.assign_sub(m)
        else:
            sparse_rows.assign_sub(variable, increment)

    def get_config(self) -> Any:
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}


def _scaled_step(g, lr, denominator):
    """``lr * g / denominator``; sparse for an `IndexedSlices` ``g`` (the divisor's rows)."""
    if sparse_rows.is_sparse(g):
        d = sparse_rows.rows_of(denominator, g)
        return sparse_rows.map_values(g, lambda t: (lr * t) / d)
    return (lr * g) / denominator

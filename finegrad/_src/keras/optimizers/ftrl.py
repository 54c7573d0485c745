"""Keras 3's ``Ftrl`` (follow the regularized leader) and ``Lion`` (evolved sign momentum)."""
from typing import Any
from finegrad._src.keras import initializers
from finegrad._src.keras.optimizers import sparse_rows
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum, pow as _pow
from finegrad._src.ops.array.structural import cast, convert_to_tensor


def _non_negative(value, name):
    if value < 0.0:
        raise ValueError(f"Ftrl: {name} needs to be positive or zero, got {value}")


class Ftrl(Optimizer):
    """FTRL-Proximal (McMahan et al., 2013) with L1, L2 and L2-shrinkage regularization.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Ftrl(0.1).apply([fg.constant(2.)], [v])
    >>> bool(float(v) < 1.)
    True

    Raises:
        ValueError: for a negative accumulator value or regularization strength, or a
            positive ``learning_rate_power``.
    """

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: Any = 0.1, l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0,
                 l2_shrinkage_regularization_strength: Any = 0.0,
                 beta: Any = 0.0, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        _non_negative(initial_accumulator_value, "initial_accumulator_value")
        if learning_rate_power > 0.0:
            raise ValueError(f"Ftrl: learning_rate_power needs to be negative or zero, got "
                             f"{learning_rate_power}")
        for arg in ("l1_regularization_strength", "l2_regularization_strength",
                    "l2_shrinkage_regularization_strength"):
            _non_negative(locals()[arg], arg)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulators, self._linears = self.add_optimizer_variables(
            variables, ["accumulator", "linear"],
            [initializers.Constant(self.initial_accumulator_value), "zeros"])

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr = cast(learning_rate, variable.dtype)
        g = sparse_rows.cast_grad(gradient, variable.dtype)
        # Keras densifies a sparse gradient here, squaring each duplicate row on its own
        g2 = sparse_rows.dense(sparse_rows.map_values(g, ew.square))
        g = sparse_rows.dense(g)
        i = self._get_variable_index(variable)
        accum, linear = self._accumulators[i], self._linears[i]
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        g_shrunk = g + 2 * self.l2_shrinkage_regularization_strength * variable
        new_accum = accum + g2
        linear.assign_add(g_shrunk - (_pow(new_accum, power) - _pow(accum, power)) / lr
                          * variable)
        quadratic = _pow(new_accum, power) / lr + 2 * l2
        l1 = self.l1_regularization_strength
        clipped = minimum(maximum(linear, -l1), l1)
        variable.assign((clipped - linear) / quadratic)
        accum.assign(new_accum)

    def get_config(self) -> Any:
        return {**super().get_config(), "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength":
                    self.l2_shrinkage_regularization_strength,
                "beta": self.beta}


class Lion(Optimizer):
    """Lion: ``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then
    ``m = beta_2 * m + (1 - beta_2) * g``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Lion(0.1).apply([fg.constant(2.)], [v])
    >>> round(float(v), 4)
    0.9

    Raises:
        ValueError: for ``beta_1`` outside (0, 1].
    """

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.99,
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
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"Lion: beta_1 must be in the (0, 1] range, got {beta_1}")
        self.beta_1, self.beta_2 = beta_1, beta_2

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums = self.add_optimizer_variables(variables, "momentum")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(gradient, dt)
        beta_1 = cast(convert_to_tensor(self.beta_1), dt)
        beta_2 = cast(convert_to_tensor(self.beta_2), dt)
        m = self._momentums[self._get_variable_index(variable)]
        variable.assign_sub(lr * ew.sign(m * beta_1 + g * (1.0 - beta_1)))
        m.assign(m * beta_2 + g * (1.0 - beta_2))

    def get_config(self) -> Any:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}

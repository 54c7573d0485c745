"""Keras 3's Adam family: ``Adam`` (with AMSGrad), ``AdamW``, ``Adamax`` and ``Nadam``."""
from typing import Any
import numpy as np

from finegrad._src import dtypes
from finegrad._src.keras.optimizers import sparse_rows
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, pow as _pow
from finegrad._src.ops.array.structural import cast, convert_to_tensor

def _power(beta, step, dtype):
    return _pow(cast(convert_to_tensor(beta), dtype), step)


class AdamMoments(Optimizer):
    """The constructor and config of the optimizers whose own hyperparameters are Adam's
    ``beta_1``, ``beta_2`` and ``epsilon`` (Adam, Adamax, Nadam, Lamb); subclasses define
    ``build`` and ``update_step``."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Any = 1e-7, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None, global_clipnorm: Any = None, use_ema: bool = False,
                 ema_momentum: Any = 0.99, ema_overwrite_frequency: Any = None,
                 loss_scale_factor: Any = None, gradient_accumulation_steps: Any = None,
                 name: str | None = None, **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def get_config(self) -> Any:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}


class Adam(AdamMoments):
    """Adam: moving averages ``m`` of the gradient and ``v`` of its square, and
    ``w -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)``; with
    ``amsgrad`` the running maximum of ``v`` is used.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Adam(0.1).apply([fg.constant(3.)], [v])
    >>> round(float(v), 4)
    0.9
    """

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Any = 1e-7,
                 amsgrad: bool = False, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, weight_decay, clipnorm,
                         clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.amsgrad = amsgrad

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(
            variables, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(variables, "velocity_hat")

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), sparse_rows.cast_grad(gradient, dt)
        # Keras densifies a sparse gradient here, after squaring each duplicate row on its own
        g2 = sparse_rows.dense(sparse_rows.map_values(g, ew.square))
        g = sparse_rows.dense(g)
        step = cast(self.iterations + 1, dt)
        alpha = lr * ew.sqrt(1 - _power(self.beta_2, step, dt)) / \
            (1 - _power(self.beta_1, step, dt))
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        m.assign_add((g - m) * (1 - self.beta_1))
        v.assign_add((g2 - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            v_hat.assign(maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (ew.sqrt(v) + self.epsilon))

    def get_config(self) -> Any:
        return {**super().get_config(), "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay``, 0.004 by default): before each
    step ``w -= w * weight_decay * lr``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.AdamW(0.1, weight_decay=0.5).apply([fg.constant(3.)], [v])
    >>> round(float(v), 4)
    0.85

    Raises:
        ValueError: for ``weight_decay=None``.
    """

    def __init__(self, learning_rate: Any = 0.001, weight_decay: Any = 0.004, beta_1: Any = 0.9,
                 beta_2: Any = 0.999,
                 epsilon: Any = 1e-7, amsgrad: bool = False, clipnorm: Any = None,
                 clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay,
                         clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
                         ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        if self.weight_decay is None:
            raise ValueError("AdamW: weight_decay must be a float, got None")


class Adamax(AdamMoments):
    """Adamax, Adam with the infinity norm: ``u = max(beta_2 * u, |g|)``,
    ``w -= lr * m / ((1 - beta_1^t) * (u + epsilon))``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Adamax(0.1).apply([fg.constant(3.)], [v])
    >>> round(float(v), 4)
    0.9
    """

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._m, self._u = self.add_optimizer_variables(variables, ["momentum", "norm"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(gradient, dt)
        beta_1_power = _power(self.beta_1, cast(self.iterations + 1, dt), dt)
        i = self._get_variable_index(variable)
        m, u = self._m[i], self._u[i]
        m.assign_add((g - m) * (1 - self.beta_1))
        u.assign(maximum(u * self.beta_2, ew.abs(g)))
        variable.assign_sub((lr * m) / ((1 - beta_1_power) * (u + self.epsilon)))


class Nadam(AdamMoments):
    """Nadam, Adam with Nesterov momentum and the momentum schedule
    ``u_t = beta_1 * (1 - 0.5 * 0.96^t)``.

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> _ = fg.keras.optimizers.Nadam(0.1).apply([fg.constant(3.)], [v])
    >>> round(float(v), 3)
    0.894
    """

    def build(self, variables: Any) -> None:
        if self.built:
            return
        variables = list(variables)
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(
            variables, ["momentum", "velocity"])
        dt = variables[0].dtype if variables else "float32"
        self._u_product = self._new_variable(np.asarray(1.0, dtypes.as_dtype(dt)._np),
                                             "u_product")

    def _backend_update_step(self, grads, variables, learning_rate):
        dt = self._u_product.dtype
        step = cast(self.iterations + 1, dt)
        self._u_product.assign(self._u_product * self.beta_1 *
                               (1.0 - 0.5 * _power(0.96, step, dt)))
        super()._backend_update_step(grads, variables, learning_rate)

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), sparse_rows.cast_grad(gradient, dt)
        g2 = sparse_rows.dense(sparse_rows.map_values(g, ew.square))   # as in Adam
        g = sparse_rows.dense(g)
        step, next_step = cast(self.iterations + 1, dt), cast(self.iterations + 2, dt)
        beta_1 = cast(convert_to_tensor(self.beta_1), dt)
        u_t = beta_1 * (1.0 - 0.5 * _power(0.96, step, dt))
        u_t_1 = beta_1 * (1.0 - 0.5 * _power(0.96, next_step, dt))
        u_product_t = cast(self._u_product, dt)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = _power(self.beta_2, step, dt)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        m.assign_add((g - m) * (1 - beta_1))
        v.assign_add((g2 - v) * (1 - cast(convert_to_tensor(self.beta_2), dt)))
        m_hat = (u_t_1 * m) / (1 - u_product_t_1) + ((1 - u_t) * g) / (1 - u_product_t)
        v_hat = v / (1 - beta_2_power)
        variable.assign_sub((m_hat * lr) / (ew.sqrt(v_hat) + self.epsilon))

"""Keras 3's ``SGD``: gradient descent with optional (Nesterov) momentum."""
from typing import Any
from finegrad._src.keras.optimizers import sparse_rows
from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.array.structural import cast


class SGD(Optimizer):
    """Gradient descent: ``w -= lr * g``; with ``momentum`` the velocity
    ``m = momentum * m - lr * g`` is added (``w += momentum * m - lr * g`` with ``nesterov``).

    >>> import finegrad as fg
    >>> v = fg.Variable(1.)
    >>> opt = fg.keras.optimizers.SGD(0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     _ = opt.apply([fg.constant(1.)], [v])
    >>> round(float(v), 4)
    0.71

    Raises:
        ValueError: for a momentum that is not a float in [0, 1].
    """

    def __init__(self, learning_rate: Any = 0.01, momentum: Any = 0.0, nesterov: bool = False,
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
        if not isinstance(momentum, float) or not 0 <= momentum <= 1:
            raise ValueError(f"SGD: momentum must be a float between [0, 1], got {momentum!r}")
        self.momentum, self.nesterov = momentum, nesterov

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self.momentums = self.add_optimizer_variables(variables, "momentum") \
            if self.momentum != 0 else []

    _sparse_steps = True

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        lr = cast(learning_rate, variable.dtype)
        g = sparse_rows.cast_grad(gradient, variable.dtype)
        step = sparse_rows.map_values(g, lambda t: t * lr)   # sparse as in Keras
        if self.momentum == 0:
            sparse_rows.assign_sub(variable, step)
            return
        step = sparse_rows.dense(step)      # Keras densifies when it meets the momentum
        m = self.momentums[self._get_variable_index(variable)]
        m.assign(m * self.momentum - step)
        if self.nesterov:
            variable.assign_add(m * self.momentum - step)
        else:
            variable.assign_add(m)

    def get_config(self) -> Any:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}

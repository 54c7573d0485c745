"""Keras 3's ``Lamb``: Adam's step scaled, per variable, by the ratio of the weights' norm to
the step's norm (layer-wise adaptive moments, You et al. 2019)."""
from typing import Any

from finegrad._src.keras.optimizers.adam import AdamMoments
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reduce_sum
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import pow as _pow


class Lamb(AdamMoments):
    """Lamb: Adam's moments ``m``, ``v`` with bias correction, ``u = m_hat / (sqrt(v_hat) +
    epsilon)``, and ``w -= lr * (|w| / |u|) * u`` (the ratio 1 where a norm is 0).

    >>> import finegrad as fg
    >>> v = fg.Variable([3., 4.])
    >>> _ = fg.keras.optimizers.Lamb(0.1).apply([fg.constant([1., 1.])], [v])
    >>> [round(float(x), 4) for x in v]
    [2.6464, 3.6464]
    """

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(
            variables, ["momentum", "velocity"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(convert_to_tensor(gradient), dt)
        step = cast(self.iterations + 1, dt)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        m.assign_add((g - m) * (1 - self.beta_1))
        v.assign_add((ew.square(g) - v) * (1 - self.beta_2))
        m_hat = m / (1.0 - _pow(cast(convert_to_tensor(self.beta_1), dt), step))
        v_hat = v / (1.0 - _pow(cast(convert_to_tensor(self.beta_2), dt), step))
        update = m_hat / (ew.sqrt(v_hat) + self.epsilon)
        w_norm = ew.sqrt(reduce_sum(ew.square(variable)))
        u_norm = ew.sqrt(reduce_sum(ew.square(update)))
        ratio = ew.where(w_norm > 0, ew.where(u_norm > 0, w_norm / u_norm, 1.0), 1.0)
        variable.assign_sub(ratio * lr * update)

"""Keras 3's ``Adafactor``: Adam's second moment kept factored for matrices (a row and a
column average of the squared gradient instead of a full matrix), steps relative to the
weights' scale (Shazeer & Stern, 2018)."""
from typing import Any

import numpy as np

from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.array.structural import cast, convert_to_tensor, expand_dims
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import maximum, minimum, pow as _pow
from finegrad._src.ops.math.reductions import reduce_mean


def _rms(x):
    return ew.sqrt(reduce_mean(ew.square(x)))


class Adafactor(Optimizer):
    """Adafactor: for a matrix ``w``, row and column means ``r``, ``c`` of ``g^2 + epsilon_1``
    (decaying at ``1 - t^beta_2_decay``) give ``v = (r / mean(r)) c``; for a vector ``v``
    itself. The update ``u = g / sqrt(v)``, clipped to RMS ``clip_threshold``, is scaled by
    ``max(epsilon_2, rms(w)) * min(lr, 1 / sqrt(t))``.

    >>> import finegrad as fg
    >>> v = fg.Variable([1., 2.])
    >>> _ = fg.keras.optimizers.Adafactor(0.1).apply([fg.constant([3., 4.])], [v])
    >>> [round(float(x), 4) for x in v]
    [0.8419, 1.8419]
    """

    def __init__(self, learning_rate: Any = 0.001, beta_2_decay: Any = -0.8,
                 epsilon_1: Any = 1e-30, epsilon_2: Any = 1e-3, clip_threshold: Any = 1.0,
                 relative_step: bool = True, weight_decay: Any = None, clipnorm: Any = None,
                 clipvalue: Any = None, global_clipnorm: Any = None, use_ema: bool = False,
                 ema_momentum: Any = 0.99, ema_overwrite_frequency: Any = None,
                 loss_scale_factor: Any = None, gradient_accumulation_steps: Any = None,
                 name: str | None = None, **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.beta_2_decay, self.epsilon_1, self.epsilon_2 = beta_2_decay, epsilon_1, epsilon_2
        self.clip_threshold, self.relative_step = clip_threshold, relative_step

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self._r, self._c, self._v = [], [], []
        for var in variables:   # Keras's order: each variable's r, c, then its velocity
            shape = tuple(var.shape)
            factored = len(shape) >= 2
            # a vector's r and c are unused int32 zeros, kept as Keras keeps them (so the
            # variables line up with Keras's for saving)
            self._r.append(self.add_variable(shape[:-1], dtype=var.dtype, name=_ref(var))
                           if factored else self._new_variable(np.int32(0), _ref(var)))
            self._c.append(self.add_variable(shape[:-2] + shape[-1:], dtype=var.dtype,
                                             name=_ref(var)) if factored else
                           self._new_variable(np.int32(0), _ref(var)))
            self._v.append(self.add_variable_from_reference(var, "velocity"))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(convert_to_tensor(gradient), dt)
        step = cast(self.iterations + 1, dt)
        if not callable(self._learning_rate) and self.relative_step:
            lr = minimum(lr, 1 / ew.sqrt(step))
        i = self._get_variable_index(variable)
        r, c, v = self._r[i], self._c[i], self._v[i]
        alpha = maximum(cast(self.epsilon_2, dt), _rms(variable)) * minimum(lr, 1 / ew.sqrt(step))
        g2 = ew.square(g) + self.epsilon_1
        beta_2 = 1 - _pow(step, cast(convert_to_tensor(self.beta_2_decay), dt))
        if len(variable.shape) >= 2:
            r.assign(beta_2 * r + (1 - beta_2) * reduce_mean(g2, axis=-1))
            c.assign(beta_2 * c + (1 - beta_2) * reduce_mean(g2, axis=-2))
            v.assign(expand_dims(r / reduce_mean(r, axis=-1, keepdims=True), -1) *
                     expand_dims(c, -2))
        else:
            v.assign(beta_2 * v + (1 - beta_2) * g2)
        u = g / ew.sqrt(v)
        u = u / maximum(cast(1.0, dt), _rms(u) / self.clip_threshold)
        variable.assign_sub(alpha * u)

    def get_config(self) -> Any:
        return {**super().get_config(), "beta_2_decay": self.beta_2_decay,
                "epsilon_1": self.epsilon_1, "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold, "relative_step": self.relative_step}


def _ref(var):
    return (getattr(var, "path", None) or str(var.name).split(":")[0]).replace("/", "_")

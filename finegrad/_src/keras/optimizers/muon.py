"""Keras 3's ``Muon``: momentum whose update, for each 2-D weight, is orthogonalized by a
Newton-Schulz iteration (``U V^T`` of its SVD, approximately), scaled as in Moonlight
(Liu et al. 2025); other weights (vectors, embeddings, excluded layers) take AdamW steps."""
import re
from typing import Any

from finegrad._src.keras.optimizers.base import Optimizer
from finegrad._src.ops.array.structural import cast, convert_to_tensor, transpose
from finegrad._src.ops.linalg.products import matmul, norm
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import pow as _pow


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


class Muon(Optimizer):
    """Muon: for a 2-D weight, ``m = momentum * m + g``, the direction ``g + momentum * m``
    (``m`` without ``nesterov``) orthogonalized by ``ns_steps`` quintic Newton-Schulz steps
    (coefficients ``muon_a``, ``muon_b``, ``muon_c``) and scaled by ``sqrt(max(n, m)) *
    rms_rate``; every other weight takes AdamW's step at ``lr * adam_lr_ratio``. Weight decay:
    ``weight_decay`` on Muon's weights, ``adam_weight_decay`` on AdamW's.

    >>> import finegrad as fg
    >>> v = fg.Variable([[1., 0.], [0., 1.]])
    >>> _ = fg.keras.optimizers.Muon(0.1, weight_decay=None).apply(
    ...     [fg.constant([[1., 0.], [0., 1.]])], [v])
    >>> round(float(v[0, 0]), 3)
    0.969
    """

    def __init__(self, learning_rate: Any = 0.001, adam_beta_1: Any = 0.9,
                 adam_beta_2: Any = 0.999, adam_weight_decay: Any = 0.004, epsilon: Any = 1e-7,
                 weight_decay: Any = 0.004, clipnorm: Any = None, clipvalue: Any = None,
                 global_clipnorm: Any = None, use_ema: bool = False, ema_momentum: Any = 0.99,
                 ema_overwrite_frequency: Any = None, loss_scale_factor: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 exclude_layers: Any = None, exclude_embeddings: bool = True,
                 muon_a: Any = 3.4445, muon_b: Any = -4.7750, muon_c: Any = 2.0315,
                 adam_lr_ratio: Any = 1, momentum: Any = 0.95, ns_steps: int = 5,
                 nesterov: bool = True, rms_rate: Any = 0.2, **kwargs) -> None:
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)
        self.adam_beta_1, self.adam_beta_2, self.epsilon = adam_beta_1, adam_beta_2, epsilon
        self.muon_a, self.muon_b, self.muon_c = muon_a, muon_b, muon_c
        self.adam_lr_ratio, self.momentum, self.ns_steps = adam_lr_ratio, momentum, ns_steps
        self.nesterov, self.exclude_embeddings = nesterov, exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay, self.rms_rate = adam_weight_decay, rms_rate

    def _should_use_adamw(self, variable):
        if len(variable.shape) != 2:
            return True
        path = getattr(variable, "path", None) or str(variable.name)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(k, path) for k in self.exclude_layers)

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self.momentums, self.adam_velocities = [], []
        for var in variables:
            self.momentums.append(self.add_variable_from_reference(var, "momentum"))
            self.adam_velocities.append(self.add_variable_from_reference(var, "velocity")
                                        if self._should_use_adamw(var) else None)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> Any:
        i = self._get_variable_index(variable)
        m, v = self.momentums[i], self.adam_velocities[i]
        if v is not None:
            self._adamw_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, v)
        else:
            m.assign_add(gradient + m * (self.momentum - 1))
            g = gradient + self.momentum * m if self.nesterov else m
            update = learning_rate * self.zeropower_via_newtonschulz5(g, self.ns_steps)
            variable.assign_sub(self.lr_adjust(update))

    def _adamw_step(self, gradient, variable, learning_rate, m, v):
        dt = variable.dtype
        lr, g = cast(learning_rate, dt), cast(convert_to_tensor(gradient), dt)
        step = cast(self.iterations + 1, dt)
        alpha = lr * ew.sqrt(1 - _pow(cast(self.adam_beta_2, dt), step)) / \
            (1 - _pow(cast(self.adam_beta_1, dt), step))
        m.assign_add((g - m) * (1 - self.adam_beta_1))
        v.assign_add((ew.square(g) - v) * (1 - self.adam_beta_2))
        variable.assign_sub((m * alpha) / (ew.sqrt(v) + self.epsilon))

    def lr_adjust(self, x: Any) -> Any:
        """``x * sqrt(max(rows, columns)) * rms_rate`` (Moonlight's scale; ``x`` itself when
        ``rms_rate`` is None)."""
        if self.rms_rate is None:
            return x
        return x * ew.sqrt(cast(max(x.shape[0], x.shape[1]), x.dtype)) * self.rms_rate

    def zeropower_via_newtonschulz5(self, x: Any, steps: int) -> Any:
        """``x`` (2-D or more) brought near ``U V^T`` by ``steps`` quintic Newton-Schulz
        iterations, on the wide orientation.

        Raises:
            ValueError: for fewer than 2 dimensions.
        """
        x = convert_to_tensor(x)
        shape = tuple(x.shape)
        if len(shape) < 2:
            raise ValueError(f"Expected gradient or momentum to have at least 2 dimensions. "
                             f"Received: shape={shape}")
        tall = shape[-2] > shape[-1]
        x = _swap_last(x) if tall else x
        x = x / (norm(x, axis=(-2, -1), keepdims=True) + 1e-7)
        for _ in range(steps):
            gram = matmul(x, _swap_last(x))
            x = self.muon_a * x + matmul(self.muon_b * gram + self.muon_c * matmul(gram, gram), x)
        return _swap_last(x) if tall else x

    def _apply_weight_decay(self, variables):
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            decay = self.adam_weight_decay if self._should_use_adamw(variable) \
                else self.weight_decay
            if decay is None:
                continue
            lr = cast(self.learning_rate, variable.dtype)
            variable.assign(variable - variable * cast(decay, variable.dtype) * lr)

    def get_config(self) -> Any:
        return {**super().get_config(), "adam_beta_1": self.adam_beta_1,
                "adam_beta_2": self.adam_beta_2, "epsilon": self.epsilon,
                "exclude_layers": self.exclude_layers, "muon_a": self.muon_a,
                "muon_b": self.muon_b, "muon_c": self.muon_c,
                "adam_lr_ratio": self.adam_lr_ratio, "momentum": self.momentum,
                "ns_steps": self.ns_steps, "nesterov": self.nesterov,
                "exclude_embeddings": self.exclude_embeddings,
                "adam_weight_decay": self.adam_weight_decay, "rms_rate": self.rms_rate}

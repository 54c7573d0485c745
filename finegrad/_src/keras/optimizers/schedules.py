"""Keras 3's learning-rate schedules (``keras.optimizers.schedules``): callables
``schedule(step)`` giving the learning rate at an optimizer step. They compute with finegrad
ops on the step tensor, so a schedule read inside a traced training step follows the
optimizer's ``iterations`` variable instead of freezing at the trace's value.
"""

from __future__ import annotations

import math

from typing import Any
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.math.arithmetic import minimum, pow as _pow
from finegrad._src.ops.array.structural import cast, convert_to_tensor, ones_like

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor


class LearningRateSchedule:
    """The base class: ``schedule(step)`` returns the learning rate at ``step``; subclasses
    define ``__call__`` and ``get_config``.

    >>> import finegrad as fg
    >>> class Halving(fg.keras.optimizers.schedules.LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 1. / (1. + fg.cast(step, fg.float32))
    >>> float(Halving()(1))
    0.5
    """

    def __call__(self, step: Any) -> Tensor:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  f"override `__call__(self, step)`.")

    def get_config(self) -> dict:
        """The constructor's arguments."""
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  f"override `get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A schedule made from ``get_config()``'s dict."""
        return cls(**config)


def _positive_steps(decay_steps, cls):
    if decay_steps <= 0:
        raise ValueError(f"{cls}: decay_steps must be > 0, got {decay_steps}")


def _start(initial, step):
    """The initial rate as a tensor, and the step cast to its dtype."""
    lr = convert_to_tensor(initial)
    return lr, cast(convert_to_tensor(step), lr.dtype)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored
    with ``staircase``).

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.ExponentialDecay(1., 10, 0.5)
    >>> float(s(20))
    0.25

    Raises:
        ValueError: for ``decay_steps <= 0``.
    """

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, decay_rate: Any,
                 staircase: bool = False,
                 name: str | None = "ExponentialDecay") -> None:
        _positive_steps(decay_steps, "ExponentialDecay")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def __call__(self, step: Any) -> Tensor:
        lr, step = _start(self.initial_learning_rate, step)
        p = step / cast(convert_to_tensor(self.decay_steps), lr.dtype)
        if self.staircase:
            p = ew.floor(p)
        return lr * _pow(cast(convert_to_tensor(self.decay_rate), lr.dtype), p)

    def get_config(self) -> Any:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` up to ``boundaries[0]`` (inclusive), ``values[i]`` up to
    ``boundaries[i]``, ``values[-1]`` after the last boundary.

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1., .5, .1])
    >>> [round(float(s(k)), 2) for k in (10, 11, 21)]
    [1.0, 0.5, 0.1]

    Raises:
        ValueError: when there is not one value more than boundaries.
    """

    def __init__(self, boundaries: Any, values: Any,
                 name: str | None = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"PiecewiseConstantDecay: the length of boundaries should be 1 "
                             f"less than the length of values, got boundaries={boundaries} "
                             f"and values={values}")
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step: Any) -> Tensor:
        step = convert_to_tensor(step)
        bounds = [cast(convert_to_tensor(b), step.dtype) for b in self.boundaries]
        values = [convert_to_tensor(v) for v in self.values]
        dt = values[0].dtype
        result = cast(step <= bounds[0], dt) * values[0]
        result = result + cast(step > bounds[-1], dt) * values[-1]
        for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1], strict=True):
            result = result + cast(ew.logical_and(step > low, step <= high), dt) * value
        return result

    def get_config(self) -> Any:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, the step held at
    ``decay_steps`` (or, with ``cycle``, ``decay_steps`` stretched to the next multiple).

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.PolynomialDecay(1., 10, end_learning_rate=0.)
    >>> float(s(5)), float(s(50))
    (0.5, 0.0)

    Raises:
        ValueError: for ``decay_steps <= 0``.
    """

    def __init__(self, initial_learning_rate: Any, decay_steps: Any,
                 end_learning_rate: Any = 0.0001, power: Any = 1.0,
                 cycle: bool = False, name: str | None = "PolynomialDecay") -> None:
        _positive_steps(decay_steps, "PolynomialDecay")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power = end_learning_rate, power
        self.cycle, self.name = cycle, name

    def __call__(self, step: Any) -> Tensor:
        lr, step = _start(self.initial_learning_rate, step)
        end = cast(convert_to_tensor(self.end_learning_rate), lr.dtype)
        steps = cast(convert_to_tensor(self.decay_steps), lr.dtype)
        if self.cycle:
            multiplier = ew.where(ew.equal(step, 0), ones_like(step), ew.ceil(step / steps))
            steps = steps * multiplier
        else:
            step = minimum(step, steps)
        p = step / steps
        return (lr - end) * _pow(1 - p, cast(convert_to_tensor(self.power), lr.dtype)) + end

    def get_config(self) -> Any:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio floored
    with ``staircase``).

    >>> import finegrad as fg
    >>> float(fg.keras.optimizers.schedules.InverseTimeDecay(1., 10, 1.)(10))
    0.5

    Raises:
        ValueError: for ``decay_steps <= 0``.
    """

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, decay_rate: Any,
                 staircase: bool = False,
                 name: str | None = "InverseTimeDecay") -> None:
        _positive_steps(decay_steps, "InverseTimeDecay")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def __call__(self, step: Any) -> Tensor:
        lr, step = _start(self.initial_learning_rate, step)
        p = step / cast(convert_to_tensor(self.decay_steps), lr.dtype)
        if self.staircase:
            p = ew.floor(p)
        return lr / (1 + cast(convert_to_tensor(self.decay_rate), lr.dtype) * p)

    def get_config(self) -> Any:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the rate to ``alpha`` times it over ``decay_steps``; with
    ``warmup_target``, first a linear warmup from ``initial_learning_rate`` to
    ``warmup_target`` over ``warmup_steps``, then the decay from ``warmup_target``.

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.CosineDecay(0., 10, warmup_target=1., warmup_steps=4)
    >>> [round(float(s(k)), 3) for k in (2, 4, 9, 14)]
    [0.5, 1.0, 0.5, 0.0]

    Raises:
        ValueError: for ``decay_steps <= 0``.
    """

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: str | None = "CosineDecay",
                 warmup_target: Any = None, warmup_steps: Any = 0) -> None:
        _positive_steps(decay_steps, "CosineDecay")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def _decay(self, step, steps, start):
        cosine = 0.5 * (1.0 + ew.cos(math.pi * (step / steps)))
        return start * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> Tensor:
        lr, step = _start(self.initial_learning_rate, step)
        steps = cast(convert_to_tensor(self.decay_steps), lr.dtype)
        if self.warmup_target is None:
            return self._decay(minimum(step, steps), steps, lr)
        target = cast(convert_to_tensor(self.warmup_target), lr.dtype)
        warmup = cast(convert_to_tensor(self.warmup_steps), lr.dtype)
        step = minimum(step, steps + warmup)
        warming = (target - lr) * (step / warmup) + lr
        return ew.where(step < warmup, warming, self._decay(step - warmup, steps, target))

    def get_config(self) -> Any:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps`` times
    ``t_mul ** i``, each restart's rate scaled by ``m_mul ** i``.

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.CosineDecayRestarts(1., 10, t_mul=1.)
    >>> [round(float(s(k)), 3) for k in (0, 5, 10)]
    [1.0, 0.5, 1.0]

    Raises:
        ValueError: for ``first_decay_steps <= 0``.
    """

    def __init__(self, initial_learning_rate: Any, first_decay_steps: Any, t_mul: Any = 2.0,
                 m_mul: Any = 1.0,
                 alpha: Any = 0.0, name: str | None = "SGDRDecay") -> None:
        _positive_steps(first_decay_steps, "CosineDecayRestarts")
        self.initial_learning_rate, self.first_decay_steps = (initial_learning_rate,
                                                              first_decay_steps)
        self._t_mul, self._m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step: Any) -> Tensor:
        lr, step = _start(self.initial_learning_rate, step)
        fraction = step / cast(convert_to_tensor(self.first_decay_steps), lr.dtype)
        if self._t_mul == 1.0:
            restart = ew.floor(fraction)
            fraction = fraction - restart
        else:
            t_mul = cast(convert_to_tensor(self._t_mul), lr.dtype)
            restart = ew.floor(ew.log(1.0 - fraction * (1.0 - t_mul)) / ew.log(t_mul))
            done = (1.0 - _pow(t_mul, restart)) / (1.0 - t_mul)
            fraction = (fraction - done) / _pow(t_mul, restart)
        m_fac = _pow(cast(convert_to_tensor(self._m_mul), lr.dtype), restart)
        cosine = 0.5 * m_fac * (1.0 + ew.cos(math.pi * fraction))
        return lr * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self) -> Any:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_BY_NAME = {cls.__name__: cls for cls in (
    LearningRateSchedule, ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
    InverseTimeDecay, CosineDecay, CosineDecayRestarts)}


def serialize(learning_rate_schedule: Any) -> dict:
    """Keras's config dict of a schedule.

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.InverseTimeDecay(1., 10, 1.)
    >>> fg.keras.optimizers.schedules.serialize(s)["class_name"]
    'InverseTimeDecay'
    """
    return {"module": "keras.optimizers.schedules",
            "class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The schedule a `serialize` dict describes.

    >>> import finegrad as fg
    >>> s = fg.keras.optimizers.schedules.deserialize(
    ...     {"class_name": "ExponentialDecay", "config": {"initial_learning_rate": 1.,
    ...      "decay_steps": 2, "decay_rate": .5}})
    >>> float(s(2))
    0.5

    Raises:
        ValueError: for an unknown class name.
    """
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"keras.optimizers.schedules.deserialize: unknown schedule {name!r}")
    return cls.from_config(config.get("config", {}))

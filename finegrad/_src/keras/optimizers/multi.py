"""Keras 3's ``MultiOptimizer`` and ``OptimizerMap``: each variable updated by the optimizer
its path maps to (an exact key, else the one regular expression that fully matches it, else
the default), or that a function of the variable returns."""
from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any

from finegrad._src.keras.optimizers.base import Optimizer, serialize
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer


def _path(variable):
    return getattr(variable, "path", None) or str(variable.name).split(":")[0]


class OptimizerMap(MutableMapping):
    """Variable paths (or regular expressions over them) -> optimizers, with a default.

    >>> import finegrad as fg
    >>> O = fg.keras.optimizers
    >>> m = O.OptimizerMap(O.RMSprop(), {"encoder/.*": O.SGD()})
    >>> type(m["encoder/dense/kernel"]).__name__, type(m["decoder/kernel"]).__name__
    ('SGD', 'RMSprop')

    Raises:
        TypeError: for a default that is not an optimizer, or a map that is not a dict.
    """

    def __init__(self, default_optimizer: Any, optimizer_map: Any = None) -> None:
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(f"default_optimizer must be a Keras Optimizer instance. Received: "
                            f"{default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = dict(optimizer_map or {})

    @property
    def default_optimizer(self) -> Any:
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             f"duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        _check_inner(optimizer)
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable: Any) -> Any:
        return self[_path(variable)]

    def get_config(self) -> Any:
        return {"default_optimizer": serialize(self._default_optimizer),
                "optimizer_map": {k: serialize(v) for k, v in self._optimizer_map.items()}}


def _check_inner(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: {optimizer}")
    if isinstance(optimizer, LossScaleOptimizer):
        raise ValueError("optimizer cannot be LossScaleOptimizer.")
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError("optimizer cannot be MultiOptimizer.")


class MultiOptimizer(Optimizer):
    """Delegates each variable to the optimizer ``optimizer_map`` gives it (an
    `OptimizerMap`, or a function of the variable); each inner optimizer steps its own
    variables, and ``iterations`` counts the steps of the whole. It has no learning rate of
    its own (reading or setting it is an AttributeError).

    >>> import finegrad as fg
    >>> O = fg.keras.optimizers
    >>> a, b = fg.Variable(1., name="enc"), fg.Variable(1., name="dec")
    >>> opt = O.MultiOptimizer(O.OptimizerMap(O.SGD(0.5), {"enc": O.SGD(0.1)}))
    >>> opt.apply([fg.constant(1.), fg.constant(1.)], [a, b])
    >>> round(float(a), 4), round(float(b), 4), int(opt.iterations)
    (0.9, 0.5, 1)
    """

    def __init__(self, optimizer_map: Any, loss_scale_factor: Any = None,
                 name: str | None = None) -> None:
        self._inner_optimizers: list[Any] = []
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        candidates = list(optimizer_map.values()) if hasattr(optimizer_map, "values") else []
        default = getattr(optimizer_map, "default_optimizer", None)
        for opt in candidates + ([default] if default is not None else []):
            self._add_inner(opt)

    def _add_inner(self, opt):
        if all(opt is not o for o in self._inner_optimizers):
            opt.loss_scale_factor = self.loss_scale_factor
            self._inner_optimizers.append(opt)
        return next(i for i, o in enumerate(self._inner_optimizers) if o is opt)

    def build(self, variables: Any) -> None:
        if self.built:
            return
        variables = list(variables)
        self._owner = {}
        groups: dict[int, list] = {}
        for var in variables:
            opt = self._optimizer_map(var)
            _check_inner(opt)
            idx = self._add_inner(opt)
            self._owner[id(var)] = idx
            groups.setdefault(idx, []).append(var)
        for idx, opt in enumerate(self._inner_optimizers):
            if groups.get(idx):
                opt.build(groups[idx])
        super().build(variables)

    @property
    def optimizers(self) -> Any:
        """The inner optimizers."""
        return self._inner_optimizers

    @property
    def variables(self) -> Any:
        out = self._variables[:]
        for opt in self._inner_optimizers:
            out.extend(opt.variables)
        return out

    @property
    def learning_rate(self) -> Any:
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access the "
                             "learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the "
                             "learning rate on the individual sub-optimizers instead.")

    @property
    def loss_scale_factor(self) -> Any:
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value: Any) -> None:
        self._loss_scale_factor = value
        for opt in self.__dict__.get("_inner_optimizers", ()):
            opt.loss_scale_factor = value

    def apply(self, grads: Any, trainable_variables: Any = None) -> Any:
        grads = list(grads)
        if not grads:
            return
        variables = self._variables_for(grads, trainable_variables)
        if len(grads) != len(self._owner):
            raise ValueError(f"Gradients must match trainable variables one-to-one. Received "
                             f"{len(grads)} gradients and {len(self._owner)} variables.")
        groups: dict[int, tuple[list, list]] = {}
        for g, v in zip(grads, variables, strict=True):
            gs, vs = groups.setdefault(self._owner[id(v)], ([], []))
            gs.append(g)
            vs.append(v)
        for idx, opt in enumerate(self._inner_optimizers):
            if idx in groups:
                opt.apply(*groups[idx])
        self._iterations.assign_add(1)

    def get_config(self) -> Any:
        optimizer_map = self._optimizer_map
        if isinstance(optimizer_map, OptimizerMap):
            optimizer_map = {"module": "keras.optimizers", "class_name": "OptimizerMap",
                             "config": optimizer_map.get_config(), "registered_name": None}
        return {"optimizer_map": optimizer_map, "loss_scale_factor": self.loss_scale_factor,
                "name": self.name}

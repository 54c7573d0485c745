"""``tf.train.ExponentialMovingAverage``: shadow copies of variables that follow them.

`apply` makes, for each variable, a non-trainable shadow variable named
``<variable>/<name>`` that starts at the variable's value, and moves every shadow toward its
variable: ``shadow -= (1 - decay) * (shadow - variable)``. With ``num_updates`` (usually
the global step) the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``, so
that early averages follow faster. Eagerly `apply` updates at once and returns None; in a
TF1 graph it returns the operation that updates (run it after each training step).
"""
from __future__ import annotations

from typing import Any

from finegrad._src import dtypes
from finegrad._src.api.scopes import control_dependencies, no_op
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.math.arithmetic import minimum
from finegrad._src.variables import Variable


def _base_name(var: Any) -> str:
    return str(getattr(var, "name", "Variable")).rpartition(":")[0] or str(var.name)


class ExponentialMovingAverage:
    """Moving averages of variables, kept in shadow variables (see the module).

    >>> import finegrad as fg
    >>> w = fg.Variable([1., 2.], name="w")
    >>> ema = fg.train.ExponentialMovingAverage(0.9)
    >>> ema.apply([w])
    >>> _ = w.assign([3., 4.])
    >>> ema.apply([w])
    >>> ema.average(w).numpy()
    array([1.2, 2.2], dtype=float32)
    """

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage") -> None:
        if zero_debias:
            raise NotImplementedError("finegrad.train.ExponentialMovingAverage: zero_debias=True "
                                      "is not supported")
        self._decay, self._num_updates, self._name = decay, num_updates, name
        self._averages: dict[int, tuple[Any, Variable]] = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Any = None) -> Any:
        """Make the shadows of ``var_list`` that do not exist yet and move every shadow of
        it toward its variable; None eagerly, the update's operation in a TF1 graph."""
        if var_list is None:
            raise ValueError("finegrad.train.ExponentialMovingAverage.apply: var_list is "
                             "needed (finegrad keeps no collection of moving-average "
                             "variables to default to)")
        variables = list(var_list)
        for v in variables:
            if not (hasattr(v, "dtype") and dtypes.as_dtype(v.dtype).is_floating):
                raise TypeError(f"finegrad.train.ExponentialMovingAverage.apply: the "
                                f"variables must be of a float dtype, got {v!r:.60}")
            if id(v) not in self._averages:
                shadow = Variable(v.read_value() if hasattr(v, "read_value") else v,
                                  trainable=False, name=f"{_base_name(v)}/{self._name}")
                self._averages[id(v)] = (v, shadow)
        decay = self._decay_tensor()
        updates = []
        for v in variables:
            shadow = self._averages[id(v)][1]
            step = (shadow - v) * cast(1. - decay, shadow.dtype)
            updates.append(shadow.assign_sub(step))
        with control_dependencies(updates):   # (eagerly: done already; no_op is None)
            return no_op(name=self._name)

    def _decay_tensor(self) -> Any:
        decay = convert_to_tensor(self._decay, dtype=dtypes.float32)
        if self._num_updates is None:
            return decay
        n = cast(self._num_updates, dtypes.float32)
        return minimum(decay, (1. + n) / (10. + n))

    def average(self, var: Any) -> Any:
        """The shadow variable of ``var`` (None if `apply` never saw it)."""
        got = self._averages.get(id(var))
        return None if got is None else got[1]

    def average_name(self, var: Any) -> str:
        """The name of ``var``'s shadow variable (``<variable>/<name>``)."""
        return f"{_base_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Any]:
        """For a Saver that loads averages into the variables: each averaged variable under
        its shadow's name."""
        return {self.average_name(v): v for v, _ in self._averages.values()}


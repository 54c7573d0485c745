"""Dtype policies: the dtype a layer computes in and the dtype its variables are stored in.

``"float32"`` computes and stores in float32; ``"mixed_float16"`` computes in float16 and keeps
the variables in float32 (what mixed-precision training relies on: the optimizer updates
float32 weights, the layer reads them cast to float16). The cast happens where the variable is
read: a `KerasVariable` read inside a layer's ``call`` under an autocast scope yields the
value cast to the scope's dtype, a differentiable cast, so gradients reach the float32
variable.
"""

from __future__ import annotations

from typing import Any

import threading

from finegrad._src import dtypes
from finegrad._src.ops.array.structural import cast
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor

_POLICIES = {"float16": ("float16", "float16"), "float32": ("float32", "float32"),
             "float64": ("float64", "float64"), "mixed_float16": ("float16", "float32"),
             "int32": ("int32", "int32"), "int64": ("int64", "int64"), "bool": ("bool", "bool")}


class DTypePolicy:
    """A layer's compute and variable dtypes, named as Keras names them.

    >>> from finegrad._src.keras.dtype_policies import DTypePolicy
    >>> p = DTypePolicy("mixed_float16")
    >>> p.compute_dtype, p.variable_dtype
    ('float16', 'float32')
    """

    def __init__(self, name: Any = None) -> None:
        name = floatx() if name is None else name
        if isinstance(name, dtypes.DType):
            name = name.name
        if name not in _POLICIES:
            raise ValueError(f"keras.DTypePolicy: cannot convert {name!r} to a dtype policy; "
                             f"expected one of {sorted(_POLICIES)}")
        self._name = name
        self._compute_dtype, self._variable_dtype = _POLICIES[name]

    @property
    def name(self) -> str:
        return self._name
    @property
    def compute_dtype(self) -> str:
        return self._compute_dtype
    @property
    def variable_dtype(self) -> str:
        return self._variable_dtype

    def get_config(self) -> Any:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: Any) -> Any:
        return cls(**config)

    quantization_mode: Any = None    # a quantized policy's mode ("int8", "int4", "float8")

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f'<{type(self).__name__} "{self._name}">'


class QuantizedDTypePolicy(DTypePolicy):
    """A quantized layer's policy, named ``"<mode>_from_<source policy>"``: it computes and
    keeps its float variables as the source policy does.

    >>> QuantizedDTypePolicy("int8", "float32").name
    'int8_from_float32'
    """

    def __init__(self, mode: str, source_name: Any = None) -> None:
        source = global_policy().name if source_name is None else source_name
        super().__init__(source)
        base = str(mode).split("/")[0]
        if base not in ("int8", "float8", "int4", "gptq", "awq"):
            raise ValueError(f"keras.dtype_policies.QuantizedDTypePolicy: Invalid quantization "
                             f"mode. Expected one of ('int8', 'float8', 'int4', 'gptq', "
                             f"'awq'). Received: mode={mode}")
        self._source_name, self._mode = source, str(mode)
        self._name = f"{mode}_from_{source}"
        self.quantization_mode = base

    @property
    def source_name(self) -> str:
        return self._source_name

    def get_config(self) -> Any:
        return {"mode": self._mode, "source_name": self._source_name}


class Int4DTypePolicy(QuantizedDTypePolicy):
    """int4's policy, ``"int4/<block_size>_from_<source>"`` (block size -1: one scale per
    output unit)."""

    def __init__(self, mode: str, source_name: Any = None) -> None:
        parts = str(mode).split("/")
        if len(parts) != 2 or parts[0] != "int4" or not parts[1].lstrip("-").isdigit() \
                or int(parts[1]) < -1 or int(parts[1]) == 0:
            raise ValueError(f"keras.dtype_policies.Int4DTypePolicy: Invalid mode. Expected "
                             f"format 'int4/<block_size>' with block_size -1 or positive, "
                             f"but got '{mode}'.")
        super().__init__(mode, source_name)
        self.block_size = int(parts[1])


class GPTQDTypePolicy(QuantizedDTypePolicy):
    """GPTQ's policy, ``"gptq/<weight_bits>/<group_size>_from_<source>"``."""

    def __init__(self, mode: str, source_name: Any = None) -> None:
        parts = str(mode).split("/")
        ok = len(parts) == 3 and parts[0] == "gptq" and all(
            p.lstrip("-").isdigit() for p in parts[1:])
        if not ok or int(parts[1]) not in (2, 3, 4, 8) or int(parts[2]) < -1 or \
                int(parts[2]) == 0:
            raise ValueError(f"keras.dtype_policies.GPTQDTypePolicy: Invalid mode. Expected "
                             f"format 'gptq/<weight_bits>/<group_size>' (bits 2, 3, 4 or 8; "
                             f"group size -1 or positive), but got '{mode}'.")
        super().__init__(mode, source_name)
        self.weight_bits, self.group_size = int(parts[1]), int(parts[2])


class AWQDTypePolicy(QuantizedDTypePolicy):
    """AWQ's policy, ``"awq/4/<group_size>_from_<source>"`` (AWQ has 4 bits only).

    >>> AWQDTypePolicy("awq/4/-1", "float32").group_size
    -1
    """

    def __init__(self, mode: str, source_name: Any = None) -> None:
        parts = str(mode).split("/")
        ok = len(parts) == 3 and parts[0] == "awq" and all(
            p.lstrip("-").isdigit() for p in parts[1:])
        if not ok or int(parts[1]) != 4 or int(parts[2]) < -1 or int(parts[2]) == 0:
            raise ValueError(f"keras.dtype_policies.AWQDTypePolicy: Invalid mode. Expected "
                             f"format 'awq/<weight_bits>/<group_size>' (4 bits; group size "
                             f"-1 or positive), but got '{mode}'.")
        super().__init__(mode, source_name)
        self.weight_bits, self.group_size = int(parts[1]), int(parts[2])


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """float8's policy, with the length of its amax histories (1024 by default)."""

    default_amax_history_length = 1024

    def __init__(self, mode: str, source_name: Any = None,
                 amax_history_length: int = 1024) -> None:
        super().__init__(mode, source_name)
        if not isinstance(amax_history_length, int):
            raise TypeError(f"keras.dtype_policies.QuantizedFloat8DTypePolicy: "
                            f"`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        self.amax_history_length = amax_history_length

    def get_config(self) -> Any:
        return dict(super().get_config(), amax_history_length=self.amax_history_length)


_QUANTIZED = {c.__name__: c for c in (QuantizedDTypePolicy, Int4DTypePolicy,
                                      QuantizedFloat8DTypePolicy, GPTQDTypePolicy,
                                      AWQDTypePolicy)}


def quantized_policy(name: str) -> Any:
    """The quantized policy a name like ``"int4/128_from_float32"`` stands for."""
    mode, _, source = name.partition("_from_")
    if mode.startswith("int4/"):
        return Int4DTypePolicy(mode, source)
    if mode.startswith("gptq/"):
        return GPTQDTypePolicy(mode, source)
    if mode.startswith("awq/"):
        return AWQDTypePolicy(mode, source)
    if mode == "float8":
        return QuantizedFloat8DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


class _Global(threading.local):
    def __init__(self):
        self.autocast = None   # the dtype variables read inside a layer's call are cast to


_global = _Global()
_settings: dict[str, Any] = {"floatx": "float32", "policy": None, "epsilon": 1e-7,
             "image_data_format": "channels_last"}


def floatx() -> Any:
    """The default float dtype, as a string (``"float32"`` unless set).

    >>> from finegrad._src.keras.dtype_policies import floatx
    >>> floatx()
    'float32'
    """
    return _settings["floatx"]


def set_floatx(value: Any) -> Any:
    """Set the default float dtype (``"float16"``, ``"float32"`` or ``"float64"``)."""
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"keras.backend.set_floatx: unknown dtype {value!r}; expected "
                         f"'float16', 'float32' or 'float64'")
    _settings["floatx"] = str(value)


def set_global_policy(policy: Any) -> Any:
    """Set the policy that layers built without ``dtype=`` use (``keras.mixed_precision``).

    >>> from finegrad._src.keras import dtype_policies as dp
    >>> dp.set_global_policy("mixed_float16"); dp.global_policy().compute_dtype
    'float16'
    >>> dp.set_global_policy("float32")
    """
    if policy is None:
        _settings["policy"] = None
        return
    _settings["policy"] = policy if isinstance(policy, DTypePolicy) else DTypePolicy(policy)


def global_policy() -> Any:
    """The policy layers built without ``dtype=`` use."""
    return _settings["policy"] or DTypePolicy(floatx())


def get(identifier: Any) -> Any:
    """A `DTypePolicy` from None (the global policy), a name, a dtype, a config or a policy."""
    if identifier is None:
        return global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        if identifier.get("class_name") in _QUANTIZED:
            return _QUANTIZED[identifier["class_name"]](**identifier["config"])
        return DTypePolicy(**identifier.get("config", identifier))
    if isinstance(identifier, str) and "_from_" in identifier:
        return quantized_policy(identifier)
    return DTypePolicy(dtypes.as_dtype(identifier).name if not isinstance(identifier, str)
                       else identifier)


def serialize(policy: Any) -> Any:
    if isinstance(policy, QuantizedDTypePolicy):
        return {"module": "keras.dtype_policies", "class_name": type(policy).__name__,
                "config": policy.get_config(), "registered_name": None}
    return {"module": "keras", "class_name": "DTypePolicy",
            "config": policy.get_config(), "registered_name": None}


class autocast_scope:
    """Inside, floating `KerasVariable` reads are cast to ``dtype`` (None: no casting)."""

    def __init__(self, dtype):
        self._dtype = dtype

    def __enter__(self):
        self._saved, _global.autocast = _global.autocast, self._dtype

    def __exit__(self, *exc):
        _global.autocast = self._saved


class KerasVariable(Variable):
    """A finegrad `Variable` made by a Keras layer: named ``name``, with ``path``
    ``"layer/name"``, a regularizer and a constraint, and cast on reads under autocast.

    >>> import finegrad as fg
    >>> from finegrad._src.keras.dtype_policies import KerasVariable, autocast_scope
    >>> v = KerasVariable(fg.ones((2,)), name="kernel", path="dense/kernel")
    >>> with autocast_scope("float16"):
    ...     (v * 2.).dtype
    finegrad.float16
    """

    overwrite_with_gradient = False   # the optimizer assigns its gradient (float8's state)

    def __init__(self, initializer: Any, shape: Any = None, dtype: Any = None,
                 trainable: bool = True, autocast: bool = True, aggregation: str = "none",
                 name: str | None = None, path: Any = None, regularizer: Any = None,
                 constraint: Any = None, **kwargs: Any) -> None:
        if callable(initializer) and not isinstance(initializer, Variable):
            if shape is None:
                raise ValueError("keras.Variable: when creating a Variable from an "
                                 "initializer, the `shape` argument should be specified.")
            initializer = initializer(tuple(shape), dtype=dtype or floatx())
        super().__init__(initializer, trainable=trainable, name=name, dtype=dtype)
        self.name = "variable" if name is None else str(name)
        self.path = self.name if path is None else path
        self.autocast, self.aggregation = autocast, aggregation
        self.regularizer = regularizer
        self.constraint = constraint

    def _as_tensor(self):
        t = super()._as_tensor()
        target = _global.autocast
        if target is not None and self.autocast and t.dtype.is_floating \
                and t.dtype.name != target:
            return cast(t, target)
        return t

    def read_value(self) -> Tensor:
        """The value in the variable's own dtype, never autocast: what ``custom_gradient``
        takes as the variable's read, so the gradient its ``grad_fn`` gives for the variable
        has the variable's dtype (float32 under mixed precision), as in TensorFlow."""
        return super()._as_tensor()

    @property   # Keras 3: a property; tf.Variable.value is a method
    def value(self) -> Any:  # type: ignore[override]
        """The current value as a tensor (a property in Keras 3)."""
        return self._as_tensor()

    def __repr__(self):
        return (f"<KerasVariable shape={tuple(self.shape)}, dtype={self.dtype.name}, "
                f"path={self.path}>")

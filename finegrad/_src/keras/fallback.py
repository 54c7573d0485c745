"""Resolving ``initializer=``, ``regularizer=`` and ``constraint=`` arguments of `add_weight`.

The Keras modules (`initializers`, `regularizers`, `constraints`) give the full set of names;
until they are present this module knows the three initializers every layer needs.
"""
import numpy as np

from finegrad._src import dtypes

try:   # the keras-support modules, when present
    from finegrad._src.keras import initializers as _initializers
except ImportError:  # pragma: no cover - depends on the branch state
    _initializers = None
try:
    from finegrad._src.keras import regularizers as _regularizers
except ImportError:  # pragma: no cover
    _regularizers = None
try:
    from finegrad._src.keras import constraints as _constraints
except ImportError:  # pragma: no cover
    _constraints = None

_rng = np.random.default_rng()


def _glorot_uniform(shape, dtype=None):
    fan_in, fan_out = (shape[-2], shape[-1]) if len(shape) >= 2 else \
        ((shape[0], shape[0]) if shape else (1, 1))
    if len(shape) > 2:
        receptive = int(np.prod(shape[:-2]))
        fan_in, fan_out = fan_in * receptive, fan_out * receptive
    limit = np.sqrt(6.0 / max(1.0, (fan_in + fan_out)))
    return _rng.uniform(-limit, limit, shape).astype(dtypes.as_dtype(dtype or "float32")._np)


_BASIC = {"zeros": lambda shape, dtype=None: np.zeros(shape, dtypes.as_dtype(dtype)._np),
          "ones": lambda shape, dtype=None: np.ones(shape, dtypes.as_dtype(dtype)._np),
          "glorot_uniform": _glorot_uniform}


def get_initializer(identifier):
    """A callable ``(shape, dtype=...) -> value`` for ``identifier``."""
    if _initializers is not None:
        return _initializers.get(identifier)
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BASIC:
        return _BASIC[identifier.lower()]
    raise ValueError(f"keras.initializers.get: could not interpret initializer identifier: "
                     f"{identifier!r}")


def get_regularizer(identifier):
    if identifier is None:
        return None
    if _regularizers is not None:
        return _regularizers.get(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"keras.regularizers.get: could not interpret regularizer identifier: "
                     f"{identifier!r}")


def get_constraint(identifier):
    if identifier is None:
        return None
    if _constraints is not None:
        return _constraints.get(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"keras.constraints.get: could not interpret constraint identifier: "
                     f"{identifier!r}")

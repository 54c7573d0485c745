"""Keras 3's initializers (``keras.initializers``): configured callables
``init(shape, dtype=None)`` returning a tensor of ``floatx`` (float32) by default.

The random ones follow Keras 3 on TensorFlow: an initializer with an integer ``seed`` draws
from the stateless op seeded ``[seed, 0]``, so every call gives the same values (Keras's own
values: TensorFlow's stateless kernels are reproduced by finegrad's). An unseeded one picks a
seed when it is made (from Python's ``random``, as Keras does), so one instance gives the same
values on every call and two instances differ.
"""

from __future__ import annotations

import math
import random as _py_random

from typing import Any

from finegrad._src.keras.registration import serialize_object
from finegrad._src import dtypes
from finegrad._src.ops.random import sampling as random_ops
from finegrad._src.ops.array.structural import cast, convert_to_tensor, reshape, transpose
from finegrad._src.ops.array.constants import eye, ones as _ones, zeros as _zeros
from finegrad._src.ops.math.elementwise import sign
from finegrad._src.ops.linalg.diag_inv_det import diag_part
from finegrad._src.ops.linalg.svd_qr import qr
from finegrad._src.shapes import as_ints

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor

_FLOATX = "float32"


def _float_dtype(dtype, fn):
    dt = dtypes.as_dtype(_FLOATX if dtype is None else dtype)
    if not dt.is_floating:
        raise ValueError(f"{fn}: expected a float dtype, got {dt.name}")
    return dt


def _shape(shape, fn):
    return tuple(as_ints(shape, fn, "shape"))


class Initializer:
    """The base class: ``init(shape, dtype=None)`` returns a tensor; ``get_config`` and
    ``from_config`` save and rebuild the initializer.

    >>> import finegrad as fg
    >>> init = fg.keras.initializers.Ones()
    >>> type(init).from_config(init.get_config())((2,)).numpy()
    array([1., 1.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}: an initializer defines __call__")

    def get_config(self) -> dict:
        """The constructor's arguments, as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """An initializer made from ``get_config()``'s dict."""
        return cls(**config)

    def clone(self) -> Any:
        """A new initializer with the same configuration."""
        return self.__class__.from_config(self.get_config())


class Zeros(Initializer):
    """Fills with 0.

    >>> import finegrad as fg
    >>> fg.keras.initializers.Zeros()((2,)).numpy()
    array([0., 0.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return _zeros(_shape(shape, "Zeros"), dtypes.as_dtype(dtype or _FLOATX))


class Ones(Initializer):
    """Fills with 1.

    >>> import finegrad as fg
    >>> fg.keras.initializers.Ones()((2,)).numpy()
    array([1., 1.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return _ones(_shape(shape, "Ones"), dtypes.as_dtype(dtype or _FLOATX))


class Constant(Initializer):
    """Fills with the scalar ``value`` (cast to the dtype).

    >>> import finegrad as fg
    >>> fg.keras.initializers.Constant(3.)((2,)).numpy()
    array([3., 3.], dtype=float32)
    """

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        dt = dtypes.as_dtype(dtype or _FLOATX)
        return cast(convert_to_tensor(self.value), dt) * _ones(_shape(shape, "Constant"), dt)

    def get_config(self) -> Any:
        return {"value": self.value}


class Identity(Initializer):
    """``gain`` times the identity matrix, for 2-D shapes only.

    >>> import finegrad as fg
    >>> fg.keras.initializers.Identity(2.)((2, 2)).numpy()
    array([[2., 0.],
           [0., 2.]], dtype=float32)

    Raises:
        ValueError: for a shape that is not 2-D.
    """

    def __init__(self, gain: Any = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        shape = _shape(shape, "Identity")
        if len(shape) != 2:
            raise ValueError(f"Identity: the shape must be 2-D, got {shape}")
        return self.gain * eye(shape[0], shape[1], dtype=_float_dtype(dtype, "Identity"))

    def get_config(self) -> Any:
        return {"gain": self.gain}


IdentityInitializer = Identity


class RandomInitializer(Initializer):
    """The base of the seeded initializers; ``seed`` is an int or None (a seed is picked now)."""

    def __init__(self, seed: Any = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"{type(self).__name__}: seed must be an int or None, got "
                             f"{seed!r} of type {type(seed).__name__}")
        self._init_seed = seed
        self.seed = _py_random.randint(1, 10**9) if seed is None else seed

    def _seed(self):
        return [self.seed, 0]

    def get_config(self) -> Any:
        return {"seed": self._init_seed}


class RandomNormal(RandomInitializer):
    """Normal values of mean ``mean`` and standard deviation ``stddev``.

    >>> import finegrad as fg
    >>> fg.keras.initializers.RandomNormal(seed=1)((3,)).shape
    TensorShape([3])
    """

    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: Any = None) -> None:
        self.mean, self.stddev = mean, stddev
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return random_ops.stateless_normal(_shape(shape, "RandomNormal"), self._seed(), self.mean,
                                           self.stddev, _float_dtype(dtype, "RandomNormal"))

    def get_config(self) -> Any:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class TruncatedNormal(RandomInitializer):
    """Normal values redrawn outside two standard deviations of the mean.

    >>> import finegrad as fg
    >>> x = fg.keras.initializers.TruncatedNormal(stddev=1., seed=1)((100,))
    >>> bool(fg.reduce_max(fg.abs(x)) <= 2.)
    True
    """

    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: Any = None) -> None:
        self.mean, self.stddev = mean, stddev
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return random_ops.stateless_truncated_normal(
            _shape(shape, "TruncatedNormal"), self._seed(), self.mean, self.stddev,
            _float_dtype(dtype, "TruncatedNormal"))

    def get_config(self) -> Any:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class RandomUniform(RandomInitializer):
    """Uniform values in ``[minval, maxval)``.

    >>> import finegrad as fg
    >>> x = fg.keras.initializers.RandomUniform(0., 1., seed=1)((100,))
    >>> bool(fg.reduce_min(x) >= 0.)
    True
    """

    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05, seed: Any = None) -> None:
        self.minval, self.maxval = minval, maxval
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return random_ops.stateless_uniform(_shape(shape, "RandomUniform"), self._seed(),
                                            self.minval, self.maxval,
                                            _float_dtype(dtype, "RandomUniform"))

    def get_config(self) -> Any:
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


def compute_fans(shape: Any, input_axes: Any = None, output_axes: Any = None) -> Any:
    """``(fan_in, fan_out)`` of a weight shape: the products over ``input_axes`` and
    ``output_axes`` when both are given; else convolution kernels ``(..., in, out)`` count
    their receptive field.

    >>> from finegrad._src.keras.initializers import compute_fans
    >>> compute_fans((3, 3, 4, 8))
    (36, 72)
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return (int(math.prod(shape[a] for a in input_axes)),
                int(math.prod(shape[a] for a in output_axes)))
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive = math.prod(shape[:-2])
    return int(shape[-2] * receptive), int(shape[-1] * receptive)


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")
# the standard deviation of a unit normal truncated to [-2, 2]
_TRUNCATED_STD = 0.87962566103423978


class VarianceScaling(RandomInitializer):
    """Values whose variance is ``scale / n``, ``n`` the fan chosen by ``mode`` (``fan_in``,
    ``fan_out``, ``fan_avg``), drawn from ``distribution`` (``truncated_normal``,
    ``untruncated_normal`` or ``uniform``).

    >>> import finegrad as fg
    >>> init = fg.keras.initializers.VarianceScaling(2., "fan_in", "uniform", seed=1)
    >>> x = init((200, 10))
    >>> bool(fg.reduce_max(fg.abs(x)) <= (3 * 2. / 200) ** 0.5)
    True

    Raises:
        ValueError: for a scale that is not positive, or an unknown mode or distribution.
    """

    def __init__(self, scale: Any = 1.0, mode: Any = "fan_in",
                 distribution: Any = "truncated_normal", seed: Any = None,
                 input_axes: Any = None, output_axes: Any = None) -> None:
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale}")
        if mode not in _MODES:
            raise ValueError(f"VarianceScaling: mode must be one of {_MODES}, got {mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling: distribution must be one of {_DISTRIBUTIONS}, "
                             f"got {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        fn = type(self).__name__
        shape, dt = _shape(shape, fn), _float_dtype(dtype, fn)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, fan[self.mode])
        if self.distribution == "truncated_normal":
            return random_ops.stateless_truncated_normal(
                shape, self._seed(), 0.0, math.sqrt(scale) / _TRUNCATED_STD, dt)
        if self.distribution == "untruncated_normal":
            return random_ops.stateless_normal(shape, self._seed(), 0.0, math.sqrt(scale), dt)
        limit = math.sqrt(3.0 * scale)
        return random_ops.stateless_uniform(shape, self._seed(), -limit, limit, dt)

    def get_config(self) -> Any:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "input_axes": self.input_axes, "output_axes": self.output_axes,
                **super().get_config()}


def _variance_scaling(name, scale, mode, distribution, doc):
    def __init__(self: Any, seed: Any = None, input_axes: Any = None,
                 output_axes: Any = None) -> None:
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes, output_axes)

    def get_config(self: Any) -> dict:
        return {"seed": self._init_seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}

    return type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                           "__doc__": doc, "__module__": __name__})


_EXAMPLE = """

    >>> import finegrad as fg
    >>> fg.keras.initializers.{}(seed=1)((4, 3)).shape
    TensorShape([4, 3])
    """
GlorotUniform = _variance_scaling(
    "GlorotUniform", 1.0, "fan_avg", "uniform",
    "Glorot (Xavier) uniform: ``U(-l, l)``, ``l = sqrt(6 / (fan_in + fan_out))``."
    + _EXAMPLE.format("GlorotUniform"))
GlorotNormal = _variance_scaling(
    "GlorotNormal", 1.0, "fan_avg", "truncated_normal",
    "Glorot (Xavier) normal: truncated normal of variance ``2 / (fan_in + fan_out)``."
    + _EXAMPLE.format("GlorotNormal"))
HeUniform = _variance_scaling(
    "HeUniform", 2.0, "fan_in", "uniform",
    "He uniform: ``U(-l, l)``, ``l = sqrt(6 / fan_in)``." + _EXAMPLE.format("HeUniform"))
HeNormal = _variance_scaling(
    "HeNormal", 2.0, "fan_in", "truncated_normal",
    "He normal: truncated normal of variance ``2 / fan_in``." + _EXAMPLE.format("HeNormal"))
LecunUniform = _variance_scaling(
    "LecunUniform", 1.0, "fan_in", "uniform",
    "LeCun uniform: ``U(-l, l)``, ``l = sqrt(3 / fan_in)``." + _EXAMPLE.format("LecunUniform"))
LecunNormal = _variance_scaling(
    "LecunNormal", 1.0, "fan_in", "truncated_normal",
    "LeCun normal: truncated normal of variance ``1 / fan_in``." + _EXAMPLE.format("LecunNormal"))


class Orthogonal(RandomInitializer):
    """An orthogonal matrix (times ``gain``) from the QR decomposition of a normal draw; a
    shape of more than 2 dimensions is flattened to ``(prod(shape[:-1]), shape[-1])``.

    >>> import finegrad as fg
    >>> q = fg.keras.initializers.Orthogonal(seed=1)((3, 3))
    >>> bool(fg.reduce_max(fg.abs(fg.matmul(q, q, transpose_a=True) - fg.eye(3))) < 1e-5)
    True

    Raises:
        ValueError: for a shape of fewer than 2 dimensions.
    """

    def __init__(self, gain: Any = 1.0, seed: Any = None) -> None:
        self.gain = gain
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        shape, dt = _shape(shape, "Orthogonal"), _float_dtype(dtype, "Orthogonal")
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the shape must have at least 2 dimensions, got "
                             f"{shape}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = random_ops.stateless_normal((max(rows, cols), min(rows, cols)), self._seed(),
                                        dtype=dt)
        q, r = qr(a)
        q = q * sign(diag_part(r))
        if rows < cols:
            q = transpose(q)
        return self.gain * reshape(q, shape)

    def get_config(self) -> Any:
        return {"gain": self.gain, **super().get_config()}


OrthogonalInitializer = Orthogonal

_ALIASES = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
    "random_normal": RandomNormal, "random_uniform": RandomUniform,
    # Keras 3's short aliases (Embedding's default is "uniform")
    "zero": Zeros, "one": Ones, "normal": RandomNormal, "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_uniform": HeUniform, "he_normal": HeNormal, "lecun_uniform": LecunUniform,
    "lecun_normal": LecunNormal, "orthogonal": Orthogonal,
}
_CLASSES = {cls.__name__: cls for cls in set(_ALIASES.values())}
_CLASSES.update(IdentityInitializer=Identity, OrthogonalInitializer=Orthogonal)


def serialize(initializer: Any) -> dict | None:
    """Keras's config dict (None for None) of an initializer: ``{"module", "class_name",
    "config", ...}``.

    >>> import finegrad as fg
    >>> fg.keras.initializers.serialize(fg.keras.initializers.Zeros())["class_name"]
    'Zeros'
    """
    return serialize_object(initializer, "keras.initializers")


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The initializer a `serialize` dict (or a class name / alias string) describes.

    >>> import finegrad as fg
    >>> type(fg.keras.initializers.deserialize({"class_name": "Ones", "config": {}})).__name__
    'Ones'

    Raises:
        ValueError: for an unknown class name.
    """
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name) or _ALIASES.get(name)
    if cls is None:
        raise ValueError(f"keras.initializers.deserialize: unknown initializer {name!r}")
    return cls.from_config(config.get("config", {}))


def get(identifier: Any) -> Any:
    """An initializer from an identifier: None, an alias (``"glorot_uniform"``), a class name,
    a config dict, a class (instantiated) or a callable (returned).

    >>> import finegrad as fg
    >>> type(fg.keras.initializers.get("he_normal")).__name__
    'HeNormal'

    Raises:
        ValueError: for an identifier that names no initializer.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _ALIASES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            raise ValueError(f"keras.initializers.get: could not interpret initializer "
                             f"identifier {identifier!r}")
        return cls()
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"keras.initializers.get: could not interpret initializer identifier "
                     f"{identifier!r}")


zeros, ones, constant, identity = Zeros, Ones, Constant, Identity
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal, he_uniform, he_normal = (GlorotUniform, GlorotNormal, HeUniform,
                                                        HeNormal)
lecun_uniform, lecun_normal = LecunUniform, LecunNormal

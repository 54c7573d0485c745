"""Keras's normalization layers: `BatchNormalization`, `LayerNormalization`,
`GroupNormalization`, `RMSNormalization`, `UnitNormalization`.

Statistics are computed in at least float32 (a float16 input under "mixed_float16" is cast
up, the output cast back), with the biased variance (``tf.nn.moments``). BatchNormalization
keeps ``moving_mean`` and ``moving_variance`` as non-trainable weights: a training call
(``training=True`` and the layer trainable) normalizes with the batch's statistics and
updates them as ``moving = moving * momentum + batch * (1 - momentum)``; any other call uses
them.
"""

from __future__ import annotations

from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.core import weight_config, weight_options
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import (cast, expand_dims, ones_like, reduce_sum,
                                                reshape, stop_gradient)
from finegrad._src.ops.nn.normalization_and_losses import batch_normalization
from finegrad._src.ops.math.arithmetic import maximum, minimum
from finegrad._src.ops.math.reductions import reduce_mean
from finegrad._src.ops.math.statistics import moments

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor


def _at_least_float32(x):
    return cast(x, "float32") if x.dtype.name in ("float16", "bfloat16") else x


def _axis_list(axis, rank, layer):
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"keras.layers.{layer}: axis {axis} is out of bounds for an input "
                             f"of rank {rank}")
    return sorted(a % rank for a in axes)


def _broadcast_shape(rank, axes, input_shape):
    shape = [1] * rank
    for a in axes:
        shape[a] = input_shape[a]
    return shape


class _AffineNormalization(Layer):
    """The constructor arguments shared by the normalizations: axis, epsilon, center, scale
    and the beta/gamma weights' options."""

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                 beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                 **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon, self.center, self.scale = axis, epsilon, center, scale
        weight_options(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        weight_options(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)
        self.supports_masking = True

    def _affine_weights(self, shape, gamma=True, beta=True):
        self.gamma = self.add_weight(name="gamma", shape=shape,
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     autocast=False) if gamma else None
        self.beta = self.add_weight(name="beta", shape=shape,
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    autocast=False) if beta else None

    def compute_output_shape(self, input_shape):
        return input_shape

    def _affine_config(self):
        return dict(axis=self.axis, epsilon=self.epsilon, center=self.center, scale=self.scale)


class BatchNormalization(_AffineNormalization):
    """Normalizes each feature (along ``axis``) by the batch's mean and variance in
    training and by moving averages of them otherwise, then scales by ``gamma`` and shifts
    by ``beta``.

    Args:
        axis: the feature axis (default -1).
        momentum: the moving averages' decay (default 0.99).
        epsilon: added to the variance (default 1e-3).
        center, scale: whether to use ``beta`` and ``gamma``.
        synchronized: accepted (one process: no effect).
        renorm: batch renormalization (Ioffe 2017): in training the batch-normalized values
            are corrected by ``r = batch std / renorm std`` and ``d = (batch mean - renorm
            mean) / renorm std`` (no gradient through them), clipped by ``renorm_clipping``
            (keys ``rmin``, ``rmax``, ``dmax``); the renorm statistics move with
            ``renorm_momentum``, and the moving variance follows a moving stddev.

    Raises:
        ValueError: for unknown ``renorm_clipping`` keys, ``rmax < rmin`` or ``dmax < 0``.

    >>> import finegrad as fg
    >>> bn = fg.keras.layers.BatchNormalization()
    >>> y = bn(fg.constant([[0.], [2.]]), training=True)
    >>> [round(float(v), 4) for v in y[:, 0]], round(float(bn.moving_mean[0]), 6)
    ([-0.9995, 0.9995], 0.01)
    """

    moving_mean_initializer: Any   # for the type checker: set by weight_options
    moving_variance_initializer: Any

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: str = "zeros",
                 gamma_initializer: str = "ones", moving_mean_initializer: str = "zeros",
                 moving_variance_initializer: str = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, synchronized: bool = False, renorm: bool = False,
                 renorm_clipping: Any = None, renorm_momentum: float = 0.99, **kwargs: Any) -> None:
        super().__init__(int(axis), epsilon, center, scale, beta_initializer,
                         gamma_initializer, beta_regularizer, gamma_regularizer,
                         beta_constraint, gamma_constraint, **kwargs)
        if renorm:
            renorm_clipping = _check_renorm_clipping(renorm_clipping or {})
        self.momentum, self.synchronized = momentum, synchronized
        self.renorm, self.renorm_clipping, self.renorm_momentum = \
            renorm, renorm_clipping, renorm_momentum
        weight_options(self, "moving_mean", moving_mean_initializer)
        weight_options(self, "moving_variance", moving_variance_initializer)

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self._feature_axis = _axis_list(self.axis, rank, "BatchNormalization")[0]
        shape = (input_shape[self.axis],)
        self._affine_weights(shape, self.scale, self.center)
        self.moving_mean = self.add_weight(name="moving_mean", shape=shape, trainable=False,
                                           initializer=self.moving_mean_initializer,
                                           autocast=False)
        self.moving_variance = self.add_weight(name="moving_variance", shape=shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, autocast=False)
        if self.renorm:
            self._renorm_weights(shape)
        self._reduction_axes = [a for a in range(rank) if a != self._feature_axis]
        self.built = True

    def _moments(self, x, mask):
        if mask is None:
            return moments(x, self._reduction_axes)
        m = ew.logical_and(expand_dims(cast(mask, "bool"), -1), ones_like(x, dtype="bool"))
        weights = reduce_sum(cast(m, x.dtype), self._reduction_axes, keepdims=True) + 1e-7
        zero = cast(0.0, x.dtype)
        mean = reduce_sum(ew.where(m, x, zero), self._reduction_axes, keepdims=True) / weights
        sq = ew.square(ew.where(m, x - mean, zero))
        variance = reduce_sum(sq, self._reduction_axes, keepdims=True) / weights
        return reshape(mean, [-1]), reshape(variance, [-1])

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Tensor:
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:
            raise ValueError(f"keras.layers.BatchNormalization: the mask must have one axis "
                             f"fewer than the inputs, got mask shape {tuple(mask.shape)} and "
                             f"inputs shape {tuple(inputs.shape)}")
        out_dtype = inputs.dtype
        x = _at_least_float32(inputs)
        moving_mean = cast(self.moving_mean, x.dtype)
        moving_variance = cast(self.moving_variance, x.dtype)
        gamma = None if self.gamma is None else cast(self.gamma, x.dtype)
        beta = None if self.beta is None else cast(self.beta, x.dtype)
        if training and self.trainable:
            mean, variance = self._moments(x, mask)
            if self.renorm:
                gamma, beta = self._renorm_transform(mean, variance, gamma, beta, x.dtype)
            else:
                self.moving_mean.assign(moving_mean * self.momentum +
                                        mean * (1.0 - self.momentum))
                self.moving_variance.assign(moving_variance * self.momentum +
                                            variance * (1.0 - self.momentum))
        else:
            mean, variance = moving_mean, moving_variance
        shape = _broadcast_shape(len(x.shape), [self._feature_axis], list(x.shape))
        gamma = None if gamma is None else reshape(gamma, shape)
        beta = None if beta is None else reshape(beta, shape)
        y = batch_normalization(x, reshape(mean, shape), reshape(variance, shape), beta, gamma,
                                self.epsilon)
        return cast(y, out_dtype)

    def _renorm_weights(self, shape):
        """The moving stddev (beside the moving variance) and the renorm statistics, in
        Keras's order; the stddevs start at the square root of the variance initializer."""
        def stddev_init(shape, dtype=None):
            return ew.sqrt(self.moving_variance_initializer(shape, dtype=dtype))
        self.moving_stddev = self.add_weight(name="moving_stddev", shape=shape,
                                             initializer=stddev_init, trainable=False,
                                             autocast=False)
        self.renorm_mean = self.add_weight(name="renorm_mean", shape=shape, trainable=False,
                                           initializer=self.moving_mean_initializer,
                                           autocast=False)
        self.renorm_stddev = self.add_weight(name="renorm_stddev", shape=shape,
                                             initializer=stddev_init, trainable=False,
                                             autocast=False)

    def _renorm_transform(self, mean, variance, gamma, beta, dtype):
        """``(x r + d) gamma + beta`` as one scale and offset, and the statistics' updates."""
        stddev = ew.sqrt(variance + self.epsilon)
        renorm_mean = cast(self.renorm_mean, mean.dtype)
        renorm_stddev = cast(self.renorm_stddev, mean.dtype)
        floor = ew.sqrt(cast(self.epsilon, mean.dtype))
        r = stddev / maximum(renorm_stddev, floor)
        d = (mean - renorm_mean) / maximum(renorm_stddev, floor)
        clip = self.renorm_clipping
        r = r if clip.get("rmin") is None else maximum(r, clip["rmin"])
        r = r if clip.get("rmax") is None else minimum(r, clip["rmax"])
        d = d if clip.get("dmax") is None else minimum(maximum(d, -clip["dmax"]), clip["dmax"])
        r, d = stop_gradient(r), stop_gradient(d)
        new_gamma = cast(r, dtype) if gamma is None else r * gamma
        new_beta = cast(d, dtype) if gamma is None else d * gamma
        new_beta = new_beta if beta is None else new_beta + beta
        m = self.renorm_momentum
        self.renorm_mean.assign(renorm_mean * m + mean * (1.0 - m))
        self.renorm_stddev.assign(renorm_stddev * m + stddev * (1.0 - m))
        self.moving_mean.assign(cast(self.moving_mean, mean.dtype) * self.momentum +
                                mean * (1.0 - self.momentum))
        moving_stddev = cast(self.moving_stddev, mean.dtype) * self.momentum + \
            stddev * (1.0 - self.momentum)
        self.moving_stddev.assign(moving_stddev)
        self.moving_variance.assign(ew.relu(moving_stddev * moving_stddev - self.epsilon))
        return new_gamma, new_beta

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(self._affine_config(), momentum=self.momentum)
        config.update(weight_config(self, "beta", "gamma", "moving_mean", "moving_variance",
                                    constraints_too=False))
        for key in ("moving_mean_regularizer", "moving_variance_regularizer"):
            config.pop(key)
        config.update(beta_constraint=weight_config(self, "beta")["beta_constraint"],
                      gamma_constraint=weight_config(self, "gamma")["gamma_constraint"],
                      synchronized=self.synchronized, renorm=self.renorm,
                      renorm_clipping=self.renorm_clipping,
                      renorm_momentum=self.renorm_momentum)
        return config


def _check_renorm_clipping(clipping):
    unknown = set(clipping) - {"rmax", "rmin", "dmax"}
    if unknown:
        raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {clipping}. "
                         f"Supported values: ['rmax', 'rmin', 'dmax'].")
    rmax, rmin, dmax = clipping.get("rmax"), clipping.get("rmin"), clipping.get("dmax")
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError(f"rmax should be greater than rmin in the `renorm_clipping` argument. "
                         f"Received: rmax={rmax}, rmin={rmin}.")
    if dmax is not None and dmax < 0:
        raise ValueError(f"dmax should be non-negative in the `renorm_clipping` argument. "
                         f"Received: dmax={dmax}.")
    return clipping


def _normalize(x, axes, gamma, beta, epsilon, shape):
    """``(x - mean) * rsqrt(var + epsilon) * gamma + beta`` over ``axes``, in Keras's order
    (the scale folded into ``inv`` first)."""
    mean, variance = moments(x, axes, keepdims=True)
    inv = ew.rsqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * reshape(cast(gamma, x.dtype), shape)
    res = -mean * inv
    if beta is not None:
        res = res + reshape(cast(beta, x.dtype), shape)
    return x * inv + res


class LayerNormalization(_AffineNormalization):
    """Normalizes each example over ``axis`` (default the last), then scales and shifts by
    the per-feature ``gamma`` and ``beta``; ``rms_scaling`` divides by the root mean square
    of the deviations only (no centering, no beta).

    >>> import finegrad as fg
    >>> ln = fg.keras.layers.LayerNormalization()
    >>> [round(float(v), 4) for v in ln(fg.constant([[1., 3.]]))[0]]
    [-0.9995, 0.9995]
    """

    def __init__(self, axis: int = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, rms_scaling: bool = False, beta_initializer: str = "zeros",
                 gamma_initializer: str = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        self.rms_scaling = rms_scaling

    def build(self, input_shape: Any) -> None:
        self._axes = _axis_list(self.axis, len(input_shape), "LayerNormalization")
        if isinstance(self.axis, int):
            self.axis = [self.axis]    # (as Keras's config then has it)
        shape = tuple(input_shape[a] for a in self._axes)
        self._affine_weights(shape, self.scale or self.rms_scaling,
                             self.center and not self.rms_scaling)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        x = _at_least_float32(inputs)
        shape = _broadcast_shape(len(x.shape), self._axes, list(x.shape))
        if self.rms_scaling:
            _, variance = moments(x, self._axes, keepdims=True)
            y = x * ew.rsqrt(variance + self.epsilon)
            if self.gamma is not None:
                y = y * reshape(cast(self.gamma, x.dtype), shape)
        else:
            y = _normalize(x, self._axes, self.gamma, self.beta, self.epsilon, shape)
        return cast(y, inputs.dtype)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(self._affine_config(), rms_scaling=self.rms_scaling)
        config.update(weight_config(self, "beta", "gamma"))
        return config


class GroupNormalization(_AffineNormalization):
    """Splits the channels (``axis``) into ``groups`` and normalizes each example over each
    group's channels and all other non-batch axes; then per-channel ``gamma`` and ``beta``.

    >>> import finegrad as fg
    >>> gn = fg.keras.layers.GroupNormalization(groups=2)
    >>> gn(fg.ones([1, 3, 4])).shape
    TensorShape([1, 3, 4])
    """

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: str = "zeros",
                 gamma_initializer: str = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        self.groups = groups

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self._axis = _axis_list(self.axis, rank, "GroupNormalization")[0]
        channels = input_shape[self._axis]
        if channels is None:
            raise ValueError(f"keras.layers.GroupNormalization: axis {self.axis} of the input "
                             f"shape {tuple(input_shape)} must have a known size")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups or channels % self.groups:
            raise ValueError(f"keras.layers.GroupNormalization: groups ({self.groups}) must "
                             f"divide the number of channels ({channels}) and be at most it")
        self._affine_weights((channels,), self.scale, self.center)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        x = _at_least_float32(inputs)
        a, sizes = self._axis, [int(n) if n is not None else -1 for n in x.shape]
        grouped = sizes[:a] + [self.groups, sizes[a] // self.groups] + sizes[a + 1:]
        grouped[0] = -1
        g = reshape(x, grouped)
        axes = [i for i in range(1, len(grouped)) if i != a]
        shape = [1] * len(grouped)
        shape[a], shape[a + 1] = self.groups, sizes[a] // self.groups
        y = _normalize(g, axes, self.gamma, self.beta, self.epsilon, shape)
        return cast(reshape(y, [-1] + sizes[1:]), inputs.dtype)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(groups=self.groups, **self._affine_config())
        config.update(weight_config(self, "beta", "gamma"))
        return config


class RMSNormalization(Layer):
    """Divides by the root mean square over ``axis`` and multiplies by a learned
    per-feature ``scale``: ``x * rsqrt(mean(x^2) + epsilon) * scale``.

    >>> import finegrad as fg
    >>> y = fg.keras.layers.RMSNormalization()(fg.constant([[3., 4.]]))
    >>> [round(float(v), 4) for v in y[0]]
    [0.8485, 1.1314]
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis: Any = axis     # (a list once built, as in Keras)
        self.epsilon = epsilon

    def build(self, input_shape: Any) -> None:
        self._axes = _axis_list(self.axis, len(input_shape), "RMSNormalization")
        if isinstance(self.axis, int):
            self.axis = [self.axis]    # (as Keras's config then has it)
        self.scale = self.add_weight(name="scale", shape=tuple(input_shape[a] for a in
                                                               self._axes),
                                     initializer="ones")
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        x = _at_least_float32(inputs)
        shape = _broadcast_shape(len(x.shape), self._axes, list(x.shape))
        rrms = ew.rsqrt(reduce_mean(ew.square(x), self._axes, keepdims=True) + self.epsilon)
        y = x * rrms * reshape(cast(self.scale, x.dtype), shape)
        return cast(y, inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon)
        return config


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis``: ``x * min(rsqrt(sum(x^2)),
    1e12)``.

    >>> import finegrad as fg
    >>> fg.keras.layers.UnitNormalization()(fg.constant([[3., 4.]])).numpy()
    array([[0.6, 0.8]], dtype=float32)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"keras.layers.UnitNormalization: axis must be an int or a list of "
                            f"ints, got {axis!r}")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        inv = ew.rsqrt(reduce_sum(ew.square(inputs), self.axis, keepdims=True))
        return inputs * minimum(inv, cast(1e12, inputs.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axis=self.axis)
        return config

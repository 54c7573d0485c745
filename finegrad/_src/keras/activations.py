"""Keras 3's activation functions (``keras.activations``), written with finegrad ops so every
mode and order of differentiation comes from the ops' own rules, and ``get`` to look one up
by name (``"relu"``, ``"swish"``...), as layers' ``activation=`` argument does.
"""
from typing import Any

from finegrad._src.ops.nn.activations import gelu as _nn_gelu, relu6 as _nn_relu6
from finegrad._src.ops.nn.activations import selu as _nn_selu
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array.structural import (cast, convert_to_tensor, ones_like, split,
                                                zeros_like)
from finegrad._src.ops.nn.softmax_cross_entropy import (log_softmax as _nn_log_softmax,
                                                        softmax as _nn_softmax)
from finegrad._src.ops.math.reductions import cumsum, reduce_sum
from finegrad._src.ops.math.sorting import sort
from finegrad._src.ops.math.inverse_trig import log_sigmoid as _nn_log_sigmoid
from finegrad._src.ops.nn.embedding_and_bias import softsign as _nn_softsign


def _t(x):
    return convert_to_tensor(x)


def relu(x: Any, negative_slope: Any = 0.0, max_value: Any = None, threshold: Any = 0.0) -> Any:
    """Rectified linear unit: ``x`` above ``threshold`` (else 0), clipped at ``max_value``,
    minus ``negative_slope * relu(threshold - x)`` below the threshold.

    >>> import finegrad as fg
    >>> fg.keras.activations.relu([-10., -5., 0., 5., 10.], negative_slope=0.5).numpy()
    array([-5. , -2.5,  0. ,  5. , 10. ], dtype=float32)
    """
    x = _t(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope)
    if negative_slope != 0.0:
        negative_part = ew.relu(threshold - x if threshold != 0 else -x)
    if threshold != 0:
        y = ew.where(x > threshold, x, zeros_like(x))
    else:
        y = ew.relu(x)
    if max_value is not None:
        y = ar.minimum(ar.maximum(y, 0.0), max_value)
    if negative_slope != 0.0:
        y = y - negative_slope * negative_part
    return y


def leaky_relu(x: Any, negative_slope: Any = 0.2) -> Any:
    """``x`` where ``x > 0``, else ``negative_slope * x``.

    >>> import finegrad as fg
    >>> fg.keras.activations.leaky_relu([-1., 2.]).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    x = _t(x)
    return ew.where(x > 0, x, x * negative_slope)


def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)``.

    >>> import finegrad as fg
    >>> fg.keras.activations.relu6([-1., 7.]).numpy()
    array([0., 6.], dtype=float32)
    """
    return _nn_relu6(_t(x))


def softmax(x: Any, axis: Any = -1) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``.

    >>> import finegrad as fg
    >>> fg.keras.activations.softmax([[0., 0.]]).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """
    return _nn_softmax(_t(x), axis=axis)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    """``x - logsumexp(x)`` along ``axis``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.log_softmax([0., 0.])[0]), 4)
    -0.6931
    """
    return _nn_log_softmax(_t(x), axis=axis)


def elu(x: Any, alpha: Any = 1.0) -> Any:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.elu(-1., alpha=2.)), 4)
    -1.2642
    """
    x = _t(x)
    # expm1 of the clipped value: exp of a large x would overflow into the unused branch
    return ew.where(x > 0, x, alpha * ew.expm1(ar.minimum(x, 0)))


def selu(x: Any) -> Any:
    """Scaled ELU: ``scale * x`` for ``x > 0``, else ``scale * alpha * (exp(x) - 1)``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.selu(1.)), 5)
    1.0507
    """
    return _nn_selu(_t(x))


def celu(x: Any, alpha: Any = 1.0) -> Any:
    """``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.celu(-1.)), 4)
    -0.6321
    """
    x = _t(x)
    return ew.relu(x) + ar.minimum(0.0, alpha * ew.expm1(ar.minimum(x, 0) / alpha))


def softplus(x: Any) -> Any:
    """``log(exp(x) + 1)``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.softplus(0.)), 4)
    0.6931
    """
    return ew.softplus(_t(x))


def softsign(x: Any) -> Any:
    """``x / (abs(x) + 1)``.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.softsign(1.))
    0.5
    """
    return _nn_softsign(_t(x))


def soft_shrink(x: Any, threshold: Any = 0.5) -> Any:
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0.

    >>> import finegrad as fg
    >>> fg.keras.activations.soft_shrink([-1., 0.2, 1.]).numpy()
    array([-0.5,  0. ,  0.5], dtype=float32)
    """
    x = _t(x)
    return ew.where(x > threshold, x - threshold,
                    ew.where(x < -threshold, x + threshold, zeros_like(x)))


def hard_shrink(x: Any, threshold: Any = 0.5) -> Any:
    """``x`` where ``abs(x) > threshold``, else 0.

    >>> import finegrad as fg
    >>> fg.keras.activations.hard_shrink([-1., 0.2, 1.]).numpy()
    array([-1.,  0.,  1.], dtype=float32)
    """
    x = _t(x)
    return ew.where(ew.abs(x) > threshold, x, zeros_like(x))


def sparse_plus(x: Any) -> Any:
    """0 for ``x <= -1``, ``(x + 1)^2 / 4`` for ``-1 < x < 1``, ``x`` for ``x >= 1``.

    >>> import finegrad as fg
    >>> fg.keras.activations.sparse_plus([-2., 0., 2.]).numpy()
    array([0.  , 0.25, 2.  ], dtype=float32)
    """
    x = _t(x)
    return ew.where(x <= -1, zeros_like(x), ew.where(x >= 1, x, 0.25 * ew.square(x + 1)))


def silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (also called swish).

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.silu(1.)), 5)
    0.73106
    """
    x = _t(x)
    return x * ew.sigmoid(x)


swish = silu


def squareplus(x: Any, b: Any = 4) -> Any:
    """``(x + sqrt(x^2 + b)) / 2``.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.squareplus(0.))
    1.0
    """
    x = _t(x)
    return (x + ew.sqrt(ew.square(x) + b)) / 2


def gelu(x: Any, approximate: bool = False) -> Any:
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate`` uses the tanh form.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.gelu(1.)), 5)
    0.84134
    """
    return _nn_gelu(_t(x), approximate=approximate)


def glu(x: Any, axis: Any = -1) -> Any:
    """Gated linear unit: ``a * sigmoid(b)``, ``a, b`` the two halves of ``x`` along ``axis``.

    >>> import finegrad as fg
    >>> fg.keras.activations.glu([[2., 0.]]).numpy()
    array([[1.]], dtype=float32)

    Raises:
        ValueError: when the axis has an odd size.
    """
    x = _t(x)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: axis {axis} of x must have an even size, got shape {x.shape}")
    a, b = split(x, 2, axis=axis)
    return a * ew.sigmoid(b)


def tanh(x: Any) -> Any:
    """Hyperbolic tangent.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.tanh(0.))
    0.0
    """
    return ew.tanh(_t(x))


def tanh_shrink(x: Any) -> Any:
    """``x - tanh(x)``.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.tanh_shrink(0.))
    0.0
    """
    x = _t(x)
    return x - ew.tanh(x)


def hard_tanh(x: Any) -> Any:
    """``x`` clipped to ``[-1, 1]``.

    >>> import finegrad as fg
    >>> fg.keras.activations.hard_tanh([-3., 0.5, 3.]).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return ar.minimum(ar.maximum(_t(x), -1.0), 1.0)


def threshold(x: Any, threshold: Any, default_value: Any) -> Any:
    """``x`` where ``x > threshold``, else ``default_value``.

    >>> import finegrad as fg
    >>> fg.keras.activations.threshold([0., 2.], 1., -1.).numpy()
    array([-1.,  2.], dtype=float32)
    """
    x = _t(x)
    return ew.where(x > threshold, x, zeros_like(x) + default_value)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))``.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.sigmoid(0.))
    0.5
    """
    return ew.sigmoid(_t(x))


def sparse_sigmoid(x: Any) -> Any:
    """0 for ``x <= -1``, ``(x + 1) / 2`` between, 1 for ``x >= 1``.

    >>> import finegrad as fg
    >>> fg.keras.activations.sparse_sigmoid([-2., 0., 2.]).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    return ar.minimum(ar.maximum((_t(x) + 1) / 2, 0.0), 1.0)


def exponential(x: Any) -> Any:
    """``exp(x)``.

    >>> import finegrad as fg
    >>> float(fg.keras.activations.exponential(0.))
    1.0
    """
    return ew.exp(_t(x))


def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, ``x / 6 + 0.5`` between.

    >>> import finegrad as fg
    >>> fg.keras.activations.hard_sigmoid([-4., 0., 4.]).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    return _nn_relu6(_t(x) + 3.0) / 6.0


def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)`` (also called hard swish).

    >>> import finegrad as fg
    >>> float(fg.keras.activations.hard_silu(3.))
    3.0
    """
    x = _t(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def linear(x: Any) -> Any:
    """The identity: returns ``x`` unchanged.

    >>> import finegrad as fg
    >>> fg.keras.activations.linear(2.)
    2.0
    """
    return x


def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))``.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.mish(1.)), 5)
    0.8651
    """
    x = _t(x)
    return x * ew.tanh(ew.softplus(x))


def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x))``, computed stably.

    >>> import finegrad as fg
    >>> round(float(fg.keras.activations.log_sigmoid(0.)), 4)
    -0.6931
    """
    return _nn_log_sigmoid(_t(x))


def sparsemax(x: Any, axis: Any = -1) -> Any:
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis``.

    >>> import finegrad as fg
    >>> fg.keras.activations.sparsemax([[2., 0., -1.]]).numpy()
    array([[1., 0., 0.]], dtype=float32)
    """
    x = _t(x)
    z = sort(x, axis=axis, direction="DESCENDING")
    k = cumsum(ones_like(z), axis=axis)
    support = cast(1 + k * z > cumsum(z, axis=axis), x.dtype)
    count = reduce_sum(support, axis=axis, keepdims=True)
    tau = (reduce_sum(z * support, axis=axis, keepdims=True) - 1) / count
    return ew.relu(x - tau)


_ALL = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign, squareplus,
        soft_shrink, sparse_plus, silu, gelu, glu, tanh, tanh_shrink, threshold, sigmoid,
        sparse_sigmoid, exponential, hard_sigmoid, hard_silu, hard_tanh, hard_shrink, linear,
        mish, log_softmax, log_sigmoid, sparsemax)
_BY_NAME = {fn.__name__: fn for fn in _ALL}
_BY_NAME.update(swish=silu, hard_swish=hard_silu)


def serialize(activation: Any) -> str:
    """The name of a built-in activation (what a layer's config stores).

    >>> import finegrad as fg
    >>> fg.keras.activations.serialize(fg.keras.activations.relu)
    'relu'

    Raises:
        ValueError: for a function that is not one of keras.activations.
    """
    name = str(getattr(activation, "__name__", ""))
    if _BY_NAME.get(name) is not activation:
        raise ValueError(f"keras.activations.serialize: unknown activation function "
                         f"{activation!r}")
    return name


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The activation a name (or ``{"config": name}`` dict) stands for.

    >>> import finegrad as fg
    >>> fg.keras.activations.deserialize("swish").__name__
    'silu'

    Raises:
        ValueError: for an unknown name.
    """
    name = config.get("config") if isinstance(config, dict) else config
    fn = (custom_objects or {}).get(name) or _BY_NAME.get(str(name))
    if fn is None:
        raise ValueError(f"keras.activations.deserialize: unknown activation {name!r}")
    return fn


def get(identifier: Any) -> Any:
    """An activation function from an identifier: None (``linear``), a name, a config dict or
    a callable (returned as is).

    >>> import finegrad as fg
    >>> fg.keras.activations.get("relu") is fg.keras.activations.relu
    True

    Raises:
        ValueError: for an identifier that is neither a known name nor callable.
    """
    if identifier is None:
        return linear
    obj = identifier
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    if callable(obj):
        return obj
    raise ValueError(f"keras.activations.get: could not interpret activation function "
                     f"identifier: {identifier!r}")

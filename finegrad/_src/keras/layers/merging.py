"""Keras's merging layers: `Add`, `Subtract`, `Multiply`, `Average`, `Maximum`, `Minimum`,
`Concatenate`, `Dot`. Each takes a list of tensors; the elementwise ones broadcast, and their
output mask is the OR of the inputs' masks (None unless every input has one).
"""

from __future__ import annotations

from finegrad._src.keras.layer import Layer
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.math import arithmetic
from finegrad._src.ops.array.structural import concat, expand_dims, ones_like, zeros_like
from finegrad._src.ops.math.statistics import l2_normalize, reduce_any

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor
    from finegrad._src.types import TensorLike


class _Merge(Layer):
    _build_config_on_call = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def _check(self, inputs, exactly=None):
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"keras.layers.{name}: must be called on a list of tensors, got "
                             f"{type(inputs).__name__}")
        if exactly is not None and len(inputs) != exactly:
            raise ValueError(f"keras.layers.{name}: must be called on exactly {exactly} "
                             f"inputs, got {len(inputs)}")
        if len(inputs) < 1:
            raise ValueError(f"keras.layers.{name}: must be called on at least 1 input")
        return list(inputs)

    def call(self, inputs):
        inputs = self._check(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = self._combine(out, x)
        return out

    def compute_mask(self, inputs, mask=None):
        if mask is None or not isinstance(mask, (list, tuple)) or any(m is None for m in mask):
            return None
        out = mask[0]
        for m in mask[1:]:
            out = ew.logical_or(out, m)
        return out

    def compute_output_shape(self, input_shape):
        shapes = [list(s) for s in input_shape]
        rank = max(len(s) for s in shapes)
        out = []
        for i in range(rank):
            sizes = [s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0]
            known = [n for n in sizes if n not in (None, 1)]
            out.append(known[0] if known else (None if None in sizes else 1))
        return tuple(out)


class Add(_Merge):
    """The sum of the inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Add()([fg.ones([2]), fg.ones([2])]).numpy()
    array([2., 2.], dtype=float32)
    """

    def _combine(self, a, b):
        return a + b


class Subtract(_Merge):
    """The first input minus the second (exactly two inputs).

    >>> import finegrad as fg
    >>> fg.keras.layers.Subtract()([fg.ones([2]), fg.ones([2])]).numpy()
    array([0., 0.], dtype=float32)
    """

    def call(self, inputs: TensorLike) -> Tensor:
        a, b = self._check(inputs, exactly=2)
        return a - b


class Multiply(_Merge):
    """The elementwise product of the inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Multiply()([fg.constant([2.]), fg.constant([3.])]).numpy()
    array([6.], dtype=float32)
    """

    def _combine(self, a, b):
        return a * b


class Average(_Merge):
    """The mean of the inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Average()([fg.constant([2.]), fg.constant([4.])]).numpy()
    array([3.], dtype=float32)
    """

    def call(self, inputs: Any) -> Any:
        inputs = self._check(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out / len(inputs)


class Maximum(_Merge):
    """The elementwise maximum of the inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Maximum()([fg.constant([2.]), fg.constant([4.])]).numpy()
    array([4.], dtype=float32)
    """

    def _combine(self, a, b):
        return arithmetic.maximum(a, b)


class Minimum(_Merge):
    """The elementwise minimum of the inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.Minimum()([fg.constant([2.]), fg.constant([4.])]).numpy()
    array([2.], dtype=float32)
    """

    def _combine(self, a, b):
        return arithmetic.minimum(a, b)


class Concatenate(_Merge):
    """Joins the inputs along ``axis`` (default -1).

    >>> import finegrad as fg
    >>> fg.keras.layers.Concatenate()([fg.ones([2, 1]), fg.ones([2, 3])]).shape
    TensorShape([2, 4])
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: TensorLike) -> Tensor:
        return concat(self._check(inputs), axis=self.axis)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None or not isinstance(mask, (list, tuple)) or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask, strict=True):
            if m is None:
                masks.append(ones_like(x, dtype="bool"))
            elif len(m.shape) < len(x.shape):
                masks.append(ew.logical_or(expand_dims(m, -1), zeros_like(x, dtype="bool")))
            else:
                masks.append(m)
        return reduce_any(concat(masks, axis=self.axis), axis=-1)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = [list(s) for s in input_shape]
        out = list(shapes[0])
        axis = self.axis % len(out)
        sizes = [s[axis] for s in shapes]
        out[axis] = None if None in sizes else sum(sizes)
        return tuple(out)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axis=self.axis)
        return config


def batch_dot(x, y, axes):
    """Keras's ``batch_dot``: per example (axis 0), the dot product of ``x`` and ``y``
    over ``x``'s axis ``axes[0]`` and ``y``'s axis ``axes[1]``; the output keeps ``x``'s
    other axes then ``y``'s, and has at least rank 2."""
    rx, ry = len(x.shape), len(y.shape)
    letters = "abcdefghijklmnopqrstuvwxyz"
    xs = "z" + letters[:rx - 1]
    ys = "z" + letters[rx - 1:rx + ry - 2]
    ys = ys[:axes[1]] + xs[axes[0]] + ys[axes[1] + 1:]
    out = "z" + "".join(c for c in xs[1:] if c != xs[axes[0]]) + \
        "".join(c for c in ys[1:] if c != xs[axes[0]])
    result = linalg.einsum(f"{xs},{ys}->{out}", x, y)
    return expand_dims(result, 1) if len(out) == 1 else result


class Dot(_Merge):
    """The dot product of two inputs per example along ``axes`` (an int, or one axis for
    each input); ``normalize`` L2-normalizes them first (a cosine similarity).

    >>> import finegrad as fg
    >>> fg.keras.layers.Dot(axes=1)([fg.ones([2, 3]), fg.ones([2, 3])]).numpy()
    array([[3.],
           [3.]], dtype=float32)
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int) and (len(axes) != 2 or
                                          not all(isinstance(a, int) for a in axes)):
            raise TypeError(f"keras.layers.Dot: axes must be an int or a list of two ints, "
                            f"got {axes!r}")
        self.axes = axes if isinstance(axes, int) else list(axes)
        self.normalize = normalize
        self.supports_masking = False

    def _axes(self, x1, x2):
        pair = [self.axes, self.axes] if isinstance(self.axes, int) else list(self.axes)
        return [a % len(t.shape) for a, t in zip(pair, (x1, x2), strict=True)]

    def call(self, inputs: TensorLike) -> Tensor:
        x1, x2 = self._check(inputs, exactly=2)
        axes = self._axes(x1, x2)
        if self.normalize:
            x1, x2 = l2_normalize(x1, axis=axes[0]), l2_normalize(x2, axis=axes[1])
        return batch_dot(x1, x2, axes)

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> None:
        return None

    def compute_output_shape(self, input_shape: Any) -> Any:
        s1, s2 = list(input_shape[0]), list(input_shape[1])
        pair = [self.axes, self.axes] if isinstance(self.axes, int) else list(self.axes)
        a1, a2 = pair[0] % len(s1), pair[1] % len(s2)
        out = [s1[0]] + [n for i, n in enumerate(s1[1:], 1) if i != a1] + \
            [n for i, n in enumerate(s2[1:], 1) if i != a2]
        return tuple(out if len(out) > 1 else out + [1])

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(axes=self.axes, normalize=self.normalize)
        return config


def _functional(cls, doc_op):
    def merge(inputs: Any, **kwargs: Any) -> Any:
        return cls(**kwargs)(inputs)
    merge.__name__ = merge.__qualname__ = cls.__name__.lower()
    merge.__doc__ = (f"The functional form of `{cls.__name__}`: ``{cls.__name__}(**kwargs)"
                     f"(inputs)``, {doc_op}.\n\n    >>> import finegrad as fg\n    >>> "
                     f"fg.keras.layers.{cls.__name__.lower()}([fg.ones([2]), fg.ones([2])])"
                     f".shape\n    TensorShape([2])\n    ")
    return merge


add = _functional(Add, "the sum of the inputs")
subtract = _functional(Subtract, "the first input minus the second")
multiply = _functional(Multiply, "the elementwise product of the inputs")
average = _functional(Average, "the mean of the inputs")
maximum = _functional(Maximum, "the elementwise maximum of the inputs")
minimum = _functional(Minimum, "the elementwise minimum of the inputs")


def concatenate(inputs: TensorLike, axis: int = -1, **kwargs: Any) -> Tensor:
    """The functional form of `Concatenate`: the inputs joined along ``axis``.

    >>> import finegrad as fg
    >>> fg.keras.layers.concatenate([fg.ones([2, 1]), fg.ones([2, 2])]).shape
    TensorShape([2, 3])
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: TensorLike, axes: int = -1, normalize: bool = False, **kwargs: Any) -> Tensor:
    """The functional form of `Dot`: the per-example dot product of two inputs.

    >>> import finegrad as fg
    >>> fg.keras.layers.dot([fg.ones([2, 3]), fg.ones([2, 3])], axes=1).numpy().ravel()
    array([3., 3.], dtype=float32)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)

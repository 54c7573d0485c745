"""`InputSpec`: what a layer accepts (rank, sizes), checked when it is called, as Keras 3
checks ``layer.input_spec``."""
from typing import Any

from finegrad._src.keras.nodes import flatten


class InputSpec:
    """The rank, dtype and sizes a layer's input must have (None: any).

    Args:
        dtype: the expected dtype.
        shape: the expected shape (None entries: any size).
        ndim, max_ndim, min_ndim: the expected rank, or its bounds.
        axes: {axis: size} sizes required on some axes.
        allow_last_axis_squeeze: accept a last axis of size 1 more or less.
        name: the input's name.
        optional: whether the input may be None.

    >>> import finegrad as tf
    >>> class Flat(tf.keras.layers.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.input_spec = tf.keras.layers.InputSpec(ndim=2)
    ...     def call(self, x):
    ...         return x
    >>> Flat()(tf.ones((2, 3, 4)))
    Traceback (most recent call last):
    ...
    ValueError: Input 0 with name 'None' of layer 'flat' is incompatible with the layer: ...
    """

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: Any = None,
                 max_ndim: Any = None, min_ndim: Any = None, axes: Any = None,
                 allow_last_axis_squeeze: Any = False, name: Any = None,
                 optional: Any = False) -> None:
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze, self.name, self.optional = \
            allow_last_axis_squeeze, name, optional

    def get_config(self) -> Any:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in self.get_config().items() if v not in (None, {})]
        return f"InputSpec({', '.join(parts)})"


def _problem(spec, shape):
    ndim = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        return f"expected ndim={spec.ndim}, found ndim={ndim}"
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        return f"expected max_ndim={spec.max_ndim}, found ndim={ndim}"
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        return f"expected min_ndim={spec.min_ndim}, found ndim={ndim}"
    for axis, size in spec.axes.items():
        have = shape[axis] if -ndim <= axis < ndim else None
        if size is not None and have not in (size, None):
            return f"expected axis {axis} of input shape to have value {size}, but received " \
                   f"input with shape {tuple(shape)}"
    if spec.shape is not None and not spec.allow_last_axis_squeeze:
        for want, have in zip(spec.shape, shape, strict=False):
            if want is not None and have is not None and want != have:
                return f"expected shape={spec.shape}, found shape={tuple(shape)}"
    return None


def assert_input_compatibility(spec: Any, inputs: Any, layer_name: str) -> None:
    """Raise ValueError when ``inputs`` break ``spec`` (a spec or a list, one per input)."""
    if spec is None:
        return
    specs = spec if isinstance(spec, (list, tuple)) else [spec]
    values = flatten(inputs)
    for i, (s, x) in enumerate(zip(specs, values, strict=False)):
        if s is None or x is None or not hasattr(x, "shape"):
            continue
        shape = tuple(x.shape)
        problem = _problem(s, shape)
        if problem:
            message = (f"Input {i} with name '{s.name}' of layer '{layer_name}' is "
                       f"incompatible with the layer: {problem}")
            if not problem.startswith("expected axis"):
                message += f". Full shape received: {shape}"
            raise ValueError(message)

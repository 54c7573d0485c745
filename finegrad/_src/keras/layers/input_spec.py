"""Keras's `InputSpec`: what a layer expects of its inputs (rank, dtype, sizes of some axes),
and `assert_input_compatibility`, the check against it with Keras's messages."""
from finegrad._src import dtypes


class InputSpec:
    """The rank, dtype and axis sizes a layer's input must have (None: anything).

    Args:
        dtype: the input's dtype.
        shape: the full shape (None entries free); sets ``ndim``.
        ndim, max_ndim, min_ndim: the rank, or its bounds.
        axes: ``{axis: size}`` for axes whose size is fixed.
        allow_last_axis_squeeze: accept a rank one off when the last axis has size 1.
        name: the input's name (for dict inputs).
        optional: whether the input may be None.

    >>> import finegrad as fg
    >>> spec = fg.keras.layers.InputSpec(ndim=4, axes={-1: 3})
    >>> spec.ndim, spec.axes
    (4, {-1: 3})
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            self.axes = {int(k): v for k, v in (axes or {}).items()}
        except (ValueError, TypeError, AttributeError):
            raise TypeError(f"keras.layers.InputSpec: axes must be a dict with integer keys, "
                            f"got {axes!r}") from None
        top = self.ndim if self.ndim is not None else self.max_ndim
        if self.axes and top is not None and max(self.axes) > top - 1:
            raise ValueError(f"keras.layers.InputSpec: axis {max(self.axes)} is greater than "
                             f"the maximum allowed value: {top - 1}")

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                          ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                          ("min_ndim", self.min_ndim)) if v is not None]
        if self.axes:
            parts.append(f"axes={self.axes}")
        return f"InputSpec({', '.join(parts)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _fail(index, spec, layer_name, what):
    raise ValueError(f"Input {index} with name '{spec.name}' of layer '{layer_name}' is "
                     f"incompatible with the layer: {what}")


def _check_one(index, x, spec, layer_name):
    shape = tuple(None if n is None else int(n) for n in x.shape)
    ndim = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        _fail(index, spec, layer_name, f"expected ndim={spec.ndim}, found ndim={ndim}. "
                                       f"Full shape received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        _fail(index, spec, layer_name, f"expected max_ndim={spec.max_ndim}, found "
                                       f"ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        _fail(index, spec, layer_name, f"expected min_ndim={spec.min_ndim}, found "
                                       f"ndim={ndim}. Full shape received: {shape}")
    if spec.dtype is not None and dtypes.as_dtype(x.dtype).name != spec.dtype:
        _fail(index, spec, layer_name, f"expected dtype={spec.dtype}, found "
                                       f"dtype={dtypes.as_dtype(x.dtype).name}")
    for axis, size in spec.axes.items():
        if size is not None and -ndim <= axis < ndim and shape[axis] not in (None, size):
            _fail(index, spec, layer_name, f"expected axis {axis} of input shape to have "
                                           f"value {size}, but received input with shape "
                                           f"{shape}")
    if spec.shape is not None and ndim == len(spec.shape):
        for want, got in zip(spec.shape, shape, strict=True):
            if want is not None and got is not None and want != got:
                _fail(index, spec, layer_name, f"expected shape={spec.shape}, found "
                                               f"shape={shape}")


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raise ValueError (Keras's message) when ``inputs`` do not fit ``input_spec`` (one spec
    or a list, one per input)."""
    if not input_spec:
        return
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else [input_spec]
    if isinstance(inputs, dict):
        names = [s.name for s in specs]
        if all(names):
            inputs = [inputs[n] for n in names]
        else:
            inputs = list(inputs.values())
    flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(flat) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
                         f"{len(flat)} input tensors.")
    for i, (x, spec) in enumerate(zip(flat, specs, strict=True)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type "
                             f"{type(x)}) as input for layer '{layer_name}'.")
        _check_one(i, x, spec, layer_name)

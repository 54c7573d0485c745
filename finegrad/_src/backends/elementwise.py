"""Wrappers that give a framework's function Keras's calling convention: promotion of the
operands by Keras's rule (`promotion`), integer inputs of float functions cast to float32,
Keras's parameters passed by keyword. Framework-free: each backend builds a `Convention` from
its own conversion functions."""
import functools

from finegrad._src.backends import keras_signatures, promotion

# numpy-group names by calling kind (the same on every framework)
UNARY_FLOAT = tuple("""arccos arccosh arcsin arcsinh arctan arctanh cos cosh exp expm1 log
log1p sin sinh sqrt tan tanh ceil floor trunc exp2 log2 log10 cbrt deg2rad rad2deg i0
sinc reciprocal fabs""".split())
UNARY_KEEP = tuple("""abs absolute negative sign square conj conjugate real imag angle isnan
isinf isfinite signbit logical_not bitwise_invert bitwise_not isneginf isposinf""".split())
BINARY = tuple("""add subtract multiply maximum minimum power mod fmod floor_divide fmax fmin
heaviside ldexp gcd lcm bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift left_shift right_shift equal not_equal less less_equal greater
greater_equal""".split())
BINARY_FLOAT = tuple("""divide true_divide arctan2 hypot logaddexp logaddexp2
nextafter""".split())
LOGICAL = ("logical_and", "logical_or", "logical_xor")


class Convention:
    """A framework's ``is_tensor``, ``convert(x, dtype=None)``, ``cast`` and ``dtype_name``,
    whether it has 64-bit types (``wide``); for the fast paths, ``is_float(tensor)`` and
    ``scalar(value, like)``: a Python number as an operand of the tensor ``like``'s dtype (the
    number itself where the framework's function takes it so)."""

    def __init__(self, is_tensor, convert, cast, dtype_name, wide=True, is_float=None,
                 scalar=None, tensor_type=None, same_dtype=None):
        self.is_tensor, self.convert, self.cast = is_tensor, convert, cast
        self.tensor_type = tensor_type   # the eager tensor class, for the shortest path
        # on the shortest path, whether two ``tensor_type`` tensors have one dtype (None:
        # compare their ``dtype`` attributes)
        self.same_dtype = same_dtype
        self.dtype_name, self.wide = dtype_name, wide
        self.is_float = is_float or (lambda x: dtype_name(x).startswith("float"))
        self.scalar = scalar or (lambda v, like: v)

    def tensor(self, x):
        return x if self.is_tensor(x) else self.convert(x)

    def promote(self, x1, x2, *extra):
        """``x1, x2`` as tensors of their Keras result type (``extra``: more dtypes, such as
        ``float``, taking part in the promotion)."""
        t1, t2 = self.is_tensor(x1), self.is_tensor(x2)
        if not extra:   # the common cases, without the lattice
            if t1 and t2:
                if x1.dtype == x2.dtype:
                    return x1, x2
            elif t1 and self._weak_fits(x2, x1):
                return x1, self.scalar(x2, x1)
            elif t2 and self._weak_fits(x1, x2):
                return self.scalar(x1, x2), x2
        if not t1 and not isinstance(x1, (bool, int, float)):
            x1, t1 = self.convert(x1), True
        if not t2 and not isinstance(x2, (bool, int, float)):
            x2, t2 = self.convert(x2), True
        out = promotion.result_type(self.dtype_name(x1) if t1 else x1,
                                    self.dtype_name(x2) if t2 else x2, *extra, wide=self.wide)
        return self._as(x1, t1, out), self._as(x2, t2, out)

    def int8_as_int32(self, *xs):
        """Keras's rule for products of int8 tensors: they accumulate in int32."""
        if all(self.dtype_name(x) == "int8" for x in xs):
            return [self.cast(x, "int32") for x in xs]
        return list(xs)

    def _weak_fits(self, value, tensor):
        """Whether the Python number ``value`` keeps ``tensor``'s dtype under Keras's rule
        (an int with a float or int tensor, a float with a float tensor)."""
        kind = type(value)
        if kind is float:
            return self.is_float(tensor)
        return kind is int and (self.is_float(tensor) or self.dtype_name(tensor) != "bool")

    def _as(self, x, is_tensor, dtype):
        if not is_tensor:
            return self.convert(x, dtype)
        return x if self.dtype_name(x) == dtype else self.cast(x, dtype)

    def floating(self, x):
        if self.is_tensor(x) and self.is_float(x):
            return x
        x = self.tensor(x)
        name = self.dtype_name(x)
        if name.startswith(("float", "bfloat", "complex")):
            return x
        return self.cast(x, "float64" if name == "int64" and self.wide else "float32")

    def binary(self, fn, *extra):
        tensor_type, promote, same_dtype = self.tensor_type, self.promote, self.same_dtype
        if extra:
            @functools.wraps(fn)
            def op(x1, x2):
                return fn(*promote(x1, x2, *extra))
        elif same_dtype is not None:
            @functools.wraps(fn)
            def op(x1, x2):
                if type(x1) is tensor_type and type(x2) is tensor_type and same_dtype(x1, x2):
                    return fn(x1, x2)
                return fn(*promote(x1, x2))
        else:
            @functools.wraps(fn)
            def op(x1, x2):
                if type(x1) is tensor_type and type(x2) is tensor_type and \
                        x1.dtype == x2.dtype:
                    return fn(x1, x2)
                return fn(*promote(x1, x2))
        return op

    def logical(self, fn):
        @functools.wraps(fn)
        def op(x1, x2):
            return fn(self.cast(self.tensor(x1), "bool"), self.cast(self.tensor(x2), "bool"))
        return op

    def unary_float(self, fn):
        tensor_type, is_float, floating = self.tensor_type, self.is_float, self.floating

        @functools.wraps(fn)
        def op(x):
            if type(x) is tensor_type and is_float(x):
                return fn(x)
            return fn(floating(x))
        return op

    def unary(self, fn):
        @functools.wraps(fn)
        def op(x):
            return fn(self.tensor(x))
        return op

    def by_keyword(self, fn, name, positional=1, rename=None, promote=True):
        """``fn`` called with Keras's first ``positional`` arguments by position (tensors;
        two operands are promoted together) and the others by name; ``rename`` maps a
        Keras parameter name to the framework's."""
        params = keras_signatures.PARAMETERS[name][positional:]
        rename = rename or {}

        @functools.wraps(fn)
        def op(*args, **kwargs):
            lead, rest = args[:positional], args[positional:]
            kw = {rename.get(k, k): v for k, v in zip(params, rest, strict=False)}
            kw.update((rename.get(k, k), v) for k, v in kwargs.items())
            lead = self.promote(*lead) if positional == 2 and promote else \
                [self.tensor(a) for a in lead]
            return fn(*lead, **kw)
        return op


def fill_by_keyword(namespace, convention, source, one=(), two=(), indexed=(), rename=None):
    """Put into ``namespace`` ``source``'s functions taking Keras's parameters by name: of one
    tensor (``one``), of two promoted together (``two``), of a tensor and indices
    (``indexed``)."""
    for names, positional, promote in ((one, 1, True), (two, 2, True), (indexed, 2, False)):
        for n in names:
            fn = getattr(source, n, None)
            if fn is not None:
                namespace[n] = convention.by_keyword(fn, n, positional, rename, promote)


def fill(namespace, convention, source, skip=()):
    """Put into ``namespace`` (a module's globals) the numpy-group elementwise names that
    ``source`` (``jax.numpy``, ``torch``...) has, wrapped by ``convention``."""
    kinds = ((UNARY_FLOAT, convention.unary_float), (UNARY_KEEP, convention.unary),
             (BINARY, convention.binary), (LOGICAL, convention.logical))
    for names, wrap in kinds:
        for n in names:
            fn = getattr(source, n, None)
            if fn is not None and n not in skip:
                namespace[n] = wrap(fn)
    for n in BINARY_FLOAT:
        fn = getattr(source, n, None)
        if fn is not None and n not in skip:
            namespace[n] = convention.binary(fn, float)

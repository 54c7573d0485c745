"""``tf.strings``: elementwise functions of string tensors, as TensorFlow's kernels compute them.

Each works on NumPy object arrays of bytes; inside a `finegrad.function` or a TF1 graph it is
a host-function node (`host_ops.on_host`) that runs on each call's strings. Strings come out
as bytes (TensorFlow's); text in (``str``) is UTF-8. ``split`` and the ``unicode_*`` family
return RaggedTensors in TensorFlow, which finegrad does not have, and are not here.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api.printing import format_float
from finegrad._src.data.host_ops import on_host, tracing
from finegrad._src.data.io_ops import _strings
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.pyfunc import numpy_function
from finegrad._src.tensor import Tensor, convert_to_tensor


def _bytes_array(value: Any, fn: str, argument: str = "input") -> np.ndarray:
    """``value`` (a string tensor, bytes, str or a nest of them) as an object array of
    bytes."""
    t = convert_to_tensor(value)
    if t.dtype != dtypes.string:
        raise TypeError(f"finegrad.strings.{fn}: {argument} must be a string tensor, got "
                        f"{t.dtype.name}")
    return _map(lambda v: v.encode() if isinstance(v, str) else bytes(v),
                np.asarray(t._value, dtype=object))


def _map(fn: Any, a: np.ndarray, otype: Any = object) -> np.ndarray:
    """``fn`` of each element of ``a`` (any shape, 0-d included), as an array of ``otype``."""
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        out[idx] = fn(a[idx])
    return out if otype is object else out.astype(otype)


@on_host(("input",), dtypes.int32, shaped_like="input")
def length(input: Any, name: str | None = None, unit: str = "BYTE") -> Tensor:
    """The length of each string, in bytes (``unit="BYTE"``) or characters
    (``"UTF8_CHAR"``).

    >>> import finegrad as fg
    >>> fg.strings.length(["héllo", ""]).numpy()
    array([6, 0], dtype=int32)
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"finegrad.strings.length: unit must be 'BYTE' or 'UTF8_CHAR', got "
                         f"{unit!r}")
    a = _bytes_array(input, "length")
    count = len if unit == "BYTE" else (lambda v: len(v.decode("utf-8", "replace")))
    return Tensor(np.asarray(_map(count, a, np.int64), dtype=np.int32))


@on_host(("input",), dtypes.string, shaped_like="input")
def lower(input: Any, encoding: str = "", name: str | None = None) -> Tensor:
    """Each string with ASCII letters lowered (all letters, with ``encoding="utf-8"``).

    >>> import finegrad as fg
    >>> fg.strings.lower("ABC").numpy()
    b'abc'
    """
    a = _bytes_array(input, "lower")
    if encoding:
        return _strings(_map(lambda v: v.decode(encoding).lower().encode(encoding), a))
    return _strings(_map(bytes.lower, a))


@on_host(("input",), dtypes.string, shaped_like="input")
def upper(input: Any, encoding: str = "", name: str | None = None) -> Tensor:
    """Each string with ASCII letters raised (all letters, with ``encoding="utf-8"``).

    >>> import finegrad as fg
    >>> fg.strings.upper(["abc"]).numpy()
    array([b'ABC'], dtype=object)
    """
    a = _bytes_array(input, "upper")
    if encoding:
        return _strings(_map(lambda v: v.decode(encoding).upper().encode(encoding), a))
    return _strings(_map(bytes.upper, a))


@on_host(("input",), dtypes.string, shaped_like="input")
def strip(input: Any, name: str | None = None) -> Tensor:
    """Each string without leading and trailing whitespace.

    >>> import finegrad as fg
    >>> fg.strings.strip([" a b "]).numpy()
    array([b'a b'], dtype=object)
    """
    return _strings(_map(bytes.strip, _bytes_array(input, "strip")))


def join(inputs: Any, separator: str = "", name: str | None = None) -> Tensor:
    """The strings of ``inputs`` (a list of string tensors, broadcast together) joined
    elementwise with ``separator``.

    >>> import finegrad as fg
    >>> fg.strings.join([["a", "b"], ["c", "d"]], separator="-").numpy()
    array([b'a-c', b'b-d'], dtype=object)
    """
    parts = list(inputs)
    if not parts:
        raise ValueError("finegrad.strings.join: inputs must hold at least one tensor")
    return _join_all(*parts, separator=separator)


def _join_all(*parts: Any, separator: str) -> Tensor:
    if tracing():   # (a node: each call's strings)
        def run(*vals: np.ndarray) -> np.ndarray:
            return np.asarray(_join_all(*[Tensor(np.asarray(v, object)) for v in vals],
                                        separator=separator)._value)
        return numpy_function(run, [convert_to_tensor(p) for p in parts], dtypes.string,
                              stateful=False)
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    arrays = np.broadcast_arrays(*[_bytes_array(p, "join", "inputs") for p in parts])
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(a[idx] for a in arrays)
    return _strings(out)


@on_host(("inputs",), dtypes.string)
def reduce_join(inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: str | None = None) -> Tensor:
    """The strings joined with ``separator`` along ``axis`` (all axes: None).

    >>> import finegrad as fg
    >>> fg.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",").numpy()
    array([b'a,b', b'c,d'], dtype=object)
    """
    a = _bytes_array(inputs, "reduce_join", "inputs")
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        int(x) % max(a.ndim, 1) for x in np.atleast_1d(np.asarray(
            axis._value if isinstance(axis, Tensor) else axis)))
    rest = [k for k in range(a.ndim) if k not in axes]
    moved = np.transpose(a, rest + list(axes)).reshape([a.shape[k] for k in rest] + [-1])
    out = np.empty(moved.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(moved[idx])
    if keepdims:
        out = out.reshape([1 if k in axes else a.shape[k] for k in range(a.ndim)])
    return _strings(out)


@on_host(("input",), lambda given: given["out_type"], shaped_like="input")
def to_number(input: Any, out_type: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """Each string parsed as a number of ``out_type`` (float32, float64, int32, int64).

    >>> import finegrad as fg
    >>> fg.strings.to_number(["1.5", "-2", "1e3"]).numpy()
    array([   1.5,   -2. , 1000. ], dtype=float32)

    Raises:
        finegrad.errors.InvalidArgumentError: for a string that is no such number.
    """
    dt = dtypes.as_dtype(out_type)
    if dt not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"finegrad.strings.to_number: out_type must be float32, float64, "
                        f"int32 or int64, got {dt.name}")
    parse = int if dt.is_integer else float

    def one(v: bytes) -> Any:
        try:
            return parse(v.decode().strip())
        except ValueError:
            raise InvalidArgumentError(f"finegrad.strings.to_number: StringToNumberOp could "
                                       f"not correctly convert string: {v.decode()}") from None
    a = _bytes_array(input, "to_number", "string_tensor")
    return Tensor(_map(one, a).astype(dt._np))


@on_host(("input",), dtypes.string, shaped_like="input")
def as_string(input: Any, precision: int = -1, scientific: bool = False,
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> Tensor:
    """Each number as a string, formatted as TensorFlow's (``%f``-style floats, ``true`` /
    ``false``).

    >>> import finegrad as fg
    >>> fg.strings.as_string(fg.constant([1.5, 2.])).numpy()
    array([b'1.500000', b'2.000000'], dtype=object)
    """
    a = np.asarray(convert_to_tensor(input)._value)
    if a.dtype == object:
        raise TypeError("finegrad.strings.as_string: input must be numeric or bool, got a "
                        "string tensor")
    if a.dtype.kind == "b":
        spec = None
    elif a.dtype.kind in "fc":
        kind = "g" if shortest else "e" if scientific else "f"
        spec = f"{'.' + str(precision) if precision >= 0 else ''}{kind}"
        if shortest and precision < 0:
            spec = None   # the shortest text that reads back as the same value
    else:
        spec = "d"
    pad = f"{fill or ' '}>{width}" if width > 0 else ""
    fill_zero = fill == "0" and width > 0

    def one(v: Any) -> bytes:
        text = ("true" if v else "false") if a.dtype.kind == "b" else \
            format_float(v) if spec is None else format(v, spec)
        if fill_zero:
            text = format(v, f"0{width}{spec or ''}")
        elif pad:
            text = format(text, pad)
        return text.encode()
    return _strings(_map(one, a) if a.size else np.empty(a.shape, object))


@on_host(("input",), dtypes.string, shaped_like="input")
def regex_replace(input: Any, pattern: str, rewrite: str, replace_global: bool = True,
                  name: str | None = None) -> Tensor:
    r"""Each string with the matches of ``pattern`` (RE2 syntax, which Python's ``re``
    reads for the common cases) replaced by ``rewrite`` (``\1`` for a group); only the first
    one unless ``replace_global``.

    >>> import finegrad as fg
    >>> fg.strings.regex_replace(["a1b22"], r"\d+", "N").numpy()
    array([b'aNbN'], dtype=object)
    """
    regex = re.compile(_pattern(pattern))
    repl = _pattern(rewrite)
    count = 0 if replace_global else 1
    return _strings(_map(lambda v: regex.sub(repl, v, count=count),
                         _bytes_array(input, "regex_replace")))


@on_host(("input",), dtypes.bool_, shaped_like="input")
def regex_full_match(input: Any, pattern: str, name: str | None = None) -> Tensor:
    """Whether each whole string matches ``pattern``.

    >>> import finegrad as fg
    >>> fg.strings.regex_full_match(["abc", "ab"], "a.c").numpy()
    array([ True, False])
    """
    regex = re.compile(_pattern(pattern))
    return Tensor(_map(lambda v: regex.fullmatch(v) is not None,
                       _bytes_array(input, "regex_full_match"), bool))


def _pattern(p: Any) -> bytes:
    if isinstance(p, Tensor):
        p = p._value.item() if hasattr(p._value, "item") else p._value
    return p.encode() if isinstance(p, str) else bytes(p)


@on_host(("input",), dtypes.string, shaped_like="input")
def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE",  # TensorFlow's names
           name: str | None = None) -> Tensor:
    """Each string's ``len`` bytes from ``pos`` (negative: from the end).

    >>> import finegrad as fg
    >>> fg.strings.substr(["hello", "world"], 1, 3).numpy()
    array([b'ell', b'orl'], dtype=object)

    Raises:
        finegrad.errors.InvalidArgumentError: where ``pos`` is past a string's end.
    """
    a = _bytes_array(input, "substr")
    p = np.broadcast_to(np.asarray(getattr(pos, "_value", pos)), a.shape)
    n = np.broadcast_to(np.asarray(getattr(len, "_value", len)), a.shape)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        v, start, count = a[idx], int(p[idx]), int(n[idx])
        size = v.__len__()
        if start > size or start < -size:
            raise InvalidArgumentError(f"finegrad.strings.substr: pos {start} out of range for "
                                       f"string b'{v.decode(errors='replace')}' at index "
                                       f"{list(idx)}")
        start = start % size if start < 0 else start
        out[idx] = v[start:start + max(count, 0)]
    return _strings(out)

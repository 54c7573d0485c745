"""Keras 3's dtype promotion (`keras.backend.result_type`), shared by every backend.

Keras promotes on a lattice adapted from JAX's: ``bool < int (weak) < uint8/int8 < ...``,
``int64 < float (weak) < bfloat16/float16 < float32 < float64``, and a Python ``int`` or
``float`` is *weak*: it takes the other operand's kind and size when it can (``int8 + 1`` is
int8, ``int32 + 1.5`` is float32, ``float16 + 1.5`` float16). Unlike TensorFlow, mixed dtypes
are promoted, never refused: ``int32 + float32`` is float32, ``float32 + float64`` float64,
``uint8 + int8`` int16. 64-bit results are kept, as by Keras on its TensorFlow backend; a
backend without 64-bit types (JAX with ``jax_enable_x64`` off) narrows them as Keras on JAX
does.

>>> from finegrad._src.backends.promotion import result_type
>>> result_type("int32", "float32"), result_type("uint8", "int8"), result_type("int8", int)
('float32', 'int16', 'int8')
"""
import functools

_BOOL, _WEAK_INT, _WEAK_FLOAT = "bool", "int", "float"
# each dtype -> the dtypes immediately above it
_ABOVE = {
    "bool": ("int",),
    "int": ("uint8", "int8", "complex64"),
    "uint8": ("int16", "uint16"), "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"), "uint64": ("float",),
    "int8": ("int16",), "int16": ("int32",), "int32": ("int64",), "int64": ("float",),
    "float": ("bfloat16", "float16"),
    "bfloat16": ("float32",), "float16": ("float32",),
    "float32": ("float64", "complex64"), "float64": ("complex128",),
    "complex64": ("complex128",), "complex128": (),
}
NARROW_64 = {"int64": "int32", "uint64": "uint32", "float64": "float32",
             "complex128": "complex64"}


def _upper_bounds():
    bounds = {}
    for node in _ABOVE:
        seen, todo = {node}, [node]
        while todo:
            for up in _ABOVE[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        bounds[node] = frozenset(seen)
    return bounds


_UPPER = _upper_bounds()


def _least_upper_bound(nodes):
    for n in nodes:
        if n not in _UPPER:
            known = ", ".join(k for k in _ABOVE if k not in ("int", "float"))
            raise ValueError(f"finegrad.ops.result_type: {n!r} is not a dtype Keras promotes "
                             f"(one of {known})")
    common = frozenset.intersection(*(_UPPER[n] for n in nodes))
    least = (common & set(nodes)) or {c for c in common if common <= _UPPER[c]}
    if len(least) != 1:
        raise ValueError(f"finegrad.ops.result_type: the dtypes {sorted(nodes)} have no "
                         f"implicit promotion; cast them explicitly")
    return next(iter(least))


def _weak(dtype):
    if dtype == "bool":
        return dtype
    return "float" if "float" in dtype else "complex64" if "complex" in dtype else "int"


@functools.lru_cache(maxsize=1024)
def lattice_result(entries, wide=True):
    """The promoted dtype of ``entries``, a tuple of ``(dtype name, is weak)`` pairs."""
    dtypes = tuple(d for d, _ in entries)
    weak = tuple(w for _, w in entries)
    if len(entries) == 1:
        out, out_weak = dtypes[0], weak[0]
    elif len(set(dtypes)) == 1 and not all(weak):
        out, out_weak = dtypes[0], False
    elif all(weak):
        out, out_weak = _least_upper_bound(set(dtypes)), True
    else:
        out = _least_upper_bound({_weak(d) if w else d for d, w in entries})
        out_weak = out in (_WEAK_INT, _WEAK_FLOAT)
    if out_weak and out != "bool":   # a weak result takes floatx's precision
        out = {"i": "int32", "u": "uint32"}.get(out[0], "float32")
    if out == "uint64" or not wide:   # (Keras narrows uint64 on every backend)
        out = NARROW_64.get(out, out)
    return out


def _entry(x):
    """``(dtype name, is weak)`` of a dtype, a Python type, or a value."""
    if x is int or x is float:
        return ("int" if x is int else "float"), True
    if isinstance(x, bool):
        return "bool", False
    if isinstance(x, int):
        return "int", True
    if isinstance(x, float):
        return "float", True
    if isinstance(x, str):
        return x, False
    if x is bool:
        return "bool", False
    name = getattr(x, "name", None)
    if isinstance(name, str) and not hasattr(x, "shape"):
        return name, False   # a dtype object (numpy, finegrad, tensorflow)
    dtype = getattr(x, "dtype", x)
    name = getattr(dtype, "name", None)
    if not isinstance(name, str):   # torch.float32, jax's numpy dtypes
        name = str(dtype).rpartition(".")[2]
    return name, False


def result_type(*dtypes, wide=True):
    """Keras 3's ``result_type`` of ``dtypes`` (dtype names, dtype objects, Python ``int``,
    ``float`` or ``bool``, or values): floatx (float32) when none is given."""
    if not dtypes:
        return "float32"
    entries = tuple(("float32", False) if d is None else _entry(d) for d in dtypes)
    for d, _ in entries:
        if d.startswith("float8"):
            raise ValueError(f"finegrad.ops.result_type: {d} has no implicit promotion; "
                             f"cast it explicitly")
    return lattice_result(entries, wide)

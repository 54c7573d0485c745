"""Nested structures (lists, tuples, dicts, namedtuples) of leaves: flatten and rebuild.

Dict keys are visited in sorted order, as in TensorFlow's tf.nest, so flattening is
deterministic; None counts as a leaf.
"""


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def flatten(structure, expand_composites=True):
    """The leaves of ``structure`` in order; a composite (an object with
    ``_nest_components``, such as `IndexedSlices`) counts as its components' structure unless
    ``expand_composites`` is False.

    >>> from finegrad._src import nest
    >>> nest.flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
    """
    out = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(x, out, composites=True):
    if isinstance(x, dict):
        for k in sorted(x, key=_sort_key):
            _flatten_into(x[k], out, composites)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _flatten_into(v, out, composites)
    elif composites and hasattr(type(x), "_nest_components"):
        _flatten_into(x._nest_components(), out)
    else:
        out.append(x)


def _sort_key(k):
    return (type(k).__name__, k) if not isinstance(k, (int, float, str)) else (0, str(k)) \
        if isinstance(k, str) else (1, k)


def pack_sequence_as(structure, flat, expand_composites=True):
    """Rebuild ``structure`` with the leaves taken in order from ``flat``."""
    it = iter(flat)
    out = _pack(structure, it, expand_composites)
    rest = list(it)
    if rest:
        raise ValueError(f"finegrad.nest: {len(rest)} leaves left over when rebuilding a structure")
    return out


def _pack(x, it, composites=True):
    if isinstance(x, dict):
        vals = {k: _pack(x[k], it, composites) for k in sorted(x, key=_sort_key)}
        return type(x)((k, vals[k]) for k in x) if type(x) is not dict else {k: vals[k] for k in x}
    if _is_namedtuple(x):
        return type(x)(*[_pack(v, it, composites) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_pack(v, it, composites) for v in x)
    if composites and hasattr(type(x), "_nest_components"):
        return type(x)._from_nest_components(_pack(x._nest_components(), it))
    try:
        return next(it)
    except StopIteration:
        raise ValueError("finegrad.nest: too few leaves to rebuild the structure") from None


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])


def same_structure(a, b):
    """Whether ``a`` and ``b`` have the same nesting (leaf values aside)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
            len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b, strict=True))
    return True


def structure_difference(a, b, check_types):
    """Why ``a`` and ``b`` differ in nesting, as ``(exception class, message)``, or None.

    Nesting or length differences (and dicts with different keys) are ValueErrors, as in
    TensorFlow's ``assert_same_structure``; with ``check_types``, sequences of different
    types (a list against a tuple) are a TypeError.
    """
    if is_nested(a) != is_nested(b):
        leaf, other = (a, b) if not is_nested(a) else (b, a)
        return ValueError, f"{leaf!r:.60} is not nested while {other!r:.60} is"
    if not is_nested(a):
        return None
    if check_types and type(a) is not type(b):
        return TypeError, (f"The two structures don't have the same sequence type: "
                           f"{type(a).__name__} against {type(b).__name__}")
    if isinstance(a, dict) != isinstance(b, dict):
        return ValueError, f"a dict against a {type(b if isinstance(a, dict) else a).__name__}"
    if isinstance(a, dict):
        if set(a) != set(b):
            return ValueError, (f"The two dictionaries don't have the same set of keys: "
                                f"{sorted(a, key=_sort_key)} and {sorted(b, key=_sort_key)}")
        pairs = [(a[k], b[k]) for k in sorted(a, key=_sort_key)]
    else:
        if len(a) != len(b):
            return ValueError, f"a sequence of length {len(a)} against one of length {len(b)}"
        pairs = list(zip(a, b, strict=True))
    for x, y in pairs:
        diff = structure_difference(x, y, check_types)
        if diff is not None:
            return diff
    return None

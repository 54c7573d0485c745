"""Nested structures (lists, tuples, dicts, namedtuples) of leaves: flatten and rebuild.

Dict keys are visited in sorted order, as in TensorFlow's tf.nest, so flattening is
deterministic; None counts as a leaf.
"""


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def flatten(structure):
    """The leaves of ``structure`` in order.

    >>> from finegrad._src import nest
    >>> nest.flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
    """
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if isinstance(x, dict):
        for k in sorted(x, key=_sort_key):
            _flatten_into(x[k], out)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _flatten_into(v, out)
    else:
        out.append(x)


def _sort_key(k):
    return (type(k).__name__, k) if not isinstance(k, (int, float, str)) else (0, str(k)) \
        if isinstance(k, str) else (1, k)


def pack_sequence_as(structure, flat):
    """Rebuild ``structure`` with the leaves taken in order from ``flat``."""
    it = iter(flat)
    out = _pack(structure, it)
    rest = list(it)
    if rest:
        raise ValueError(f"finegrad.nest: {len(rest)} leaves left over when rebuilding a structure")
    return out


def _pack(x, it):
    if isinstance(x, dict):
        vals = {k: _pack(x[k], it) for k in sorted(x, key=_sort_key)}
        return type(x)((k, vals[k]) for k in x) if type(x) is not dict else {k: vals[k] for k in x}
    if _is_namedtuple(x):
        return type(x)(*[_pack(v, it) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_pack(v, it) for v in x)
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
            len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
    return True

"""TensorFlow's ``tf.nest``: flatten nested structures of lists, tuples, dicts and namedtuples.

Dicts are visited in sorted key order and rebuilt with their own key order; ``None`` and
strings are leaves; with ``expand_composites``, an `IndexedSlices` counts as its components
(values, indices, dense_shape), as in TensorFlow.

>>> import finegrad as fg
>>> fg.nest.flatten({"b": (1, 2), "a": [3]})
[3, 1, 2]
>>> fg.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])
[11, (22, 33)]
"""

from finegrad._src import nest as _nest

from typing import Any as _Any


def is_nested(seq: _Any) -> bool:
    """Whether ``seq`` is a list, tuple (namedtuples included) or dict, not a leaf.

    >>> import finegrad as fg
    >>> fg.nest.is_nested([1]), fg.nest.is_nested("ab"), fg.nest.is_nested(None)
    (True, False, False)
    """
    return _nest.is_nested(seq)


def flatten(structure: _Any, expand_composites: bool = False) -> list[_Any]:
    """The leaves of ``structure`` in order (dict values by sorted key); a leaf gives ``[leaf]``.

    >>> import finegrad as fg
    >>> fg.nest.flatten([1, {"y": 2, "x": None}]), fg.nest.flatten(5)
    ([1, None, 2], [5])
    """
    return _nest.flatten(structure, expand_composites)


def pack_sequence_as(structure: _Any, flat_sequence: _Any, expand_composites: bool = False) -> _Any:
    """``structure`` rebuilt with its leaves taken in order from ``flat_sequence``.

    >>> import finegrad as fg
    >>> fg.nest.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3])
    {'b': [2, 3], 'a': 1}

    Raises:
        TypeError: when ``flat_sequence`` is not a list or tuple.
        ValueError: when it holds more or fewer items than ``structure`` has leaves.
    """
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError(f"finegrad.nest.pack_sequence_as: flat_sequence must be a list or "
                        f"tuple, got {type(flat_sequence).__name__}")
    n = len(_nest.flatten(structure, expand_composites))
    if n != len(flat_sequence):
        raise ValueError(f"finegrad.nest.pack_sequence_as: could not pack sequence: the "
                         f"structure has {n} leaves, but flat_sequence has "
                         f"{len(flat_sequence)} items")
    if not _nest.is_nested(structure):
        return flat_sequence[0]
    return _nest.pack_sequence_as(structure, flat_sequence, expand_composites)


def assert_same_structure(nest1: _Any, nest2: _Any, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """Raise if ``nest1`` and ``nest2`` differ in nesting (leaf values aside).

    >>> import finegrad as fg
    >>> fg.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    >>> fg.nest.assert_same_structure([1, 2], (1, 2), check_types=False)

    Raises:
        ValueError: different nesting, lengths or dict keys.
        TypeError: with ``check_types``, sequences of different types (a list and a tuple).
    """
    del expand_composites
    diff = _nest.structure_difference(nest1, nest2, check_types)
    if diff is not None:
        cls, why = diff
        raise cls(f"finegrad.nest.assert_same_structure: the two structures don't have the "
                  f"same nested structure ({why}).\nFirst structure: {nest1!r:.200}\n"
                  f"Second structure: {nest2!r:.200}")


def map_structure(func: _Any, *structure: _Any, **kwargs: _Any) -> _Any:
    """``func`` applied to the leaves of one or more structures of the same nesting.

    The result has the nesting of ``structure[0]``. Keyword arguments: ``check_types``
    (default True) and ``expand_composites`` (accepted, ignored).

    >>> import finegrad as fg
    >>> fg.nest.map_structure(lambda x: x * 2, {"a": 1, "b": (2, 3)})
    {'a': 2, 'b': (4, 6)}

    Raises:
        ValueError: no structure given, structures that differ, or an unknown keyword.
        TypeError: ``func`` not callable, or (with ``check_types``) sequence types differ.
    """
    if not callable(func):
        raise TypeError(f"finegrad.nest.map_structure: func must be callable, got {func!r:.60}")
    unknown = set(kwargs) - {"check_types", "expand_composites"}
    if unknown:
        raise ValueError(f"finegrad.nest.map_structure: only valid keyword arguments are "
                         f"['check_types', 'expand_composites'], got {sorted(unknown)}")
    if not structure:
        raise ValueError("finegrad.nest.map_structure: must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, kwargs.get("check_types", True))
    flats = [_nest.flatten(s) for s in structure]
    results = [func(*leaves) for leaves in zip(*flats, strict=True)]
    return pack_sequence_as(structure[0], results)

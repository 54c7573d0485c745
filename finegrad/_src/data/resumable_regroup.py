"""The element iterators of the regrouping methods (`window`, `shard`, `group_by_window`,
`unique`, `rebatch`) as `resumable.Resumable` stages: after an input element raised they
go on as ``tf.data``'s do, so ``ignore_errors`` downstream drops what TensorFlow drops."""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.data import structure
from finegrad._src.data.resumable import Resumable
from finegrad._src.tensor import Tensor

_END = object()


def _pull_or_error(r: Resumable) -> Any:
    """The next input element, its error (an exception object) when it raised in a stage
    that resumes, or `_END`; an error from a stage that cannot resume is raised."""
    try:
        return r.pull()
    except StopIteration:
        return _END
    except Exception as e:
        if r.broken:
            raise
        return e


def windows(it: Any, size: int, shift: int, stride: int, drop_remainder: bool) -> Resumable:
    """Lists of ``size`` elements ``stride`` apart, one starting every ``shift``. As
    ``tf.data``'s window, each buffered element keeps its error: a window that holds a failed
    element raises it (the buffer still shifts), one that strides over it does not, and
    elements skipped by a shift beyond the buffer are read with their errors ignored."""
    span = (size - 1) * stride + 1
    buffer: list = []
    state = {"ended": False}

    def step(r):
        while not state["ended"] and len(buffer) < span:
            element = _pull_or_error(r)
            if element is _END:
                state["ended"] = True
            else:
                buffer.append(element)
        if not buffer or (state["ended"] and len(buffer) < span and drop_remainder):
            raise StopIteration
        window = buffer[:span:stride]
        if shift < len(buffer):
            del buffer[:shift]
        else:
            for _ in range(shift - len(buffer)):
                if state["ended"] or _pull_or_error(r) is _END:
                    state["ended"] = True
                    break
            buffer.clear()
        for element in window:
            if isinstance(element, Exception):
                raise element
        return window
    return Resumable(step, it)


def sharded(it: Any, num: int, index: int) -> Resumable:
    """Every ``num``-th element from the ``index``-th. As ``tf.data``'s shard, the position
    counts only the skips that completed: an error while skipping leaves it, so the next
    element skips again from there."""
    position = [0]

    def step(r):
        skip = (index - position[0]) % num
        for _ in range(skip):
            r.pull()
        position[0] += skip
        element = r.pull()
        position[0] += 1
        return element
    return Resumable(step, it)


def unique(it: Any) -> Resumable:
    """Each distinct scalar at its first occurrence."""
    seen: set = set()

    def step(r):
        while True:
            element = r.pull()
            key = element._value.item()
            if key not in seen:
                seen.add(key)
                return element
    return Resumable(step, it)


def grouped(it: Any, key_of: Any, size_of: Any, reduce: Any) -> Resumable:
    """``tf.data``'s group_by_window: elements gathered per key (``key_of``); a group that
    reaches ``size_of(key)`` becomes the iterator ``reduce(key, elements)``, whose elements
    are produced; at the end the other groups follow in increasing key order. An error in
    an element or its key drops that element; the groups are kept."""
    groups: dict = {}
    state: dict = {"current": None, "ended": False}

    def step(r):
        while True:
            if state["current"] is not None:
                element = next(state["current"], _END)
                if element is not _END:
                    return element
                state["current"] = None
            elif state["ended"]:
                if not groups:
                    raise StopIteration
                key = min(groups)
                state["current"] = reduce(key, groups.pop(key))
            else:
                element = _pull_or_raise_end(r, state)
                if element is _END:
                    continue
                key = key_of(element)
                group = groups.setdefault(key, [])
                group.append(element)
                if len(group) >= size_of(key):
                    state["current"] = reduce(key, groups.pop(key))
    return Resumable(step, it)


def _pull_or_raise_end(r, state):
    try:
        return r.pull()
    except StopIteration:
        state["ended"] = True
        return _END


def rebatched(it: Any, size: int, drop_remainder: bool) -> Resumable:
    """Batches of ``size`` rows cut from the batched input elements (rows of one element
    may go to two batches). As ``tf.data``'s rebatch, an input error drops the rows already
    taken for the batch being built."""
    pending: dict = {"flat": None, "offset": 0, "like": None, "ended": False}

    def step(r):
        chunks, count = [], 0
        while count < size and not pending["ended"]:
            if pending["flat"] is None:
                try:
                    element = r.pull()
                except StopIteration:
                    pending["ended"] = True
                    break
                pending.update(flat=[np.asarray(t._value) for t in structure.flatten(element)],
                               offset=0, like=element)
            flat, start = pending["flat"], pending["offset"]
            rows = flat[0].shape[0] if flat else 0
            end = min(start + size - count, rows)
            chunks.append([a[start:end] for a in flat])
            count += end - start
            pending["offset"] = end
            if end == rows:
                pending["flat"] = None
        if count == 0 or (drop_remainder and count < size):
            raise StopIteration
        columns = [np.concatenate(c) for c in zip(*chunks, strict=True)]
        return structure.pack(pending["like"], [Tensor(c) for c in columns])
    return Resumable(step, it)

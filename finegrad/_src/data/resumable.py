"""Element iterators that survive an error, for ``Dataset.ignore_errors``.

``tf.data`` keeps each stage's position when an element fails: ``ignore_errors`` asks again
and the stages go on from the next input element. A Python generator that raised is
finished, so the stages iterate with `Resumable`, which stays usable after an element
raised, and each keeps ``tf.data``'s state across the error: `map`, `filter`,
`from_generator`, `batch`, `padded_batch`, `repeat`, `enumerate`, `zip`, `take`, `skip`,
`prefetch`, `interleave`, `flat_map`, `scan`, `take_while`, `choose_from_datasets`,
`sample_from_datasets` (and `rejection_resample`, made of these), another
``ignore_errors``, and (``resumable_regroup``) `window`, `shard`, `group_by_window`,
`bucket_by_sequence_length`, `unique` and `rebatch`. The generator stages `shuffle`,
`cache`, `concatenate` and `unbatch` read their input through `guarded`, which drops a
failed element before the generator sees it. An error raised inside any other generator
stage left it finished: ``ignore_errors`` then raises `UnimplementedError` rather than
end the dataset early.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from finegrad._src.errors import InvalidArgumentError, UnimplementedError


class Resumable:
    """An iterator calling ``step(self)`` for each element; ``step`` takes its input
    elements with ``self.pull()``. An error raised by ``step`` leaves it usable, unless the
    error came out of an input stage that cannot resume (then `broken` is set). With
    ``source`` (a Python generator as the input, `from_generator`), an error from the
    input ends it, as in ``tf.data``."""

    def __init__(self, step: Any, input: Any, source: bool = False) -> None:
        self._step, self._input, self._source = step, input, source
        self.broken = False

    def __iter__(self):
        return self

    def __next__(self):
        return self._step(self)

    def pull(self) -> Any:
        """The next input element (StopIteration at the end)."""
        try:
            return next(self._input)
        except StopIteration:
            raise
        except Exception:
            inp = self._input
            if not self._source and (not isinstance(inp, Resumable) or inp.broken):
                self.broken = True
            raise


_END = object()
_IGNORING = threading.local()     # .stack: the log_warning of each active ignore_errors


def _ignoring():
    stack = getattr(_IGNORING, "stack", None)
    return stack[-1] if stack else None


def _log_dropped(e):
    logging.getLogger("finegrad").warning("Dataset.ignore_errors: dropped an element: %s: %s",
                                          type(e).__name__, e)


def guarded(it: Any) -> Any:
    """The input of a stage that is a Python generator: while an ``ignore_errors`` further
    down is pulling, an element that fails in a resumable stage above is dropped here (the
    generator never sees the error, and goes on as ``tf.data``'s stages do); otherwise the
    error passes. An input that is not resumable is returned as it is."""
    if not isinstance(it, Resumable):
        return it

    def elements():
        while True:
            try:
                element = next(it)
            except StopIteration:
                return
            except Exception as e:   # dropped only for an ignore_errors downstream
                log = _ignoring()
                if log is None or it.broken:
                    raise
                if log:
                    _log_dropped(e)
                continue
            yield element
    return elements()


def ignoring_errors(it: Any, log_warning: bool) -> Any:
    """The elements of ``it`` with those that raise dropped (``Dataset.ignore_errors``).

    Raises:
        UnimplementedError: when the error went through a stage that cannot resume.
    """
    def step(_):
        while True:
            stack = _IGNORING.__dict__.setdefault("stack", [])
            stack.append(log_warning)
            try:
                return next(it)
            except StopIteration:
                raise
            except Exception as e:   # tf.data drops an element whatever its error
                if not isinstance(it, Resumable) or it.broken:
                    raise UnimplementedError(
                        f"Dataset.ignore_errors: an element raised {type(e).__name__} "
                        f"inside a transformation that finegrad cannot resume after an error "
                        f"(see finegrad._src.data.resumable for those that can); "
                        f"apply ignore_errors directly after the transformation that raises"
                    ) from e
                if log_warning:
                    _log_dropped(e)
            finally:
                stack.pop()
    return Resumable(step, it)


def mapped(it: Any, fn: Any, source: bool = False) -> Resumable:
    """``fn`` of each element of ``it`` (``source``: see `Resumable`)."""
    return Resumable(lambda r: fn(r.pull()), it, source)


def filtered(it: Any, keep: Any) -> Resumable:
    """The elements of ``it`` for which ``keep(element)`` is true."""
    def step(r):
        while True:
            element = r.pull()
            if keep(element):
                return element
    return Resumable(step, it)


def taken(it: Any, n: int) -> Resumable:
    """The first ``n`` elements of ``it`` (all with a negative ``n``)."""
    count = [0]

    def step(r):
        if 0 <= n <= count[0]:
            raise StopIteration
        element = r.pull()
        count[0] += 1
        return element
    return Resumable(step, it)


def skipped(it: Any, n: int) -> Resumable:
    """All but the first ``n`` elements of ``it`` (none with a negative ``n``)."""
    left = [n]

    def step(r):
        if left[0] < 0:
            raise StopIteration
        while left[0] > 0:
            try:
                r.pull()
            except StopIteration:
                raise
            except Exception:
                left[0] = -1      # as tf.data: an error while skipping ends the dataset
                raise
            left[0] -= 1
        return r.pull()
    return Resumable(step, it)


def batched(it: Any, size: int, drop_remainder: bool, stack: Any,
            read_whole: bool = True) -> Resumable:
    """Batches of ``size`` elements stacked by ``stack``; as in ``tf.data``, a batch in which
    an element failed is dropped with the error: read to its end first (``batch``), or at
    once (``read_whole=False``, ``padded_batch``)."""
    done = [False]

    def step(r):
        if done[0]:
            raise StopIteration
        chunk, error = [], None
        for _ in range(size):
            try:
                chunk.append(r.pull())
            except StopIteration:
                done[0] = True
                break
            except Exception as e:   # the batch fails; its other elements are still read
                if r.broken or not read_whole:
                    raise
                error = error or e
        if error is not None:
            raise error
        if not chunk or drop_remainder and len(chunk) < size:
            raise StopIteration
        return stack(chunk)
    return Resumable(step, it)


def repeated(make_iterator: Any, n: int, spare: bool = False) -> Resumable:
    """The elements of ``make_iterator()`` ``n`` times over (forever when negative; then
    an empty pass ends it). As ``tf.data``'s repeat, a finite one starts its input at once
    and each next pass as the last ends; with ``spare`` also one after the last pass,
    dropped (which moves a shuffle upstream on to its next seeds)."""
    state = {"rounds": 0, "fresh": True, "over": n == 0}

    def step(r):
        while not state["over"]:
            if r._input is None:
                r._input, state["fresh"] = make_iterator(), True
            try:
                element = r.pull()
            except StopIteration:
                state["rounds"] += 1
                finished = 0 <= n <= state["rounds"]
                r._input = None
                if n > 0 and (spare or not finished):
                    following = make_iterator()
                    if finished:
                        _close(following)
                    else:
                        r._input, state["fresh"] = following, True
                state["over"] = finished or (n < 0 and state["fresh"])
                continue
            state["fresh"] = False
            return element
        raise StopIteration
    return Resumable(step, make_iterator() if n > 0 else None)


def zipped(its: list, pack: Any) -> Resumable:
    """Tuples (``pack``) of one element of each iterator, as long as the shortest; as in
    ``tf.data``, every input is read at each step, and an error from one loses the
    elements the others gave in that step."""
    def step(r):
        elements, error = [], None
        for it in its:
            try:
                elements.append(next(it))
            except StopIteration:
                raise
            except Exception as e:
                if not isinstance(it, Resumable) or it.broken:
                    r.broken = True
                    raise
                error = error or e
        if error is not None:
            raise error
        return pack(elements)
    return Resumable(step, None)


def _close(it: Any) -> None:
    close = getattr(it, "close", None)
    if close is not None:
        close()


def directed(selector: Any, its: list, stop_on_empty: bool, fn: str) -> Resumable:
    """``tf.data``'s directed interleave: for each index ``selector`` gives, the next
    element of that input; an exhausted input is passed over (its later choices skipped)
    or, with ``stop_on_empty``, ends the result, which also ends when every input is."""
    active = [True] * len(its)

    def step(r):
        while any(active):
            i = int(r.pull()._value)
            if not 0 <= i < len(its):
                raise InvalidArgumentError(f"{fn}: selected index {i} is outside "
                                           f"[0, {len(its)})")
            if not active[i]:
                continue
            try:
                return next(its[i])
            except StopIteration:
                pass
            except Exception:
                if not isinstance(its[i], Resumable) or its[i].broken:
                    r.broken = True
                raise
            active[i] = False
            if stop_on_empty:
                active[:] = [False] * len(its)
        raise StopIteration
    return Resumable(step, selector)


def interleaved(it: Any, open_iterator: Any, cycle: int, block: int) -> Resumable:
    """``tf.data``'s interleave: ``cycle`` slots visited in turn, ``block`` elements from
    each; an empty slot opens ``open_iterator(next input element)`` when its turn comes, an
    exhausted one is emptied and the turn passes on. An error (from the input, from
    ``open_iterator`` or from a slot) leaves the position as it was, so the same slot is
    asked again."""
    slots: list = [None] * cycle
    pos = {"i": 0, "taken": 0, "open": 0, "ended": False}

    def advance():
        pos["i"], pos["taken"] = (pos["i"] + 1) % cycle, 0

    def step(r):
        while not pos["ended"] or pos["open"]:
            i = pos["i"]
            if slots[i] is not None:
                element = next(slots[i], _END)
                if element is not _END:
                    pos["taken"] += 1
                    if pos["taken"] == block:
                        advance()
                    return element
                slots[i] = None
                pos["open"] -= 1
                advance()
            elif not pos["ended"]:
                try:
                    element = r.pull()
                except StopIteration:
                    pos["ended"] = True
                    continue
                slots[i] = open_iterator(element)
                pos["open"] += 1
            else:
                advance()
        raise StopIteration
    return Resumable(step, it)


def scanned(it: Any, initial: Any, step_fn: Any) -> Resumable:
    """The outputs of ``step_fn(state, element) -> (state, output)`` from ``initial``; an
    error leaves the state as it was."""
    state = [initial]

    def step(r):
        state[0], out = step_fn(state[0], r.pull())
        return out
    return Resumable(step, it)


def taken_while(it: Any, keep: Any) -> Resumable:
    """The elements up to the first for which ``keep`` is false; an element whose
    ``keep`` raised is dropped with the error."""
    over = [False]

    def step(r):
        if over[0]:
            raise StopIteration
        element = r.pull()
        if not keep(element):
            over[0] = True
            raise StopIteration
        return element
    return Resumable(step, it)

"""What a TF1 graph built from each value guard, so that a run checks a guard only when its
fetches need something built from the guarded value.

A value guard (`ir.size_guard_p`) is made when a graph tensor's value is used as a static
argument while the graph is built (``range(n)`` of a fed scalar ``n``): the public call that
asked for it (the outermost finegrad frame of the user's call) computes with the built value.
What that value can reach: the nodes that call records and the tensors it makes (as
constants, captured by whichever node uses them later). `GuardUses` notes both: the nodes
recorded by the same call, and the tensors made while that call runs. For that time the
call's thread has a ``births`` hook in its recording state (`state.births`, which
`Tensor.__init__` calls only while some thread has one): no class attribute changes, and
other threads' tensors are not noted. A session plan joins a guard when it runs one of
those nodes or reads one of those constants (session.py); a guard with no such use joins
every plan, and so does every guard for a plan that fetches a constant (one of those
tensors, never captured). A nested trace (a cond branch) that uses one of those tensors
captures it from the graph (`GraphRecorder.knows`), so the guard follows it there too."""
import threading
import weakref

from finegrad._src.state import state as _state
from finegrad._src.state import watching_births

_lock = threading.Lock()


class _Watchers(threading.local):
    def __init__(self):
        self.uses = []   # the GuardUses whose guarded call runs on this thread


_watchers = _Watchers()


def _born(t):
    """This thread's ``births`` hook: each watching GuardUses notes tensor ``t``."""
    for w in list(_watchers.uses):
        w._born_now(t)


def _watch(uses):
    """Follow the tensors this thread makes for ``uses`` (its guarded call runs here)."""
    if uses in _watchers.uses:
        return
    if not _watchers.uses:
        _state.births = _born
        with _lock:
            watching_births[0] += 1
    _watchers.uses.append(uses)


def _unwatch(uses):
    """Stop following this thread's tensors for ``uses`` (only its own thread may)."""
    if uses not in _watchers.uses:
        return
    _watchers.uses.remove(uses)
    if not _watchers.uses:
        _state.births = None
        with _lock:
            watching_births[0] -= 1


class GuardUses:
    """Per graph recorder: guard node index -> ({node indices}, {constant slots})."""

    def __init__(self, calling_frame):
        self.targets = {}
        self.used = set()       # the guards whose value built something
        self._frame_of = calling_frame
        self._pending = None    # (frame of the guarded call, thread, [guard node indices])
        self._born = {}         # id(tensor) -> (weakref to it, [guard node indices])

    def guard_made(self, index):
        frame = self._frame_of()[0]
        self.targets[index] = (set(), set())
        if self._pending is not None and self._pending[0] is frame:
            self._pending[2].append(index)
            return
        self._stop()
        self._pending = (frame, threading.get_ident(), [index])
        _watch(self)

    def _still_in_call(self):
        """Whether the guarded call is still running (else: stop watching it)."""
        if self._pending is None:
            return False
        if self._frame_of()[0] is self._pending[0]:
            return True
        self._stop()
        return False

    def _stop(self):
        """The guarded call is over: on its thread the hook goes now, on another at the
        next tensor that thread makes (`_born_now`)."""
        self._pending = None
        _unwatch(self)

    def _born_now(self, t):
        if self._pending is None or threading.get_ident() != self._pending[1]:
            _unwatch(self)   # stopped (or moved to another thread) meanwhile
            return
        if self._still_in_call():
            self._born[id(t)] = (weakref.ref(t), list(self._pending[2]))
            self.used.update(self._pending[2])

    def node_recorded(self, index):
        if self._still_in_call():
            for i in self._pending[2]:
                self.targets[i][0].add(index)
            self.used.update(self._pending[2])

    def is_born(self, t):
        """Whether ``t`` was made by a guarded call and not yet captured."""
        born = self._born.get(id(t))
        return born is not None and born[0]() is t

    def const_captured(self, t, slot):
        born = self._born.pop(id(t), None)
        if born is not None and born[0]() is t:
            for i in born[1]:
                self.targets[i][1].add(slot)

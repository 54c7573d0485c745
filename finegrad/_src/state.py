"""The per-thread state of recording: the active recorders and the current tracer.

Every layer asks the same two questions: which recorders see the op that just ran (`bind`,
variable reads), and is a `finegrad.function` trace under way (a traced tensor has no value
for Python to branch on, and its open sizes show as None in ``Tensor.shape``). The answers
live here, below `tensor` and `core`, so a Tensor can ask the tracer itself instead of
calling hooks that higher modules install. `core` manages the state (push, pop, nest). The
third entry, the gradient overrides of the innermost ``gradient_override_map`` scope, tells
`bind` which primitive to record in place of another (graph/override.py builds them). The
fourth, the read listener, is told of every variable read without being a recorder (so the
ops run meanwhile keep `bind`'s one-recorder path): `custom_gradient` learns that way which
variables its function reads.
"""
import threading


class _State(threading.local):
    def __init__(self):
        self.recorders = ()   # active recorders, outermost first (a tuple: cheap to snapshot)
        self.tracer = None     # the graph builder of the innermost finegrad.function trace
        self.gradient_overrides = {}  # Primitive -> the Primitive recorded in its place
        self.read_listener = None  # told of variable reads: `listener.variable_read(v, t)`
        # the trace an `init_scope` lifted this thread out of (ops there run eagerly, but the
        # trace's tensors keep refusing to give their values, and new variables are its own)
        self.lifted = None
        # told of every Tensor made on this thread while a TF1 graph follows a guarded call
        # (v1/value_guards.py): ``births(tensor)``; None otherwise
        self.births = None


state = _State()
# how many threads have a ``births`` hook: `Tensor.__init__` reads its thread's hook only
# while this is nonzero (one list lookup otherwise)
watching_births = [0]

"""TensorFlow 1's random seeds in graphs: ``set_random_seed``, ``get_seed`` and the bit streams
of TensorFlow's stateful random kernels.

In a TF1 graph a random op's two seeds come from the graph-level seed (``set_random_seed``)
and its op seed as TensorFlow derives them (`get_seed`: an op without a seed takes the next
number of the graph's counter; only an op seed: the default graph seed 87654321; neither:
nondeterministic). TensorFlow's kernel for seeds ``(seed, seed2)`` is a Philox4x32-10
generator with key ``seed`` and counter ``(0, seed2)``, which each run of the op advances by
256 blocks per output element (the kernel's reservation). `KernelStream` reproduces that: each
session keeps, per op, how far its generator has advanced (in the session's values, beside its
variables), so a new session starts each op from the beginning as TensorFlow does. Uniform
values are TensorFlow's bit for bit, normals to the last bit or two (Box-Muller's log, sin and
cos are NumPy's), truncated normals the same (TensorFlow's rejection, group by group);
``random_shuffle``, ``multinomial``/``categorical``, ``random_gamma`` and ``random_poisson``
follow TensorFlow's kernels (`ops.random.tf_kernels`) and give its values too.
"""

from __future__ import annotations

from finegrad._src import core
from finegrad._src.graph import ir
from finegrad._src.ops.random.sampling import set_seed
from finegrad._src.ops.random.streams import (DEFAULT_GRAPH_SEED, MAXINT32, KernelStream,
                                              Stream, tf_seeds)

from typing import Any


def set_random_seed(seed: Any) -> None:
    """Set the graph-level random seed of the default graph (``tf.compat.v1.set_random_seed``);
    eagerly, TensorFlow 2's global seed (`finegrad.random.set_seed`).

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> def first_draw():
    ...     with fg.Graph().as_default():
    ...         v1.set_random_seed(42)
    ...         x = v1.random_uniform([2])
    ...         with v1.Session() as sess:
    ...             return sess.run(x)
    >>> bool((first_draw() == first_draw()).all())
    True
    """
    g = _graph()
    if g is None:
        set_seed(seed)
        return
    g.seed = None if seed is None else int(seed)
    g._seed_offset = 0


def _graph():
    """The TF1 graph being built (v1/graphs.py), which the tracer knows, or None."""
    return getattr(core.current_tracer(), "v1_graph", None)


def get_seed(op_seed: Any) -> Any:
    """The (graph seed, op seed) pair a random op of the default graph uses (TensorFlow's
    rule, see the module docstring); ``(None, None)`` when it is nondeterministic."""
    g = _graph()
    if g is None:                    # eagerly or in a function: TensorFlow 2's rules
        return tf_seeds(None if op_seed is None else int(op_seed))
    if g.seed is not None:
        if op_seed is None:
            op_seed = g._seed_offset
            g._seed_offset += 1
        seeds: tuple[Any, Any] = g.seed % MAXINT32, int(op_seed) % MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % MAXINT32
    else:
        seeds = None, None
    return (0, MAXINT32) if seeds == (0, 0) else seeds


class SessionKernelStream(KernelStream):
    """A TF1 graph's kernel stream: each session keeps the positions of its generators in
    its values (beside its variables), so a new session starts each op from the beginning,
    as TensorFlow does."""

    def _positions(self):
        values = ir.current_shadow()
        return super()._positions() if values is None else values


def graph_stream(op_seed):
    """The stream of a random op made now in a TF1 graph with op seed ``op_seed``."""
    seed, seed2 = get_seed(op_seed)
    if seed is None:
        return Stream(None)
    return SessionKernelStream(seed, seed2)

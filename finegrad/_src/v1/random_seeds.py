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

import ctypes
import ctypes.util
import itertools

import numpy as np

from finegrad._src import core
from finegrad._src.graph import ir
from finegrad._src.ops.random import philox, tf_kernels
from finegrad._src.ops.random.sampling import set_seed
from finegrad._src.ops.random.streams import DEFAULT_GRAPH_SEED, Stream

from typing import Any

_MAXINT32 = 2 ** 31 - 1
_M32 = 0xFFFFFFFF
RESERVED_PER_OUTPUT = 256   # the blocks TensorFlow's kernels reserve per output, per run
_ids = itertools.count()


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
    if g is None:                    # eagerly: TensorFlow 2's global seed rules
        return (None, None) if op_seed is None else (DEFAULT_GRAPH_SEED, int(op_seed))
    if g.seed is not None:
        if op_seed is None:
            op_seed = g._seed_offset
            g._seed_offset += 1
        seeds: tuple[Any, Any] = g.seed % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        seeds = None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


class KernelStream(Stream):
    """The generator of one stateful random op of a TF1 graph, seeded as TensorFlow's kernel."""

    def __init__(self, seed, seed2):
        super().__init__((seed, seed2), follows_global=False)
        self.key = (seed & _M32, (seed >> 32) & _M32)
        self.seed2 = seed2
        self._position = ("random kernel", next(_ids))

    def _advance(self, n):
        """The generator's position before this run (in blocks), moved on by the run's
        reservation for ``n`` outputs."""
        return self._advance_blocks(n * RESERVED_PER_OUTPUT)

    def _advance_blocks(self, blocks):
        """The generator's position before this run (in blocks), moved on by ``blocks``."""
        values = ir.current_shadow()
        if values is None:                 # eagerly: this object keeps it
            values = self.__dict__.setdefault("_eager", {})
        start = values.get(self._position, 0)
        dict.__setitem__(values, self._position, start + blocks)
        return start

    def shuffle(self, x):
        """RandomShuffle's rows of ``x`` (TensorFlow's kernel, `tf_kernels`)."""
        x = np.asarray(x)
        n = x.shape[0] if x.ndim else 0
        if x.size <= 1 or n <= 1:          # the kernel copies and reserves nothing
            return x.copy()
        state = self._state(self._advance_blocks(tf_kernels.shuffle_blocks(n)))
        return x[tf_kernels.shuffle_permutation(state, n)]

    def categorical(self, logits, num_samples, dtype):
        """Multinomial's class ids for ``logits`` ``[batch, classes]``."""
        batch = np.shape(logits)[0]
        if batch * num_samples == 0:
            return np.zeros((batch, num_samples), dtype)
        start = self._advance_blocks(tf_kernels.multinomial_blocks(batch, num_samples))
        return tf_kernels.multinomial(self._state(start), logits, num_samples).astype(dtype)

    def per_output(self, kind, params, shape, dtype):
        """RandomGamma's (``kind`` "gamma") or RandomPoisson's ("poisson") samples, of shape
        ``shape + params.shape``."""
        params = np.asarray(params)
        num_samples = int(np.prod(shape, dtype=np.int64))
        if num_samples == 0 or params.size == 0:
            return np.zeros(tuple(shape) + params.shape, dtype)
        start = self._advance_blocks(tf_kernels.per_output_blocks(params.size, num_samples))
        draw = tf_kernels.gamma if kind == "gamma" else tf_kernels.poisson
        out = draw(self._state(start), params, num_samples, dtype)
        return out.reshape(tuple(shape) + params.shape)

    def _state(self, start):
        s2 = self.seed2
        return (start & _M32, (start >> 32) & _M32, s2 & _M32, (s2 >> 32) & _M32), self.key

    def draw(self, dist, shape, dtype, low=None, high=None):
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64))
        state = self._state(self._advance(n))
        if dist == "uniform":
            out = philox.uniform(None, tuple(shape), dt, low, high, state=state)
        elif dist == "normal":
            out = _normal(state, n, dt).reshape(shape)
        else:
            out = _truncated_normal(state, n, dt).reshape(shape)
        out = np.asarray(out, dt)
        return out if out.ndim else out[()]


def _truncated_normal(state, n, dt):
    """TensorFlow's truncated normals: each group of four outputs (two for float64) starts
    ``RESERVED_PER_OUTPUT`` blocks per output after the previous one and takes Box-Muller
    pairs of its words, in order, keeping values under 2 in magnitude."""
    wide = dt == np.float64
    group = 2 if wide else 4
    groups = -(-n // group)
    counter, key = state
    words_per_pair = 4 if wide else 2
    base = np.arange(groups, dtype=np.uint64) * np.uint64(group * RESERVED_PER_OUTPUT // 4)
    out = np.zeros((groups, group), np.float64 if wide else np.float32)
    filled = np.zeros(groups, np.int64)
    j = 0
    while (filled < group).any():
        todo = np.nonzero(filled < group)[0]
        words = philox.blocks(counter, key, len(todo), base[todo] + np.uint64(j))
        j += 1
        for p in range(4 // words_per_pair):
            pair = words[:, p * words_per_pair:(p + 1) * words_per_pair]
            for v in _box_muller(pair, wide):
                ok = (np.abs(v) < 2.) & (filled[todo] < group)
                rows = todo[ok]
                out[rows, filled[rows]] = v[ok]
                filled[rows] += 1
    return out.reshape(-1)[:n].astype(dt)


def _box_muller(words, wide):
    """The two normals of Box-Muller pairs of uniform words, as TensorFlow's kernel computes
    them: ``2 pi u`` in double precision then rounded; in float32, the C library's ``logf``,
    ``sinf`` and ``cosf`` (TensorFlow's calls; computed in float64 and rounded where there is
    no C library to call, which differs in the last bit for about one value in a hundred)."""
    if wide:
        u1 = philox._unit_float(words[:, :2], np.float64)
        u2 = philox._unit_float(words[:, 2:], np.float64)
        u1 = np.maximum(u1, 1e-7)
        v1 = 2. * np.pi * u2
        r = np.sqrt(-2. * _c_call("log", np.log, u1, np.float64))
        return _c_call("sin", np.sin, v1, np.float64) * r, \
            _c_call("cos", np.cos, v1, np.float64) * r
    f32 = np.float32
    u1 = np.maximum(philox._unit_float(words[:, :1], f32), f32(1e-7))
    u2 = philox._unit_float(words[:, 1:], f32)
    v1 = (2. * np.pi * u2.astype(np.float64)).astype(f32)
    r = np.sqrt(f32(-2) * _c_call("logf", np.log, u1, f32))
    return _c_call("sinf", np.sin, v1, f32) * r, _c_call("cosf", np.cos, v1, f32) * r


def _c_call(name, fallback, x, dt):
    """The C library's function ``name`` (of dtype ``dt``) on each element of ``x``."""
    fn = _libm().get(name)
    if fn is None:
        return fallback(x.astype(np.float64)).astype(dt)
    return fn(x).astype(dt)


def _libm(cache={}):  # noqa: B006 (loaded once)
    if "fns" not in cache:
        cache["fns"] = {}
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            for name in ("logf", "sinf", "cosf", "log", "sin", "cos"):
                f = getattr(lib, name)
                c = ctypes.c_float if name.endswith("f") else ctypes.c_double
                f.restype, f.argtypes = c, [c]
                cache["fns"][name] = np.frompyfunc(f, 1, 1)
        except (OSError, AttributeError):
            cache["fns"] = {}
    return cache["fns"]


def _normal(state, n, dt):
    """TensorFlow's normals: each block's four words are two Box-Muller pairs (float64: one
    pair of two-word values), outputs in order."""
    wide = dt == np.float64
    per_block = 2 if wide else 4
    counter, key = state
    words = philox.blocks(counter, key, -(-n // per_block))
    if wide:
        a, b = _box_muller(words, True)
        out = np.stack([a, b], 1)
    else:
        a, b = _box_muller(words[:, :2], False)
        c, d = _box_muller(words[:, 2:], False)
        out = np.stack([a, b, c, d], 1)
    return out.reshape(-1)[:n].astype(dt)


def graph_stream(op_seed):
    """The stream of a random op made now in a TF1 graph with op seed ``op_seed``."""
    seed, seed2 = get_seed(op_seed)
    if seed is None:
        return Stream(None)
    return KernelStream(seed, seed2)

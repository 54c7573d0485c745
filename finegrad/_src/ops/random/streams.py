"""Where random values come from: streams, TensorFlow's global seed, and the random primitives.

A `Stream` is a Philox bit generator (NumPy's) started from a key. Random primitives carry
their stream as a parameter and draw from it when they *run*, not when they are traced: a
random op inside `finegrad.function` is a graph node (declared ``stateful``, so compiled
graphs never fold it into a constant nor merge two of them) that gives new values on every
call. While a trace computes its example values, a draw peeks at a copy of the stream, so the
trace does not consume values.

Which stream an op draws from follows TensorFlow 2's global-seed rules (`tf.random.set_seed`,
`tf_seeds`): no global seed and no op seed: a nondeterministic stream; otherwise TensorFlow's
kernel for the seed pair (global seed, op seed) (`KernelStream`: its Philox4x32 stream, read as
TensorFlow's kernels read it, `tf_kernels`), where only an op seed takes the global seed
87654321, and an op without a seed takes, eagerly, the next ``randint(0, 2**31 - 1)`` of
Python's ``random.Random(global seed)`` (TensorFlow's eager context), and in a trace the
trace's counter from 0 (a function graph's). Eager ops with the same seeds, type and dtype
continue one generator (TensorFlow's kernel cache); a traced op owns its generator, which
continues from call to call; `set_seed` restarts every generator. So seeded normal, uniform
(float and int), truncated normal, shuffle, categorical, gamma and Poisson draws give
TensorFlow 2's values, eagerly and in `finegrad.function`, as do the stateless ops and the
stateful ops of a TF1 graph (whose stream is a `v1.random_seeds.SessionKernelStream`).
"""
import itertools
import random
import threading
import weakref

import numpy as np

from finegrad._src import core
from finegrad._src.core import Primitive, def_nondiff
from finegrad._src.ops.random import philox, tf_kernels

DEFAULT_GRAPH_SEED = 87654321   # TensorFlow's global seed when only an op seed is given
MAXINT32 = 2 ** 31 - 1
_M32 = 0xFFFFFFFF
RESERVED_PER_OUTPUT = 256   # the blocks TensorFlow's kernels reserve per output, per run
_kernel_ids = itertools.count()
_MASK64 = (1 << 64) - 1


class _GlobalSeed:
    """The process's random state: the global seed, the op counter, and the streams."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seed = None
        self.rng = random.Random(None)
        self.epoch = 0          # bumped by set_seed: seeded streams restart
        self.streams = {}       # (global seed, op seed) -> the eager stream of that pair
        self.nondet = None      # the eager nondeterministic stream
        self.trace_counters = weakref.WeakKeyDictionary()  # tracer -> its op counter

    def set(self, seed):
        with self.lock:
            self.seed = seed
            self.rng = random.Random(seed)   # the eager context's op seeds, as TensorFlow's
            self.epoch += 1
            self.streams = {}
            self.trace_counters = weakref.WeakKeyDictionary()


GLOBAL = _GlobalSeed()


def key_of(seeds):
    """A 128-bit Philox key from a sequence of integers (negative ones wrap, as uint64)."""
    k = 0
    for i, s in enumerate(seeds):
        k |= (int(s) & _MASK64) << (64 * i)
    return k


class Stream:
    """A Philox stream from ``seeds`` (a tuple of ints; None: fresh OS entropy). With
    ``follows_global``, `set_seed` restarts it from its seeds (TensorFlow's seeded ops)."""

    def __init__(self, seeds=None, follows_global=True):
        self.seeds = seeds
        self.follows_global = follows_global
        self._restart()

    def _restart(self):
        self.epoch = GLOBAL.epoch
        if self.seeds is None:
            self.bits = np.random.Philox(np.random.SeedSequence())
        else:
            self.bits = np.random.Philox(key=key_of(self.seeds))

    def generator(self):
        """A NumPy Generator on this stream; while tracing, on a copy (the trace's example
        values consume nothing: the first call of the graph draws what eager code would)."""
        if self.follows_global and self.seeds is not None and self.epoch != GLOBAL.epoch:
            self._restart()
        if core.current_tracer() is not None:
            bits = np.random.Philox()
            bits.state = self.bits.state
            return np.random.Generator(bits)
        return np.random.Generator(self.bits)

    def __repr__(self):
        return "Stream(nondeterministic)" if self.seeds is None else f"Stream{self.seeds}"


class KernelStream(Stream):
    """The generator of a stateful random op seeded ``(seed, seed2)``, as TensorFlow's kernel:
    Philox4x32-10 with key ``seed`` and counter ``(0, seed2)``, which each run advances by
    256 blocks per output (the kernel's reservation). Eagerly, ops of one type and dtype with
    the same seeds share a generator (TensorFlow's kernel cache); in a graph, each op node
    owns its stream."""

    def __init__(self, seed, seed2):
        super().__init__((seed, seed2), follows_global=False)
        self.key = (seed & _M32, (seed >> 32) & _M32)
        self.seed2 = seed2
        self._position = ("random kernel", next(_kernel_ids))

    def _positions(self):
        """Where the generators' positions are kept: this object, from the last `set_seed`
        on (which restarts every kernel, a traced function's too, as TensorFlow's clearing
        of its kernel caches does); a TF1 session keeps them in its values instead
        (`v1.random_seeds.SessionKernelStream`)."""
        if self.__dict__.get("_epoch") != GLOBAL.epoch:
            self._eager, self._epoch = {}, GLOBAL.epoch
        return self._eager

    def _advance(self, n, kind):
        """The generator's position before this run (in blocks), moved on by the run's
        reservation for ``n`` outputs."""
        return self._advance_blocks(n * RESERVED_PER_OUTPUT, kind)

    def _advance_blocks(self, blocks, kind):
        """The position of the generator of kernel ``kind`` (an op type and dtype: one
        kernel each, as TensorFlow's eager kernel cache keeps one per op and attributes)
        before this run, in blocks, moved on by ``blocks``; while a graph is traced (its
        example values), only read."""
        values = self._positions()
        key = self._position + (kind,)
        start = values.get(key, 0)
        if core.current_tracer() is None or values is not self.__dict__.get("_eager"):
            dict.__setitem__(values, key, start + blocks)
        return start

    def shuffle(self, x):
        """RandomShuffle's rows of ``x`` (TensorFlow's kernel, `tf_kernels`)."""
        x = np.asarray(x)
        n = x.shape[0] if x.ndim else 0
        if x.size <= 1 or n <= 1:          # the kernel copies and reserves nothing
            return x.copy()
        state = self._state(self._advance_blocks(tf_kernels.shuffle_blocks(n),
                                                  ("shuffle", x.dtype.str)))
        return x[tf_kernels.shuffle_permutation(state, n)]

    def categorical(self, logits, num_samples, dtype):
        """Multinomial's class ids for ``logits`` ``[batch, classes]``."""
        batch = np.shape(logits)[0]
        if batch * num_samples == 0:
            return np.zeros((batch, num_samples), dtype)
        start = self._advance_blocks(tf_kernels.multinomial_blocks(batch, num_samples),
                                     ("categorical", np.dtype(dtype).str))
        return tf_kernels.multinomial(self._state(start), logits, num_samples).astype(dtype)

    def per_output(self, kind, params, shape, dtype):
        """RandomGamma's (``kind`` "gamma") or RandomPoisson's ("poisson") samples, of shape
        ``shape + params.shape``."""
        params = np.asarray(params)
        num_samples = int(np.prod(shape, dtype=np.int64))
        if num_samples == 0 or params.size == 0:
            return np.zeros(tuple(shape) + params.shape, dtype)
        start = self._advance_blocks(tf_kernels.per_output_blocks(params.size, num_samples),
                                     (kind, np.dtype(dtype).str))
        draw = tf_kernels.gamma if kind == "gamma" else tf_kernels.poisson
        out = draw(self._state(start), params, num_samples, dtype)
        return out.reshape(tuple(shape) + params.shape)

    def _state(self, start):
        s2 = self.seed2
        return (start & _M32, (start >> 32) & _M32, s2 & _M32, (s2 >> 32) & _M32), self.key

    def draw(self, dist, shape, dtype, low=None, high=None):
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64))
        state = self._state(self._advance(n, (dist, dt.str)))
        if dist == "uniform":
            out = philox.uniform(None, tuple(shape), dt, low, high, state=state)
        elif dist == "normal":
            out = tf_kernels.normal(state, n, dt).reshape(shape)
        else:
            out = tf_kernels.truncated_normal(state, n, dt).reshape(shape)
        out = np.asarray(out, dt)
        return out if out.ndim else out[()]


def _next_op_seed():
    """The op seed of an op without one under a global seed, as TensorFlow 2 makes it:
    eagerly, the next ``randint(0, 2**31 - 1)`` of Python's ``random.Random(global seed)``
    (the eager context's generator, which `set_seed` restarts); in a trace, the trace's
    counter from 0 (a function graph's)."""
    tracer = core.current_tracer()
    with GLOBAL.lock:
        if tracer is None:
            return GLOBAL.rng.randint(0, MAXINT32)
        n = GLOBAL.trace_counters.get(tracer, 0)
        GLOBAL.trace_counters[tracer] = n + 1
        return n


def tf_seeds(op_seed):
    """TensorFlow 2's ``get_seed`` pair outside TF1 graphs: (global seed, op seed), each
    modulo 2**31 - 1; only an op seed: (87654321, op seed); neither: (None, None); never
    (0, 0)."""
    g = GLOBAL.seed
    if g is not None:
        seeds = g % MAXINT32, (_next_op_seed() if op_seed is None else op_seed) % MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, op_seed % MAXINT32
    else:
        return None, None
    return (0, MAXINT32) if seeds == (0, 0) else seeds


def op_stream(seed, fn):
    """The stream a stateful op with op seed ``seed`` (None or an int) draws from: TensorFlow's
    kernel for the op's seed pair (`tf_seeds`; a TF1 graph's own, with TensorFlow 1's
    graph-level seed, when one is being built), or a nondeterministic one."""
    if seed is not None:
        from finegrad._src.shapes import as_int
        seed = as_int(seed, fn, "seed")
    graph_stream = getattr(core.current_tracer(), "random_stream", None)
    if graph_stream is not None:
        return graph_stream(seed)
    traced = core.current_tracer() is not None
    seed1, seed2 = tf_seeds(seed)
    if seed1 is None:
        if traced:
            return Stream(None)
        if GLOBAL.nondet is None:
            GLOBAL.nondet = Stream(None, follows_global=False)
        return GLOBAL.nondet
    if traced or seed is None:   # a traced op owns its kernel; an eager op seed is new
        return KernelStream(seed1, seed2)
    with GLOBAL.lock:   # eager ops with the same seeds share kernels (TensorFlow's cache)
        s = GLOBAL.streams.get((seed1, seed2))
        if s is None:
            s = GLOBAL.streams[(seed1, seed2)] = KernelStream(seed1, seed2)
    return s


# --- drawing: one function per distribution, shared by the stateful and stateless primitives --

def draw(rng, dist, shape, dtype, low=None, high=None):
    """``shape`` values of distribution ``dist`` as NumPy dtype ``dtype``."""
    dt = np.dtype(dtype)
    if dist == "normal":
        return _real(rng.standard_normal(shape, np.float64 if dt.itemsize > 4 else np.float32),
                     dt)
    if dist == "uniform":
        if dt.kind in "iu":
            return rng.integers(low, high, shape, dtype=dt)
        return _real(rng.random(shape, np.float64 if dt.itemsize > 4 else np.float32), dt,
                     unit=True)
    if dist == "truncated_normal":
        # TensorFlow's truncation: a standard normal redrawn where |x| > 2
        x = rng.standard_normal(shape)
        bad = np.abs(x) > 2
        while bad.any():
            x[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(x) > 2
        return _real(x, dt)
    raise ValueError(f"finegrad.random: unknown distribution {dist!r}")


def _real(x, dt, unit=False):
    """``x`` as dtype ``dt`` (a NumPy scalar for shape ()); with ``unit``, kept below 1."""
    x = np.asarray(x).astype(dt, copy=False)
    if unit and dt == np.float16 and x.size:
        # rounding to float16 may reach 1.0; a uniform draw stays in [0, 1)
        x = np.minimum(x, np.float16(np.nextafter(np.float16(1), np.float16(0))))
    return x if x.ndim else x[()]


random_p = def_nondiff(Primitive("random", unify=False, fresh=True, stateful=True))


@random_p.def_impl
def _random_impl(*, stream, dist, shape, dtype, low=None, high=None):
    """Draws ``shape`` values of ``dist`` from ``stream`` (at run time, so a graph draws anew
    on every call). A stream that draws itself (a TF1 graph's: TensorFlow's kernels' bit
    streams) does."""
    own = getattr(stream, "draw", None)
    if own is not None:
        return own(dist, shape, dtype, low, high)
    return draw(stream.generator(), dist, shape, dtype, low, high)


random_like_p = def_nondiff(Primitive(
    "random_like", unify=False, fresh=True, stateful=True,
    shape_rule=lambda like, **params: tuple(like)))


@random_like_p.def_impl
def _random_like_impl(like, *, stream, dist, dtype, low=None, high=None):
    """`random` shaped like ``like`` when the graph runs (its open sizes included)."""
    own = getattr(stream, "draw", None)
    if own is not None:
        return own(dist, np.shape(like), dtype, low, high)
    return draw(stream.generator(), dist, np.shape(like), dtype, low, high)


random_poisson_p = def_nondiff(Primitive("random_poisson", unify=False, fresh=True,
                                         stateful=True))


@random_poisson_p.def_impl
def _random_poisson_impl(lam, *, stream, shape, dtype):
    """Poisson counts of rates ``lam``: shape ``shape + lam.shape`` (TensorFlow's layout)."""
    own = getattr(stream, "per_output", None)
    if own is not None:     # a TF1 graph's kernel stream: TensorFlow's values
        return _real(own("poisson", lam, shape, np.dtype(dtype)), np.dtype(dtype))
    lam = np.asarray(lam, np.float64)
    out = stream.generator().poisson(lam, tuple(shape) + lam.shape)
    return _real(out, np.dtype(dtype))


random_shuffle_p = def_nondiff(Primitive("random_shuffle", unify=False, fresh=True,
                                         stateful=True))


@random_shuffle_p.def_impl
def _random_shuffle_impl(x, *, stream):
    """A random permutation of ``x`` along its first axis (TensorFlow's: no gradient)."""
    if np.ndim(x) == 0:
        return np.array(x)
    own = getattr(stream, "shuffle", None)
    if own is not None:     # a TF1 graph's kernel stream: TensorFlow's values
        return own(x)
    return np.asarray(x)[stream.generator().permutation(np.shape(x)[0])]


def _categorical(rng, logits, num_samples, dtype):
    """``num_samples`` class ids per row of ``logits`` (unnormalized log-probabilities), by
    the Gumbel-max trick: argmax(logits + Gumbel noise), one draw per sample."""
    logits = np.asarray(logits, np.float64)
    n, k = logits.shape
    if k == 0:
        return np.zeros((n, num_samples), dtype)
    g = -np.log(-np.log(rng.random((n, num_samples, k)) + 1e-300) + 1e-300)
    return np.argmax(logits[:, None, :] + g, axis=-1).astype(dtype)


random_categorical_p = def_nondiff(Primitive("random_categorical", unify=False, fresh=True,
                                             stateful=True))


@random_categorical_p.def_impl
def _random_categorical_impl(logits, *, stream, num_samples, dtype):
    own = getattr(stream, "categorical", None)
    if own is not None:     # a TF1 graph's kernel stream: TensorFlow's values
        return own(logits, num_samples, dtype)
    return _categorical(stream.generator(), logits, num_samples, dtype)


# --- stateless: pure functions of (shape, seed); the seed is an input, so it may be traced ----

def stateless_generator(seed):
    """A generator that depends only on the two integers of ``seed``."""
    s = np.asarray(seed).reshape(-1)
    return np.random.Generator(np.random.Philox(key=key_of(s.tolist())))


stateless_random_p = def_nondiff(Primitive("stateless_random", unify=False, fresh=True))


@stateless_random_p.def_impl
def _stateless_random_impl(seed, *, dist, shape, dtype, low=None, high=None):
    """Uniform, normal and truncated normal values are TensorFlow's own (its Philox4x32
    stream, `philox`)."""
    if dist == "uniform":
        return _real(philox.uniform(seed, shape, dtype, low, high), np.dtype(dtype))
    if dist == "normal":
        return _real(philox.normal(seed, shape, dtype), np.dtype(dtype))
    if dist == "truncated_normal":
        return _real(philox.truncated_normal(seed, shape, dtype), np.dtype(dtype))
    return draw(stateless_generator(seed), dist, shape, dtype, low, high)


stateless_categorical_p = def_nondiff(Primitive("stateless_categorical", unify=False,
                                                fresh=True))


@stateless_categorical_p.def_impl
def _stateless_categorical_impl(logits, seed, *, num_samples, dtype):
    """TensorFlow's StatelessMultinomial: its kernel on the seed's Philox stream."""
    if np.size(logits) == 0 or num_samples == 0:
        return np.zeros((np.shape(logits)[0], num_samples), dtype)
    return tf_kernels.multinomial(philox.key_counter(seed), logits, num_samples).astype(dtype)

"""TensorFlow's CPU kernels for ``RandomStandardNormal``, ``TruncatedNormal``,
``RandomShuffle``, ``Multinomial``, ``RandomGamma`` and ``RandomPoisson`` (and the stateless
gamma and Poisson), reproduced on TensorFlow's Philox stream, so that a seeded op gives
TensorFlow's values.

Each function takes the Philox ``(counter, key)`` the kernel starts from (the state a
`KernelStream` of a TF1 graph, or a stateless seed, gives) and reads the stream as the kernel
does:

- normal: each block's four words are two Box-Muller pairs (float64: one pair of two-word
  values), outputs in order; truncated normal: TensorFlow's rejection, group by group;
- shuffle: one 32-bit word per swap of a Fisher-Yates pass (``word % (n - i)``), the words in
  order; the kernel reserves ``ceil((n - 1) / 4)`` blocks;
- multinomial: per row, the unnormalized CDF ``cumsum(exp(logits - max))`` over the finite
  logits, then per sample a double from two words times the total, and the first class whose
  CDF exceeds it; all rows read one stream in order (TensorFlow's single shard, which its
  thread pool uses for small batches: for a batch large enough to be split over threads,
  TensorFlow's own values depend on its thread count);
- gamma (Marsaglia-Tsang) and Poisson (Knuth below rate 10, Hormann's transformed rejection
  above): output ``i`` (concentration/rate major) starts 256 blocks per output into the
  stream; a normal is one block (two Box-Muller doubles, the second used first), a uniform is
  one block (two doubles, the second used first).

The arithmetic is in double precision with the C library's ``log``, ``exp``, ``pow``,
``sin``, ``cos`` and ``lgamma`` (what TensorFlow's kernels call), through Python's ``math``
(which calls the same functions) and ``ctypes`` for ``lgamma``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from finegrad._src.ops.random import philox

_RESERVED = 256
_M32 = 0xFFFFFFFF


def _offset(counter, n):
    """``counter`` (four uint32 words) plus ``n`` blocks."""
    low = counter[0] | (counter[1] << 32)
    high = counter[2] | (counter[3] << 32)
    low += n
    high = (high + (low >> 64)) & ((1 << 64) - 1)
    low &= (1 << 64) - 1
    return (low & _M32, low >> 32, high & _M32, high >> 32)


def _words(state, count):
    """The first ``count`` 32-bit words of the stream at ``state``."""
    counter, key = state
    return philox.blocks(counter, key, -(-count // 4)).reshape(-1)[:count]


def shuffle_permutation(state, n):
    """The permutation RandomShuffle applies to ``n`` rows."""
    perm = np.arange(n)
    if n <= 1:
        return perm
    words = _words(state, n - 1).tolist()
    for i in range(n - 1):
        j = i + words[i] % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def shuffle_blocks(n):
    """The blocks RandomShuffle reserves for ``n`` rows."""
    return (n - 1 + 3) // 4 if n > 1 else 0


def _doubles(words):
    """Doubles in [0, 1) from pairs of words (TensorFlow's Uint64ToDouble)."""
    return philox._unit_float(np.asarray(words, np.uint32).reshape(-1, 2), np.float64)


def multinomial(state, logits, num_samples):
    """Multinomial's class ids, an int64 array ``[batch, num_samples]``."""
    logits = np.asarray(logits)
    batch, classes = logits.shape
    u = _doubles(_words(state, 2 * batch * num_samples)).reshape(batch, num_samples)
    out = np.empty((batch, num_samples), np.int64)
    for r in range(batch):
        row = logits[r]
        finite = np.isfinite(row)
        top = np.max(row[finite]) if finite.any() else np.finfo(row.dtype).min
        cdf = np.cumsum(np.where(finite, np.exp(row.astype(np.float64) - float(top)), 0.))
        out[r] = np.searchsorted(cdf, u[r] * cdf[-1], side="right")
    return out


def multinomial_blocks(batch, num_samples):
    """The blocks Multinomial reserves on the CPU (two words per sample, rounded to 4)."""
    return batch * ((num_samples + 3) // 4 * 4) * 2 * _RESERVED


class _Draws:
    """The doubles one output of Gamma or Poisson reads: blocks from ``counter`` on, each
    giving its uniforms or normals in TensorFlow's order (the second first)."""

    def __init__(self, counter, key):
        self.counter, self.key, self.next = counter, key, 0

    def _block(self):
        b = philox.blocks(_offset(self.counter, self.next), self.key, 1)[0]
        self.next += 1
        return b

    def uniforms(self):
        u = _doubles(self._block())
        return [float(u[1]), float(u[0])]

    def normals(self):
        w = self._block().tolist()
        u1 = max(float(_doubles(w[:2])[0]), 1e-7)
        v1 = 2. * math.pi * float(_doubles(w[2:])[0])
        r = math.sqrt(-2. * math.log(u1))
        return [math.cos(v1) * r, math.sin(v1) * r]


class _Source:
    """Uniform or normal doubles drawn on demand, a block at a time."""

    def __init__(self, draws, kind):
        self.draws, self.kind, self.pending = draws, kind, []

    def __call__(self):
        if not self.pending:
            self.pending = getattr(self.draws, self.kind)()
        return self.pending.pop(0)


def _per_output(state, params, num_samples, sample_one, dtype):
    """Outputs ``[num_samples] + params.shape``: output ``i`` (parameter-major) from its own
    stream position, ``256 i`` blocks on."""
    counter, key = state
    flat = np.asarray(params, np.float64).reshape(-1)
    out = np.empty((num_samples, flat.size), np.float64)
    for p, value in enumerate(flat):
        for s in range(num_samples):
            draws = _Draws(_offset(counter, _RESERVED * (p * num_samples + s)), key)
            out[s, p] = sample_one(float(value), draws)
    return out.astype(dtype).reshape((num_samples,) + np.shape(params))


def _gamma_one(alpha, draws):
    """One Gamma(alpha, 1) sample (Marsaglia-Tsang; alpha < 1 boosted by u^(1/alpha))."""
    uniform, normal = _Source(draws, "uniforms"), _Source(draws, "normals")
    if alpha == 1.0:
        return -math.log(1.0 - uniform())
    if not alpha > -2. / 3:       # no positive d: TensorFlow's arithmetic gives nan
        return math.nan
    small = alpha < 1
    d = alpha + (2.0 / 3 if small else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    while True:
        x = normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or \
                math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            res = d * v
            if small:
                b = uniform()
                res *= _pow(b, 1 / alpha if alpha else math.inf)   # C's 1 / 0.
            return res


def _pow(b, e):
    try:
        return math.pow(b, e)
    except OverflowError:
        return math.inf


def gamma(state, alpha, num_samples, dtype):
    """RandomGamma's samples ``[num_samples] + alpha.shape``."""
    return _per_output(state, alpha, num_samples, _gamma_one, dtype)


def _poisson_knuth(rate, draws):
    uniform = _Source(draws, "uniforms")
    limit = math.exp(-rate)
    prod, x = 1.0, 0.0
    while True:
        prod *= uniform()
        if prod <= limit:
            return x
        x += 1


def _poisson_one(rate, draws):
    """One Poisson(rate) count (Knuth under 10, Hormann's transformed rejection above)."""
    if rate < 10:
        return _poisson_knuth(rate, draws)
    if math.isnan(rate) or math.isinf(rate):
        return math.nan
    uniform = _Source(draws, "uniforms")
    log_rate = math.log(rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while True:
        u = uniform() - 0.5
        v = uniform()
        u_shifted = 0.5 - abs(u)
        k = math.floor((2 * a / u_shifted + b) * u + rate + 0.43)
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return k
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        s = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        if s <= -rate + k * log_rate - _lgamma(k + 1):
            return k


def poisson(state, rate, num_samples, dtype):
    """RandomPoisson's samples ``[num_samples] + rate.shape``."""
    return _per_output(state, rate, num_samples, _poisson_one, dtype)


def per_output_blocks(num_params, num_samples):
    """The blocks RandomGamma and RandomPoisson reserve."""
    return num_params * num_samples * _RESERVED


def _lgamma(x):
    fn = _libm_lgamma()
    return fn(x) if fn is not None else math.lgamma(x)


def _libm_lgamma(cache={}):  # noqa: B006 (loaded once)
    if "fn" not in cache:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            fn = lib.lgamma
            fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
            cache["fn"] = fn
        except (OSError, AttributeError):
            cache["fn"] = None
    return cache["fn"]


# ---- normal and truncated normal ----------------------------------------------------------

def truncated_normal(state, n, dt):
    """TensorFlow's truncated normals: each group of four outputs (two for float64) starts
    ``_RESERVED`` blocks per output after the previous one and takes Box-Muller
    pairs of its words, in order, keeping values under 2 in magnitude."""
    wide = dt == np.float64
    group = 2 if wide else 4
    groups = -(-n // group)
    counter, key = state
    words_per_pair = 4 if wide else 2
    base = np.arange(groups, dtype=np.uint64) * np.uint64(group * _RESERVED // 4)
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


def normal(state, n, dt):
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

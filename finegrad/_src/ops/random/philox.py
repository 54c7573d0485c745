"""Philox4x32-10 and TensorFlow's stateless sampling on it, in NumPy.

TensorFlow's stateless ops (``tf.random.stateless_uniform``, ``stateless_normal``) on CPU
turn the seed pair into a Philox key and counter (one Philox block of the seed, under a fixed
key), then fill the output group by group, one 128-bit block (four uint32) per group, the
counter counting up. Reproducing that here gives the same values as TensorFlow: uniform
floats bit for bit, uniform integers exactly, normals to the last bit or two (Box-Muller's
log, sin and cos are NumPy's, not Eigen's).
"""
import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_MUL = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_WEYL = (0x9E3779B9, 0xBB67AE85)
_SEED_KEY = (0x3EC8F720, 0x02461E29)


def blocks(counter, key, n, offsets=None):
    """``n`` Philox4x32-10 outputs from the 128-bit ``counter`` (four uint32, low first)
    counting up, under ``key`` (two uint32): an (n, 4) uint32 array. With ``offsets`` (a
    uint64 array), the outputs at ``counter + offsets`` instead."""
    i = np.arange(n, dtype=np.uint64) if offsets is None else offsets
    c, carry = [], i
    for word in counter:
        s = np.uint64(word) + carry
        c.append(s & _M32)
        carry = s >> np.uint64(32)
    k0, k1 = key
    with np.errstate(over="ignore"):
        for _ in range(10):
            p0, p1 = _MUL[0] * c[0], _MUL[1] * c[2]
            c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & _M32,
                 (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1), p0 & _M32]
            k0, k1 = (k0 + _WEYL[0]) & 0xFFFFFFFF, (k1 + _WEYL[1]) & 0xFFFFFFFF
    return np.stack(c, 1).astype(np.uint32)


def key_counter(seed):
    """TensorFlow's key and counter for a stateless seed pair (int64s)."""
    s0, s1 = (int(s) & 0xFFFFFFFFFFFFFFFF for s in np.asarray(seed).reshape(-1)[:2])
    mix = blocks((s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32), _SEED_KEY, 1)[0]
    return (0, 0, int(mix[2]), int(mix[3])), (int(mix[0]), int(mix[1]))


def _bits(seed, n, per_group, group, state=None):
    """The uint32 words of ``n`` outputs, ``group`` outputs per block of which each uses
    ``per_group // group`` words (TensorFlow's grouping): an (n, words) array. ``state``:
    the (counter, key) to start from instead of the stateless seed's (a stateful op's)."""
    counter, key = key_counter(seed) if state is None else state
    words = per_group // group
    b = blocks(counter, key, -(-n // group)).reshape(-1, group, words)
    return b.reshape(-1, words)[:n]


def _unit_float(bits, dt):
    """Uniform [0, 1) from random bits: mantissa bits under the exponent of 1.0, minus 1."""
    if dt == np.float64:
        man = ((bits[:, 0].astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | \
            bits[:, 1].astype(np.uint64)
        return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0
    if dt == np.float16:
        man = bits[:, 0].astype(np.uint16) & np.uint16(0x3FF)
        return (man | np.uint16(15 << 10)).view(np.float16) - np.float16(1)
    man = bits[:, 0] & np.uint32(0x7FFFFF)
    return (man | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


def uniform(seed, shape, dt, low=None, high=None, state=None):
    """TensorFlow's stateless uniform values of NumPy dtype ``dt`` (``state``: see `_bits`)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind in "iu":
        if dt.itemsize == 8:
            b = _bits(seed, n, 4, 2, state).astype(np.uint64)
            x = b[:, 0] | (b[:, 1] << np.uint64(32))
        else:
            x = _bits(seed, n, 4, 4, state)[:, 0]
        if low is None:   # the full range (``random.split``): the bits as they come
            return x.view(np.dtype(f"u{x.itemsize}")).view(dt).reshape(shape)
        x = x.astype(np.uint64) % np.uint64(high - low)
        return (x.astype(np.int64) + low).astype(dt).reshape(shape)
    two = dt == np.float64
    return _unit_float(_bits(seed, n, 4, 2 if two else 4, state), dt).reshape(shape)


def normal(seed, shape, dt, state=None):
    """TensorFlow's stateless normal values (Box-Muller on pairs of uniform draws;
    ``state``: see `_bits`)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape, dtype=np.int64))
    wide = dt == np.float64
    calc = np.float64 if wide else np.float32
    b = _bits(seed, 2 * -(-n // 2), 4, 2 if wide else 4, state)
    out = _box_muller(_unit_float(b, calc).astype(calc).reshape(-1, 2), calc).reshape(-1)[:n]
    return out.astype(dt).reshape(shape)


def _box_muller(u, calc):
    """Pairs of normals from pairs of uniforms (the rows of ``u``), as TensorFlow computes."""
    u1 = np.maximum(u[:, 0], calc(1e-7))
    v1 = calc(2 * np.pi) * u[:, 1]
    r = np.sqrt(calc(-2) * np.log(u1))
    return np.stack([np.sin(v1) * r, np.cos(v1) * r], 1)


def truncated_normal(seed, shape, dt):
    """TensorFlow's stateless truncated normal values: output group ``g`` (4 values, 2 for
    float64) reads Philox blocks from ``counter + 256 g`` (``128 g``) on, one word (two for
    float64) per uniform, and keeps the Box-Muller normals inside (-2, 2) in order."""
    dt = np.dtype(dt)
    n = int(np.prod(shape, dtype=np.int64))
    wide = dt == np.float64
    calc, group, skip = (np.float64, 2, 128) if wide else (np.float32, 4, 256)
    counter, key = key_counter(seed)
    todo, tries = np.arange(-(-n // group), dtype=np.uint64), 4
    out = np.empty((todo.size, group), calc)
    while todo.size:
        offsets = (todo[:, None] * np.uint64(skip) + np.arange(tries, dtype=np.uint64))
        words = blocks(counter, key, None, offsets.reshape(-1)).reshape(-1, 2 if wide else 1)
        u = _unit_float(words, calc).astype(calc).reshape(-1, 2)
        z = _box_muller(u, calc).reshape(todo.size, -1)
        ok = np.abs(z) < 2
        enough = ok.sum(1) >= group
        first = np.argsort(~ok[enough], axis=1, kind="stable")[:, :group]
        out[todo[enough].astype(np.int64)] = np.take_along_axis(z[enough], first, 1)
        todo, tries = todo[~enough], tries * 4
    return out.reshape(-1)[:n].astype(dt).reshape(shape)

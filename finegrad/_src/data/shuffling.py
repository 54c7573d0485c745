"""``tf.data``'s shuffle, value for value: TensorFlow's ``ShuffleDataset`` order for the
same seeds.

TensorFlow draws a shuffle's random numbers from Philox4x32-10 keyed by a seed pair, one
uint32 at a time (``PhiloxRandom(seed, seed2)`` read through a single-sample adapter). The
pair of each iteration comes from the dataset's seed generator: with
``reshuffle_each_iteration`` the k-th iteration takes the uint32 numbers 2k and 2k + 1 of
Philox(seed, seed2); without, every iteration takes (seed, seed2) itself. The buffer is a
ring: once it holds ``buffer_size`` elements (or the input ended), each element produced is
the one at ``front + (draw mod count)``, whose place the front element takes.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from finegrad._src.ops.random import philox, streams

_M32 = 0xFFFFFFFF
_BLOCKS = 256     # Philox blocks (4 uint32 each) computed per NumPy call
_END = object()


def philox_u32(seeds: tuple[int, int], start_block: int = 0) -> Iterator[int]:
    """TensorFlow's ``PhiloxRandom(seed, seed2)`` uint32 outputs, one by one, from block
    ``start_block`` on."""
    s, s2 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in seeds)
    key, counter = (s & _M32, s >> 32), [0, 0, s2 & _M32, s2 >> 32]
    start = start_block
    while True:
        words = philox.blocks(counter, key, _BLOCKS,
                              np.arange(start, start + _BLOCKS, dtype=np.uint64))
        start += _BLOCKS
        yield from words.reshape(-1).tolist()


def dataset_seeds(seed: Any) -> tuple[int, int]:
    """The seed pair a ``tf.data`` random transformation made now takes: TensorFlow 2's
    (global seed, op seed) rules (`streams.tf_seeds`); with neither, a pair drawn from the
    OS, as TensorFlow's kernels replace (0, 0)."""
    pair = streams.tf_seeds(None if seed is None else int(seed))
    if pair == (None, None):
        s, s2 = np.random.SeedSequence().generate_state(2, np.uint64).tolist()
        return int(s), int(s2)
    return int(pair[0]), int(pair[1])


def iteration_seeds(seeds: tuple[int, int], reshuffle: bool) -> Iterator[tuple[int, int]]:
    """The seed pair of each successive iteration (TensorFlow's random or fixed seed
    generator)."""
    if not reshuffle:
        return itertools.repeat(seeds)
    words = philox_u32(seeds)
    return zip(words, words, strict=False)


def shuffled(it: Iterator[Any], size: int, seeds: tuple[int, int]) -> Iterator[Any]:
    """``it``'s elements in TensorFlow's shuffle order for ``seeds`` with a buffer of
    ``size`` (-1: the whole input)."""
    draws = philox_u32(seeds)
    buffer = list(itertools.islice(it, size)) if size > 0 else list(it)
    ring = count = len(buffer)
    front, more = 0, size > 0 and count == size
    while count:
        i = (front + next(draws) % count) % ring
        out, buffer[i] = buffer[i], buffer[front]
        yield out
        element = next(it, _END) if more else _END      # refilled after each element
        if element is _END:
            more, count = False, count - 1
        else:
            buffer[front] = element          # the freed front slot is the ring's end
        front = (front + 1) % ring

"""The random ``tf.data.Dataset`` methods: the source `random` (TensorFlow's Philox stream,
value for value, for a fixed seed) and `rejection_resample` (``tf.data``'s algorithm, on
NumPy's random numbers). `RandomMethods` is inherited by `Dataset`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import shuffling, structure
from finegrad._src.data.cardinality import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from finegrad._src.data.lazy_specs import LazySpec
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor

_ESTIMATION_BATCH = 32        # tf.data's class-distribution estimate: counts per 32 elements
_SMOOTHING = 10               # ... starting from 10 of each class


def _distribution(value, fn, name):
    p = np.asarray(convert_to_tensor(value)._value, np.float32)
    if p.ndim != 1 or not p.size:
        raise ValueError(f"{fn}: {name} must be a 1-D list of class probabilities, got shape "
                         f"{p.shape}")
    return p


def _acceptance(initial, target):
    """``tf.data``'s per-class acceptance probabilities and the probability of taking the
    element unfiltered: ratio = target / initial, a = (ratio - min) / (max - min), min."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    lo, hi = ratio.min(), ratio.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ratio - lo) / (hi - lo), lo


def _estimates(classes, target):
    """The running class-distribution estimate for each element (updated per 32)."""
    counts = np.full(target.shape, _SMOOTHING, np.int64)
    while True:
        batch = [c for _, c in zip(range(_ESTIMATION_BATCH), classes, strict=False)]
        if not batch:
            return
        valid = [c for c in batch if 0 <= c < counts.size]
        np.add.at(counts, valid, 1)
        dist = (counts / counts.sum()).astype(np.float32)
        for _ in range(_ESTIMATION_BATCH):
            yield _acceptance(dist, target)


class RandomMethods:
    """`Dataset`'s random sources and transformations."""

    if TYPE_CHECKING:   # a mixin of `Dataset`: its constructor and attributes, to the checker
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

    @classmethod
    def random(cls, seed: Any = None, rerandomize_each_iteration: Any = None,
               name: str | None = None) -> Any:
        """Random int64 scalars in ``[0, 2**32)`` without end. With a seed (``seed`` or a
        global one) they equal ``tf.data``'s values; each iteration repeats them unless
        ``rerandomize_each_iteration`` (then each iteration takes the next seeds of
        ``tf.data``'s seed generator, as TensorFlow's does).

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.random(seed=42).take(3)
        >>> first = [int(x) for x in ds]
        >>> first == [int(x) for x in ds], all(0 <= v < 2 ** 32 for v in first)
        (True, True)
        """
        seeds = shuffling.iteration_seeds(shuffling.dataset_seeds(seed),
                                          bool(rerandomize_each_iteration))

        def make():
            return (Tensor(np.asarray(v, np.int64)) for v in shuffling.philox_u32(next(seeds)))
        return cls(make, TensorSpec((), dtypes.int64), INFINITE_CARDINALITY)

    def _class_of(self, class_func):
        def classify(element):
            c = convert_to_tensor(structure.call_with(class_func, element))
            if c._value.ndim or not dtypes.as_dtype(c.dtype).is_integer:
                raise InvalidArgumentError(f"Dataset.rejection_resample: class_func must "
                                           f"return an integer scalar, got "
                                           f"{c.dtype.name} of shape {c.shape}")
            return c
        return classify

    def rejection_resample(self, class_func: Any, target_dist: Any, initial_dist: Any = None,
                           seed: Any = None, name: str | None = None) -> Any:
        """``(class, element)`` pairs resampled so that the classes (``class_func`` of each
        element, an integer in ``[0, num_classes)``) follow ``target_dist``: ``tf.data``'s
        algorithm (elements rejected at random per class, mixed with unfiltered ones),
        with ``initial_dist`` known or estimated as the elements go. With ``seed`` or a
        global seed (`finegrad.random.set_seed`, TensorFlow's seed rules) the draws repeat,
        every iteration alike, but are NumPy's, not TensorFlow's.

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.from_tensor_slices([0] * 90 + [1] * 10).repeat(20)
        >>> out = ds.rejection_resample(lambda x: x, [0.5, 0.5], [0.9, 0.1], seed=1)
        >>> counts = np.bincount([int(c) for c, _ in out])
        >>> bool(abs(counts[1] / counts.sum() - 0.5) < 0.05)
        True
        """
        fn = "Dataset.rejection_resample"
        target = _distribution(target_dist, fn, "target_dist")
        classify = self._class_of(class_func)
        fixed = None
        if initial_dist is not None:
            initial = _distribution(initial_dist, fn, "initial_dist")
            if initial.shape != target.shape:
                raise ValueError(f"{fn}: initial_dist has {initial.size} classes and "
                                 f"target_dist {target.size}")
            fixed = _acceptance(initial, target)
            with np.errstate(divide="ignore", invalid="ignore"):
                static = float(np.min(target / initial))
            if static == 1:
                return self.map(lambda *x: (classify(x[0] if len(x) == 1 else x),
                                            x[0] if len(x) == 1 else x))

        seeds = shuffling.dataset_seeds(seed)     # TensorFlow's (global, op) seed rules

        def make():
            return _resampled(self, classify, target, fixed, seeds)
        return type(self)(make, LazySpec(self, make), UNKNOWN_CARDINALITY)


def _resampled(dataset, classify, target, fixed, seeds):
    """The elements of `rejection_resample` (``fixed``: the acceptance probabilities and
    mixing probability from a known initial distribution, or None to estimate them)."""
    def schedule():
        if fixed is not None:
            while True:
                yield fixed
        classes = (int(classify(e)._value) for e in dataset._make_iterator())
        yield from _estimates(classes, target)

    reject_rng = np.random.default_rng((*seeds, 0))
    mix_rng = np.random.default_rng((*seeds, 1))
    original = dataset._make_iterator()

    def filtered():
        for element, (accept, _) in zip(dataset._make_iterator(), schedule(), strict=False):
            c = classify(element)
            k = int(c._value)
            if 0 <= k < accept.size and reject_rng.random(dtype=np.float32) < accept[k]:
                yield (c, element)
    rest = filtered()
    for _, m in schedule():
        if m >= 1 or (m > 0 and mix_rng.random() < m):
            element = next(original, None)
            if element is None:
                return
            yield (classify(element), element)
        else:
            pair = next(rest, None)
            if pair is None:
                return
            yield pair

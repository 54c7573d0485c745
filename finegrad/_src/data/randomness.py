"""The random ``tf.data.Dataset`` methods: the source `random` (TensorFlow's Philox stream,
value for value, for a fixed seed) and `rejection_resample` (``tf.data``'s pipeline and
TensorFlow's random streams: its elements for the same seeds). `RandomMethods` is
inherited by `Dataset`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import resumable, shuffling, structure
from finegrad._src.data.cardinality import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from finegrad._src.data.lazy_specs import LazySpec
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.random import streams
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
        global seed (`finegrad.random.set_seed`) the elements are ``tf.data``'s: its
        pipeline (a filter drawing TensorFlow's stateful uniform, `sample_from_datasets`
        for the mixing) on TensorFlow's random streams.

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
        fixed, static = None, None
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

        return _resample(self, classify, target, fixed, seed, static == 0)


def _with_class(classify):
    def add(*x):
        element = x[0] if len(x) == 1 else x
        return classify(element), element
    return add


def _estimated_acceptance(dataset, classify, target):
    """``tf.data``'s estimate: class counts (from 10 each) updated per 32 elements, each
    batch's distribution repeated 32 times, turned into acceptance probabilities."""
    def update(counts, classes):
        c = np.asarray(classes._value).reshape(-1)
        c = c[(c >= 0) & (c < target.size)]
        counts = counts._value + np.bincount(c, minlength=target.size)
        dist = (counts / counts.sum()).astype(np.float32)
        return Tensor(counts), Tensor(np.tile(dist, (_ESTIMATION_BATCH, 1)))
    start = Tensor(np.full(target.shape, _SMOOTHING, np.int64))
    dists = dataset.map(lambda *x: classify(x[0] if len(x) == 1 else x)) \
        .batch(_ESTIMATION_BATCH).scan(start, update).unbatch()
    accept = dists.map(lambda d: tuple(Tensor(np.asarray(v, np.float32))
                                       for v in _acceptance(d._value, target)))
    spec = (TensorSpec(target.shape, dtypes.float32), TensorSpec((), dtypes.float32))
    return type(dataset)(accept._make_iterator, spec, UNKNOWN_CARDINALITY)   # (known spec)


def _resample(dataset, classify, target, fixed, seed, only_filtered):
    """``tf.data``'s rejection_resample pipeline: each element kept with its class's
    acceptance probability (a uniform draw of TensorFlow's stateful kernel, fresh per
    iteration, seeded as the op's), mixed with the unfiltered elements by
    `sample_from_datasets` with weights (mixing probability, 1 - it)."""
    cls = type(dataset)
    if fixed is None:
        schedule = _estimated_acceptance(dataset, classify, target)
    else:
        schedule = cls.from_tensors(tuple(Tensor(np.asarray(v, np.float32)) for v in fixed)) \
            .repeat()
    kernel_seeds = _kernel_seeds(seed)

    def gather(probs, data):
        c = classify(data)
        k = int(c._value)
        if not 0 <= k < target.size:
            raise InvalidArgumentError(f"Dataset.rejection_resample: class {k} is outside "
                                       f"[0, {target.size})")
        return c, Tensor(probs[0]._value[k]), data
    gathered = cls.zip((schedule, dataset)).map(gather)

    def make_filtered():
        stream = streams.KernelStream(*(kernel_seeds or shuffling.dataset_seeds(None)))

        def keep(triple):
            return stream.draw("uniform", (), np.float32) < triple[1]._value
        return resumable.mapped(resumable.filtered(gathered._make_iterator(), keep),
                                lambda t: (t[0], t[2]))
    filtered = cls(make_filtered, LazySpec(dataset, make_filtered), UNKNOWN_CARDINALITY)
    if only_filtered:
        return filtered
    mixing = schedule.map(lambda accept, m: Tensor(np.asarray([[m._value, 1 - m._value]],
                                                              np.float32)))
    weights = cls(mixing._make_iterator, TensorSpec((1, 2), dtypes.float32), UNKNOWN_CARDINALITY)
    return cls.sample_from_datasets([dataset.map(_with_class(classify)), filtered],
                                    weights=weights, seed=seed, stop_on_empty_dataset=True)


def _kernel_seeds(seed):
    """The seeds of the filter's uniform op, which ``tf.data`` traces in a function: with
    an op seed, TensorFlow's pair; with only a global seed, (global seed, 0), the pair
    TensorFlow 2.21 was measured to use there; neither: None (nondeterministic)."""
    g = streams.GLOBAL.seed
    if seed is None:
        return None if g is None else (int(g) % streams.MAXINT32, 0)
    return streams.DEFAULT_GRAPH_SEED if g is None else int(g) % streams.MAXINT32, \
        int(seed) % streams.MAXINT32

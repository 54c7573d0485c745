"""The ``tf.data.Dataset`` methods that regroup or select elements by position, key or state:
`window`, `group_by_window`, `bucket_by_sequence_length`, `scan`, `take_while`, `shard`,
`unique`, `rebatch`, `get_single_element`, and the sources `counter`,
`choose_from_datasets` and `sample_from_datasets`. `Dataset` inherits them
(`RegroupingMethods`); they make new datasets through ``cls(make_iterator, element_spec,
cardinality)``, like the methods in ``dataset.py``."""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import resumable, resumable_regroup, structure
from finegrad._src.data.cardinality import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from finegrad._src.data.lazy_specs import LazySpec, SpecMap
from finegrad._src.errors import InvalidArgumentError
from finegrad._src.ops.random.sampling import stateless_categorical
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor


class DatasetSpec:
    """The spec of a component that is itself a dataset (an element of `window`).

    >>> import finegrad as fg
    >>> fg.data.Dataset.range(4).window(2).element_spec.element_spec
    TensorSpec(shape=(), dtype=finegrad.int64)
    """

    def __init__(self, element_spec: Any) -> None:
        self.element_spec = element_spec

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    __hash__ = None   # type: ignore[assignment]  # (unhashable, as TensorFlow's specs)

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, TensorShape([]))"


def _positive(value, fn, name, allow_zero=False):
    v = int(value._value) if isinstance(value, Tensor) else value
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if allow_zero
                                                                           else 1):
        raise ValueError(f"Dataset.{fn}: {name} must be a positive integer, got {value!r}")
    return int(v)


_END = object()


def _window_card(n, size, shift, stride, drop_remainder):
    if n < 0:
        return n
    if drop_remainder:
        return max(0, (n - (size - 1) * stride - 1) // shift + 1)
    return -(-n // shift)


def _key_of(key_func, element):
    key = convert_to_tensor(structure.call_with(key_func, element))
    if key._value.ndim or key.dtype != dtypes.int64:
        raise ValueError(f"Dataset.group_by_window: key_func must return a scalar int64 "
                         f"tensor, got {key.dtype.name} of shape {key.shape}")
    return int(key._value)


class RegroupingMethods:
    """`Dataset`'s methods that regroup elements (see the module docstring)."""

    if TYPE_CHECKING:   # a mixin of `Dataset`: its constructor and attributes, to the checker
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...
        random: Any   # (Dataset's sources, used by sample_from_datasets)
        zip: Any

    def _sub_dataset(self, elements, spec):
        return type(self)(lambda: iter(elements), spec, len(elements))

    def window(self, size: Any, shift: Any = None, stride: Any = 1,
               drop_remainder: bool = False, name: str | None = None) -> Any:
        """Windows of ``size`` elements (``stride`` apart), one starting every ``shift``
        (``size`` by default); each window a structure of datasets like the element's (a
        tuple element gives a tuple of datasets). The last windows may be shorter unless
        ``drop_remainder``.

        >>> import finegrad as fg
        >>> [[int(x) for x in w] for w in fg.data.Dataset.range(5).window(2)]
        [[0, 1], [2, 3], [4]]

        Raises:
            ValueError: for a size, shift or stride that is not positive.
        """
        size = _positive(size, "window", "size")
        shift = size if shift is None else _positive(shift, "window", "shift")
        stride = _positive(stride, "window", "stride")

        def as_datasets(win):
            columns = zip(*[structure.flatten(e) for e in win], strict=True)
            specs = structure.flatten(self.element_spec)
            return structure.pack(win[0], [self._sub_dataset(list(c), s)
                                           for c, s in zip(columns, specs, strict=True)])

        def make():
            return resumable.mapped(resumable_regroup.windows(
                self._make_iterator(), size, shift, stride, drop_remainder), as_datasets)
        return type(self)(make, SpecMap(self, lambda s: structure.map_structure(DatasetSpec,
                                                                                s)),
                          _window_card(self._cardinality, size, shift, stride,
                                       drop_remainder))

    def group_by_window(self, key_func: Any, reduce_func: Any, window_size: Any = None,
                        window_size_func: Any = None, name: str | None = None) -> Any:
        """Elements grouped by ``key_func`` (an int64 scalar); each group, when it holds its
        window size (``window_size``, or ``window_size_func(key)``), becomes a dataset that
        ``reduce_func(key, window)`` turns into output elements. At the end the unfinished
        groups are reduced, in increasing key order (as ``tf.data``).

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.range(6).group_by_window(
        ...     lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)
        >>> [b.numpy().tolist() for b in ds]
        [[0, 2, 4], [1, 3, 5]]

        Raises:
            ValueError: unless exactly one of ``window_size`` and ``window_size_func`` is
                given.
        """
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Dataset.group_by_window: either the `window_size` argument or "
                             "the `window_size_func` argument must be specified.")
        size_of = (lambda key: window_size) if window_size_func is None else \
            (lambda key: int(convert_to_tensor(window_size_func(
                Tensor(np.int64(key))))._value))

        def make():
            return resumable_regroup.grouped(
                self._make_iterator(), lambda element: _key_of(key_func, element),
                lambda key: _positive(size_of(key), "group_by_window", "window_size"),
                lambda key, elements: self._reduce_group(reduce_func, key, elements))
        return type(self)(make, LazySpec(self, make), UNKNOWN_CARDINALITY)

    def _reduce_group(self, reduce_func, key, elements):
        out = reduce_func(Tensor(np.int64(key)), self._sub_dataset(elements,
                                                                    self.element_spec))
        if not isinstance(out, RegroupingMethods):
            raise TypeError(f"Dataset.group_by_window: reduce_func must return a Dataset, got "
                            f"{type(out).__name__}")
        return out._make_iterator()

    def bucket_by_sequence_length(self, element_length_func: Any, bucket_boundaries: Any,
                                  bucket_batch_sizes: Any, padded_shapes: Any = None,
                                  padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: str | None = None) -> Any:
        """Elements batched by length: ``element_length_func(element)`` picks the bucket
        (``[boundary_i, boundary_i+1)``, the first from minus infinity, the last to
        infinity), and each bucket is `padded_batch`-ed by its ``bucket_batch_sizes`` entry
        (`batch`-ed with ``no_padding``); with ``pad_to_bucket_boundary`` unknown sizes pad to
        the bucket's boundary minus 1. Built on `group_by_window`, as ``tf.data``'s.

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.from_generator(lambda: iter([[1], [2, 2], [3, 3, 3], [4]]),
        ...     output_signature=fg.TensorSpec([None], fg.int32))
        >>> ds = ds.bucket_by_sequence_length(lambda x: fg.shape(x)[0], [2], [2, 2])
        >>> [b.numpy().tolist() for b in ds]
        [[[2, 2, 0], [3, 3, 3]], [[1], [4]]]

        Raises:
            ValueError: when there is not one batch size more than boundaries.
            InvalidArgumentError: with ``pad_to_bucket_boundary``, for an element not shorter
                than the last boundary.
        """
        bounds, sizes = list(bucket_boundaries), list(bucket_batch_sizes)
        if len(sizes) != len(bounds) + 1:
            raise ValueError(f"Dataset.bucket_by_sequence_length: len(bucket_batch_sizes) must "
                             f"equal len(bucket_boundaries) + 1, got {len(sizes)} and "
                             f"{len(bounds)}")

        def bucket_of(*element):
            length = int(convert_to_tensor(element_length_func(*element))._value)
            if pad_to_bucket_boundary and length >= max(bounds):
                raise InvalidArgumentError("Dataset.bucket_by_sequence_length: when "
                                           "pad_to_bucket_boundary=True, elements must have "
                                           "length < max(bucket_boundaries).")
            return Tensor(np.int64(sum(length >= b for b in bounds)))

        def batching_fn(bucket, grouped):
            bucket = int(bucket._value)
            if no_padding:
                return grouped.batch(sizes[bucket], drop_remainder=drop_remainder)
            shapes = padded_shapes
            if shapes is None and pad_to_bucket_boundary:
                fill = bounds[bucket] - 1 if bucket < len(bounds) else None
                shapes = structure.map_structure(
                    lambda s: [fill if d is None else d for d in s.shape], grouped.element_spec)
            return grouped.padded_batch(sizes[bucket], shapes, padding_values, drop_remainder)
        return self.group_by_window(bucket_of, batching_fn,
                                    window_size_func=lambda b: sizes[int(b._value)])

    def scan(self, initial_state: Any, scan_func: Any, name: str | None = None) -> Any:
        """Running state: ``scan_func(state, element)`` returns ``(new_state, output)``; the
        outputs are the new elements.

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.range(1, 5).scan(fg.constant(0, fg.int64),
        ...                                        lambda s, x: (s + x, s + x))
        >>> [int(x) for x in ds]
        [1, 3, 6, 10]
        """
        fn = "Dataset.scan"
        initial = structure.to_tensors(initial_state, fn)

        def step(state, element):
            out = scan_func(state, element)
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(f"{fn}: scan_func must return a pair (new_state, "
                                f"output_element), got {type(out).__name__}")
            return structure.to_tensors(out[0], fn), structure.to_tensors(out[1], fn)

        def make():
            return resumable.scanned(self._make_iterator(), initial, step)
        return type(self)(make, LazySpec(self, make), self._cardinality)

    def take_while(self, predicate: Any, name: str | None = None) -> Any:
        """The elements up to the first for which ``predicate`` is false.

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.range(9).take_while(lambda x: x < 3)]
        [0, 1, 2]
        """
        def make():
            return resumable.taken_while(
                self._make_iterator(),
                lambda e: bool(convert_to_tensor(structure.call_with(predicate, e))._value))
        return type(self)(make, self._element_spec, UNKNOWN_CARDINALITY)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Any:
        """Every ``num_shards``-th element, from the ``index``-th.

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.range(10).shard(3, 1)]
        [1, 4, 7]

        Raises:
            InvalidArgumentError: for ``index`` outside ``[0, num_shards)``.
        """
        num = _positive(num_shards, "shard", "num_shards")
        index = _positive(index, "shard", "index", allow_zero=True)
        if index >= num:
            raise InvalidArgumentError(f"Dataset.shard: index must be in [0, num_shards), got "
                                       f"index={index}, num_shards={num}")
        card = self._cardinality
        card = card if card < 0 else max(0, (card - index + num - 1) // num)
        return self._index_wrapped(lambda make: resumable_regroup.sharded(make(), num, index),
                                   self._element_spec, card)

    def unique(self, name: str | None = None) -> Any:
        """Each distinct element once, at its first occurrence (scalar ints or strings).

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.from_tensor_slices([1, 3, 1, 2]).unique()]
        [1, 3, 2]

        Raises:
            TypeError: for elements that are not scalars of an integer or string dtype.
        """
        spec = self.element_spec
        if not isinstance(spec, TensorSpec) or spec.shape != () or not (
                dtypes.as_dtype(spec.dtype).is_integer or dtypes.as_dtype(spec.dtype) ==
                dtypes.string):
            raise TypeError(f"Dataset.unique: elements must be scalar integers or strings, "
                            f"got {spec!r}")

        def make():
            return resumable_regroup.unique(self._make_iterator())
        return type(self)(make, spec, UNKNOWN_CARDINALITY)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: str | None = None) -> Any:
        """The batched elements batched again by ``batch_size`` (``unbatch().batch(...)``).

        >>> import finegrad as fg
        >>> [b.numpy().tolist() for b in fg.data.Dataset.range(5).batch(2).rebatch(3)]
        [[0, 1, 2], [3, 4]]
        """
        size = _positive(batch_size, "rebatch", "batch_size")
        like = self.unbatch().batch(size, drop_remainder=drop_remainder)   # (spec, count)
        return type(self)(lambda: resumable_regroup.rebatched(self._make_iterator(), size,
                                                              drop_remainder),
                          like._element_spec, like._cardinality)

    def get_single_element(self, name: str | None = None) -> Any:
        """The dataset's only element.

        >>> import finegrad as fg
        >>> int(fg.data.Dataset.from_tensors(5).get_single_element())
        5

        Raises:
            InvalidArgumentError: when the dataset is empty or has more than one element.
        """
        it = self._make_iterator()
        first, second = next(it, _END), next(it, _END)
        if first is _END:
            raise InvalidArgumentError("Dataset.get_single_element: dataset was empty.")
        if second is not _END:
            raise InvalidArgumentError("Dataset.get_single_element: dataset had more than "
                                       "one element.")
        return first

    @classmethod
    def counter(cls, start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64,
                name: str | None = None) -> Any:
        """``start, start + step, ...`` without end.

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.counter(3, 2).take(3)]
        [3, 5, 7]
        """
        dt = dtypes.as_dtype(dtype)
        return cls(lambda: (Tensor(np.asarray(i, dt._np)) for i in itertools.count(start, step)),
                   TensorSpec((), dt), INFINITE_CARDINALITY)

    @classmethod
    def choose_from_datasets(cls, datasets: Any, choice_dataset: Any,
                             stop_on_empty_dataset: bool = True) -> Any:
        """The next element of ``datasets[i]`` for each int64 ``i`` of ``choice_dataset``;
        an exhausted dataset ends the result (``stop_on_empty_dataset``) or is skipped.

        >>> import finegrad as fg
        >>> choice = fg.data.Dataset.from_tensor_slices(fg.constant([0, 1, 0], fg.int64))
        >>> ds = fg.data.Dataset.choose_from_datasets(
        ...     [fg.data.Dataset.range(3), fg.data.Dataset.range(10, 13)], choice)
        >>> [int(x) for x in ds]
        [0, 10, 1]

        Raises:
            TypeError: when the choices are not int64 scalars, or ``datasets`` is empty.
        """
        datasets = list(datasets)
        spec = choice_dataset.element_spec
        if not datasets:
            raise TypeError("Dataset.choose_from_datasets: datasets must be a non-empty list")
        if not isinstance(spec, TensorSpec) or spec.shape != () or \
                dtypes.as_dtype(spec.dtype) != dtypes.int64:
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            f"scalar `tf.int64` tensors but are {spec!r}.")

        def make():
            return resumable.directed(choice_dataset._make_iterator(),
                                      [d._make_iterator() for d in datasets],
                                      stop_on_empty_dataset, "Dataset.choose_from_datasets")
        return cls(make, datasets[0]._element_spec, UNKNOWN_CARDINALITY)

    @classmethod
    def sample_from_datasets(cls, datasets: Any, weights: Any = None, seed: Any = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: Any = None) -> Any:
        """Elements drawn from ``datasets`` at random with probabilities ``weights`` (equal
        by default); an exhausted dataset is dropped from the draw (or ends the result with
        ``stop_on_empty_dataset``). The draws are ``tf.data``'s for the same seeds: a
        stateless categorical draw over ``log(weights)`` per element, seeded by pairs of
        `random`'s values (``seed``, ``rerandomize_each_iteration``; a global seed applies).
        ``weights`` may be a dataset of weight vectors, one per draw.

        >>> import finegrad as fg
        >>> fg.random.set_seed(None)     # no global seed: the op seed alone (as TF)
        >>> ds = fg.data.Dataset.sample_from_datasets(
        ...     [fg.data.Dataset.range(3), fg.data.Dataset.range(10, 12)], seed=1)
        >>> [int(x) for x in ds]
        [10, 0, 1, 2, 11]

        Raises:
            ValueError: when ``datasets`` is empty or ``weights`` has another length.
            TypeError: when ``weights`` are not float32 or float64.
        """
        fn = "Dataset.sample_from_datasets"
        datasets, logits = _sampling_logits(list(datasets), weights, fn)
        if len(datasets) == 1 and logits is not None:
            return datasets[0]
        seeds = cls.random(seed=seed, rerandomize_each_iteration=rerandomize_each_iteration) \
            .batch(2)
        if logits is None:     # weights: a dataset of weight vectors
            selector = cls.zip(weights, seeds).map(
                lambda w, s: _categorical(log_weights(w), s))
        else:
            selector = seeds.map(lambda s: _categorical(logits, s))

        def make():
            return resumable.directed(selector._make_iterator(),
                                      [d._make_iterator() for d in datasets],
                                      stop_on_empty_dataset, fn)
        return cls(make, datasets[0]._element_spec, UNKNOWN_CARDINALITY)


def log_weights(w: Any) -> Any:
    """``log`` of a weight vector, as a (1, n) logits row."""
    w = convert_to_tensor(w)
    with np.errstate(divide="ignore"):
        return Tensor(np.log(np.asarray(w._value)).reshape(1, -1))


def _categorical(logits, seed):
    return Tensor(np.asarray(stateless_categorical(logits, 1, seed=seed)._value[0, 0],
                             np.int64))


def _sampling_logits(datasets, weights, fn):
    """The datasets to sample and the (1, n) logits of constant ``weights`` (None for a
    dataset of weights): as ``tf.data``, a list of weights drops the datasets of weight
    zero; weights must be float32 or float64."""
    if not datasets:
        raise ValueError(f"{fn}: datasets must not be empty")
    if weights is None:
        return datasets, Tensor(np.ones((1, len(datasets)), np.float32))
    if isinstance(weights, RegroupingMethods):
        return datasets, None
    if not isinstance(weights, Tensor):
        if len(weights) != len(datasets):
            raise ValueError(f"{fn}: weights must have one entry per dataset, got "
                             f"{len(weights)} for {len(datasets)} datasets")
        kept = [(d, w) for d, w in zip(datasets, weights, strict=True) if w > 0]
        datasets, weights = ([d for d, _ in kept], [w for _, w in kept]) if kept else \
            ([datasets[0].take(0)], [1.])
    w = convert_to_tensor(weights)
    if w.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"{fn}: weights must be float32 or float64, got {w.dtype.name}")
    if tuple(w.shape) != (len(datasets),):
        raise ValueError(f"{fn}: weights must have shape ({len(datasets)},), got "
                         f"{tuple(w.shape)}")
    return datasets, log_weights(w)

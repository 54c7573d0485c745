"""``finegrad.data.Dataset``: the part of ``tf.data.Dataset`` training code uses.

A dataset is a recipe: a function that starts a fresh Python iterator over its elements,
its ``element_spec`` and its cardinality. Transformations wrap the recipe lazily, so a
dataset can be iterated many times (each ``for`` loop, each epoch of ``fit``) and nothing
runs before it is iterated. Elements are finegrad Tensors in the nested structure they were
given (tuples and dicts; lists become tensors, as in ``tf.data``). Iteration is eager.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import numpy as np

from finegrad._src import dtypes
from finegrad._src.data import batching, resumable, shuffling, structure
from finegrad._src.data.cardinality import (AUTOTUNE, INFINITE_CARDINALITY,  # noqa: F401
                                             UNKNOWN_CARDINALITY, DataConstant, add_card)
from finegrad._src.data.files import FileMethods
from finegrad._src.data.fingerprints import fingerprint as _fingerprint
from finegrad._src.data.lazy_specs import LazySpec, SpecMap
from finegrad._src.data.options import Options, pipeline_options
from finegrad._src.data.randomness import RandomMethods
from finegrad._src.data.regrouping import RegroupingMethods
from finegrad._src.errors import InvalidArgumentError, OutOfRangeError
from finegrad._src.graph.tracing.builder import TensorSpec
from finegrad._src.tensor import Tensor, convert_to_tensor



def _count(value, fn, name):
    v = int(value._value) if isinstance(value, Tensor) else value
    if v is None:
        return -1
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fn}: {name} must be an integer, got {value!r}")
    return int(v)


class Dataset(RegroupingMethods, RandomMethods, FileMethods):
    """A sequence of elements, built from data (`from_tensor_slices`, `from_tensors`,
    `from_generator`, `range`) and transformed lazily (`map`, `batch`, `shuffle`...).

    >>> import finegrad as fg
    >>> ds = fg.data.Dataset.from_tensor_slices(([1, 2, 3], [10., 20., 30.])).batch(2)
    >>> [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds]
    [([1, 2], [10.0, 20.0]), ([3], [30.0])]
    """

    def __init__(self, make_iterator: Any, element_spec: Any, cardinality: Any,
                 rows: Any = None) -> None:
        self._make_iterator = make_iterator
        self._element_spec = element_spec
        self._cardinality = cardinality
        # rows: (structure, flat arrays, make_indices) while the elements are still rows of
        # from_tensor_slices' arrays (through shuffle, take, skip, repeat): `batch` then
        # gathers each batch with one NumPy indexing per component
        self._rows = rows
        self._options: Any = None
        self._shuffle_node = False    # a shuffle: a repeat right after it fuses with it

    def _index_wrapped(self, wrap, element_spec, cardinality):
        """A dataset whose element iterator (and row indices, on the fast path) go through
        ``wrap(make_iterator)``."""
        rows = None
        if self._rows is not None:
            tensors, arrays, make_indices = self._rows
            rows = (tensors, arrays, lambda: wrap(make_indices))
        return Dataset(lambda: wrap(self._make_iterator), element_spec, cardinality, rows)

    # --- sources --------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """One element per slice along the first axis of every component of ``tensors``.

        Raises:
            ValueError: when the components' first dimensions differ, or one is a scalar.
        """
        fn = "Dataset.from_tensor_slices"
        tensors = structure.to_tensors(tensors, fn)
        flat = structure.flatten(tensors)
        sizes = {t._value.shape[0] if t._value.ndim else None for t in flat}
        if None in sizes:
            raise ValueError(f"{fn}: a component is a scalar; every component needs a first "
                             f"dimension to slice")
        if len(sizes) != 1:
            raise ValueError(f"{fn}: the components' first dimensions differ: "
                             f"{sorted(sizes, key=str)}")
        n = int(sizes.pop() or 0)
        spec = structure.map_structure(lambda t: TensorSpec(tuple(t.shape)[1:], t.dtype),
                                       tensors)

        arrays = [t._value for t in flat]

        def make():
            return (structure.pack(tensors, [Tensor(a[i, ...]) for a in arrays]) for i in range(n))
        return Dataset(make, spec, n, (tensors, arrays, lambda: iter(range(n))))

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element, ``tensors``.

        >>> import finegrad as fg
        >>> [x.numpy().tolist() for x in fg.data.Dataset.from_tensors([1, 2])]
        [[1, 2]]
        """
        element = structure.to_tensors(tensors, "Dataset.from_tensors")
        return Dataset(lambda: iter([element]), structure.spec_of(element), 1)

    @staticmethod
    def range(*args, dtype: Any = dtypes.int64, name: str | None = None) -> Dataset:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)`` as int64
        scalars (or ``dtype``).

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.range(1, 8, 3)]
        [1, 4, 7]
        """
        r = range(*[_count(a, "Dataset.range", "an argument") for a in args])
        dt = dtypes.as_dtype(dtype)
        return Dataset(lambda: (Tensor(np.asarray(i, dt._np)) for i in r),
                       TensorSpec((), dt), len(r))

    @staticmethod
    def from_generator(generator: Any, output_types: Any = None, output_shapes: Any = None,
                       args: Any = None,
                       output_signature: Any = None, name: str | None = None) -> Dataset:
        """Elements from calling ``generator(*args)`` (a fresh call per iteration), checked
        against ``output_signature`` (a structure of `TensorSpec`), or ``output_types`` and
        ``output_shapes``.

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.from_generator(
        ...     lambda: iter([[1., 2.], [3., 4.]]),
        ...     output_signature=fg.TensorSpec(shape=(2,), dtype=fg.float32))
        >>> [x.numpy().tolist() for x in ds]
        [[1.0, 2.0], [3.0, 4.0]]

        Raises:
            TypeError: without ``output_signature`` or ``output_types``; when ``generator``
                is not callable.
        """
        fn = "Dataset.from_generator"
        if not callable(generator):
            raise TypeError(f"{fn}: generator must be a callable, got {generator!r}")
        spec = _generator_spec(output_signature, output_types, output_shapes, fn)
        call_args = tuple(args or ())

        def make():
            # resumable: a shape error in one element leaves the generator usable (a
            # generator that raised is finished, as in tf.data)
            return resumable.mapped(_called_late(generator, call_args),
                                    lambda value: _conform(value, spec, fn), source=True)
        return Dataset(make, spec, UNKNOWN_CARDINALITY)

    @staticmethod
    def zip(*datasets, name: str | None = None) -> Dataset:
        """Elements that are tuples (or the given structure) of the datasets' elements, as
        long as the shortest.

        >>> import finegrad as fg
        >>> a, b = fg.data.Dataset.range(3), fg.data.Dataset.range(10, 12)
        >>> [(int(x), int(y)) for x, y in fg.data.Dataset.zip(a, b)]
        [(0, 10), (1, 11)]
        """
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip: expected datasets, got {type(d).__name__}")
        cards = [d._cardinality for d in flat]
        known = [c for c in cards if c >= 0]
        card = min(known) if known else (UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards
                                         else INFINITE_CARDINALITY)
        if UNKNOWN_CARDINALITY in cards and known:
            card = UNKNOWN_CARDINALITY
        spec = structure.pack(datasets, [d.element_spec for d in flat])

        def make():
            return resumable.zipped([d._make_iterator() for d in flat],
                                    lambda elements: structure.pack(datasets, elements))
        return Dataset(make, spec, card)

    # --- transformations ------------------------------------------------------------------

    def map(self, map_func: Any, num_parallel_calls: Any = None, deterministic: Any = None,
            name: str | None = None) -> Dataset:
        """``map_func`` applied to every element (a tuple element is spread over its
        arguments); its results become the new elements."""
        fn = "Dataset.map"

        def make():
            return resumable.mapped(
                self._make_iterator(),
                lambda element: structure.to_tensors(structure.call_with(map_func, element),
                                                     fn))
        return Dataset(make, LazySpec(self, make), self._cardinality)

    def filter(self, predicate: Any, name: str | None = None) -> Dataset:
        """The elements for which ``predicate`` (a boolean scalar) is true.

        Raises:
            ValueError: when the predicate does not return a boolean scalar.
        """
        def keeps(element):
            keep = convert_to_tensor(structure.call_with(predicate, element))
            if keep.dtype != dtypes.bool_ or keep._value.ndim:
                raise ValueError(f"Dataset.filter: the predicate must return a boolean "
                                 f"scalar, got {keep.dtype.name} of shape {keep.shape}")
            return bool(keep._value)

        def make():
            return resumable.filtered(self._make_iterator(), keeps)
        return Dataset(make, self._element_spec, UNKNOWN_CARDINALITY)

    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: str | None = None) -> Dataset:
        """Consecutive elements stacked in batches of ``batch_size`` (the last one smaller
        unless ``drop_remainder``).

        Raises:
            ValueError: for a batch size that is not positive.
        """
        size = _count(batch_size, "Dataset.batch", "batch_size")
        if size <= 0:
            raise ValueError(f"Dataset.batch: batch_size must be positive, got {size}")
        card = self._cardinality
        if card >= 0:
            card = card // size if drop_remainder else -(-card // size)
        rows = self._rows

        def make():
            if rows is not None:
                tensors, arrays, make_indices = rows
                return batching.gather_rows(tensors, arrays, make_indices(), size,
                                            drop_remainder)
            return batching.batch(self._make_iterator(), size, drop_remainder)
        return Dataset(make, SpecMap(self, lambda s: batching.batch_spec(s, size,
                                                                          drop_remainder)),
                       card)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """Like `batch`, padding each component to ``padded_shapes`` (None or -1: the
        largest in the batch) with ``padding_values`` (0, or b"" for strings).

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.from_generator(lambda: iter([[1], [2, 3]]),
        ...                                     output_signature=fg.TensorSpec([None], fg.int32))
        >>> next(iter(ds.padded_batch(2))).numpy()
        array([[1, 0],
               [2, 3]], dtype=int32)
        """
        size = _count(batch_size, "Dataset.padded_batch", "batch_size")
        if size <= 0:
            raise ValueError(f"Dataset.padded_batch: batch_size must be positive, got {size}")
        card = self._cardinality
        if card >= 0:
            card = card // size if drop_remainder else -(-card // size)
        return Dataset(
            lambda: batching.padded_batch(self._make_iterator(), size, padded_shapes,
                                          padding_values, drop_remainder, self.element_spec),
            SpecMap(self, lambda s: batching.padded_batch_spec(s, size, padded_shapes,
                                                                drop_remainder)), card)

    def unbatch(self, name: str | None = None) -> Dataset:
        """Each element split along its first axis into that many elements."""
        card = UNKNOWN_CARDINALITY
        if self._cardinality >= 0 and not isinstance(self._element_spec, (LazySpec, SpecMap)):
            leads = {s.shape[0] if isinstance(s.shape, tuple) and s.shape else None
                     for s in structure.flatten(self._element_spec)}
            if len(leads) == 1 and None not in leads:
                card = self._cardinality * leads.pop()
        return Dataset(lambda: batching.unbatch(resumable.guarded(self._make_iterator())),
                       SpecMap(self, batching.unbatch_spec), card)

    def shuffle(self, buffer_size: Any, seed: Any = None, reshuffle_each_iteration: bool = True,
                name: str | None = None) -> Dataset:
        """Elements drawn at random from a buffer of ``buffer_size``, in ``tf.data``'s order
        for the same seeds: with ``seed`` or a global seed (`finegrad.random.set_seed`) the
        orders are TensorFlow's, element for element; each new iteration (each epoch of a
        `repeat`) reshuffles unless ``reshuffle_each_iteration=False``.

        >>> import finegrad as fg
        >>> fg.random.set_seed(None)     # no global seed: the op seed alone (as TF)
        >>> [int(x) for x in fg.data.Dataset.range(8).shuffle(4, seed=5)]
        [1, 4, 5, 6, 2, 7, 0, 3]

        Raises:
            ValueError: for a buffer size that is not positive.
        """
        size = _count(buffer_size, "Dataset.shuffle", "buffer_size")
        if size == 0 or size < -1:
            raise ValueError(f"Dataset.shuffle: buffer_size must be positive, got {size}")
        seeds = shuffling.iteration_seeds(shuffling.dataset_seeds(seed),
                                          reshuffle_each_iteration)

        def wrap(make_iterator):
            return shuffling.shuffled(resumable.guarded(make_iterator()), size, next(seeds))
        out = self._index_wrapped(wrap, self._element_spec, self._cardinality)
        out._shuffle_node = True
        return out

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """The elements ``count`` times over (forever with None or -1).

        >>> import finegrad as fg
        >>> [int(x) for x in fg.data.Dataset.range(2).repeat(2)]
        [0, 1, 0, 1]
        """
        n = _count(count, "Dataset.repeat", "count")
        card = self._cardinality
        if n < 0:
            card = 0 if card == 0 else INFINITE_CARDINALITY
        elif card >= 0:
            card *= n
        elif n == 0:
            card = 0

        if n == 1:     # tf.data's noop elimination removes it (no spare iterator)
            out = Dataset(self._make_iterator, self._element_spec, card, self._rows)
            out._shuffle_node = self._shuffle_node
            return out
        spare = not self._shuffle_node    # (tf.data fuses a shuffle and the repeat after it)
        return self._index_wrapped(
            lambda make_iterator: resumable.repeated(make_iterator, n, spare),
            self._element_spec, card)

    def take(self, count: Any, name: str | None = None) -> Dataset:
        """The first ``count`` elements (all with -1)."""
        n = _count(count, "Dataset.take", "count")
        card = self._cardinality
        if n >= 0:
            card = n if card in (INFINITE_CARDINALITY,) else min(card, n) if card >= 0 else card
        return self._index_wrapped(lambda make_iterator: resumable.taken(make_iterator(), n),
                                   self._element_spec, card)

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        """All but the first ``count`` elements (none with -1)."""
        n = _count(count, "Dataset.skip", "count")
        card = self._cardinality
        if n < 0:
            card = 0 if card != INFINITE_CARDINALITY else card
        elif card >= 0:
            card = max(card - n, 0)
        return self._index_wrapped(lambda make_iterator: resumable.skipped(make_iterator(), n),
                                   self._element_spec, card)

    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        """The same dataset (accepted for compatibility: iteration is synchronous)."""
        _count(buffer_size, "Dataset.prefetch", "buffer_size")
        return Dataset(self._make_iterator, self._element_spec, self._cardinality, self._rows)

    def cache(self, filename: Any = "", name: str | None = None) -> Dataset:
        """The same elements, computed on the first complete iteration and replayed after
        (in memory; a ``filename`` is accepted and not written)."""
        stored: list[Any] = []
        done = [False]

        def make():
            if done[0]:
                return iter(stored)
            return _recording(resumable.guarded(self._make_iterator()), stored, done)
        return Dataset(make, self._element_spec, self._cardinality)

    def enumerate(self, start: Any = 0, name: str | None = None) -> Dataset:
        """``(index, element)`` pairs, the index an int64 scalar counting from ``start``.

        >>> import finegrad as fg
        >>> [(int(i), int(x)) for i, x in fg.data.Dataset.range(5, 7).enumerate()]
        [(0, 5), (1, 6)]
        """
        first = _count(start, "Dataset.enumerate", "start")

        def make():   # (the count advances before each pull, as tf.data's zip with a range)
            count = itertools.count(first)
            return resumable.Resumable(
                lambda r: (Tensor(np.asarray(next(count), np.int64)), r.pull()),
                self._make_iterator())
        return Dataset(make, SpecMap(self, lambda s: (TensorSpec((), dtypes.int64), s)),
                       self._cardinality)

    def concatenate(self, dataset: Any, name: str | None = None) -> Dataset:
        """This dataset's elements, then ``dataset``'s.

        Raises:
            TypeError: when the element structures or dtypes differ.
        """
        spec = structure.relax(self.element_spec, dataset.element_spec)
        return Dataset(lambda: itertools.chain(resumable.guarded(self._make_iterator()),
                                               resumable.guarded(dataset._make_iterator())),
                       spec, add_card(self._cardinality, dataset._cardinality))

    def flat_map(self, map_func: Any, name: str | None = None) -> Dataset:
        """The elements of the datasets ``map_func`` returns for each element, in order.

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.range(1, 3).flat_map(lambda n: fg.data.Dataset.range(n))
        >>> [int(x) for x in ds]
        [0, 0, 1]
        """
        return self.interleave(map_func, cycle_length=1, block_length=1)

    def interleave(self, map_func: Any, cycle_length: Any = None, block_length: Any = None,
                   num_parallel_calls: Any = None, deterministic: Any = None,
                   name: str | None = None) -> Dataset:
        """The elements of the datasets ``map_func`` returns, ``block_length`` at a time
        from each of ``cycle_length`` open datasets in turn; an exhausted one is replaced by
        the next element's dataset (``cycle_length`` defaults to the number of CPUs, as
        ``tf.data`` picks it).

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.range(1, 3).interleave(
        ...     lambda n: fg.data.Dataset.from_tensors(n).repeat(2), cycle_length=2)
        >>> [int(x) for x in ds]
        [1, 2, 1, 2]

        Raises:
            TypeError: when ``map_func`` does not return a Dataset.
        """
        cycle = _count(cycle_length, "Dataset.interleave", "cycle_length")
        cycle = (os.cpu_count() or 1) if cycle <= 0 else cycle
        block = max(1, _count(block_length, "Dataset.interleave", "block_length"))

        def open_dataset(element):
            ds = structure.call_with(map_func, element)
            if not isinstance(ds, Dataset):
                raise TypeError(f"Dataset.interleave: map_func must return a Dataset, got "
                                f"{type(ds).__name__}")
            return ds

        def make():
            return resumable.interleaved(self._make_iterator(),
                                         lambda e: open_dataset(e)._make_iterator(), cycle,
                                         block)
        return Dataset(make, LazySpec(self, make), UNKNOWN_CARDINALITY)

    def reduce(self, initial_state: Any, reduce_func: Any, name: str | None = None) -> Any:
        """``reduce_func(state, element)`` folded over the elements from ``initial_state``.

        >>> import finegrad as fg
        >>> int(fg.data.Dataset.range(5).reduce(fg.constant(0, fg.int64), lambda s, x: s + x))
        10
        """
        state = structure.to_tensors(initial_state, "Dataset.reduce")
        for element in self._make_iterator():
            state = structure.to_tensors(reduce_func(state, element), "Dataset.reduce")
        return state

    def apply(self, transformation_func: Any) -> Any:
        """``transformation_func(self)``: a transformation written as a function."""
        return transformation_func(self)

    def with_options(self, options: Any, name: str | None = None) -> Dataset:
        """The same elements, carrying ``options`` (a `finegrad.data.Options`) merged over
        the pipeline's: they are kept and merged as in ``tf.data`` and change nothing at run
        time (iteration here is synchronous).

        Raises:
            TypeError: when ``options`` is not an `Options`.
        """
        if not isinstance(options, Options):
            raise TypeError(f"Dataset.with_options: options must be a finegrad.data.Options, "
                            f"got {type(options).__name__}")
        out = Dataset(self._make_iterator, self._element_spec, self._cardinality, self._rows)
        out._options = pipeline_options(self).merge(options)
        return out

    def options(self) -> Any:
        """The pipeline's `finegrad.data.Options` (those given to `with_options` here and
        upstream, merged; default ones when none were)."""
        return pipeline_options(self)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """The elements, without those whose computation raised (logged with
        ``log_warning``), as ``tf.data`` drops them: each transformation goes on after a
        failed element as TensorFlow's does (a batch or window holding a failed element is
        dropped; `zip` loses the other inputs' elements of that step; `shard` and
        `rebatch` lose what they had taken), including `window`, `shard`,
        `group_by_window`, `interleave`, `scan`, `unique`, `rebatch` and the
        `choose_from_datasets` / `sample_from_datasets` selections and
        `rejection_resample`. (An error that ended a stage finegrad cannot resume would
        raise `finegrad.errors.UnimplementedError` rather than end the dataset early.)

        >>> import finegrad as fg
        >>> ds = fg.data.Dataset.from_tensor_slices([1., 2., 0., 4.]).map(
        ...     lambda x: fg.debugging.check_numerics(1. / x, "error"))
        >>> [float(x) for x in ds.ignore_errors()]
        [1.0, 0.5, 0.25]
        """
        return Dataset(lambda: resumable.ignoring_errors(self._make_iterator(), log_warning),
                       self._element_spec, UNKNOWN_CARDINALITY)

    def fingerprint(self) -> Any:
        """A uint64 scalar hashing the dataset's recipe: equal for datasets built the same
        way from the same data and functions (not TensorFlow's values)."""
        return Tensor(np.asarray(_fingerprint(self), np.uint64))

    # --- inspection -----------------------------------------------------------------------

    @property
    def element_spec(self) -> Any:
        """The structure of `TensorSpec` of an element."""
        spec = self._element_spec
        if isinstance(spec, (LazySpec, SpecMap)):
            spec = self._element_spec = spec.resolve()
        return spec

    def cardinality(self) -> Any:
        """The number of elements as an int64 scalar: -1 if infinite
        (``finegrad.data.INFINITE_CARDINALITY``), -2 if unknown (``UNKNOWN_CARDINALITY``)."""
        return Tensor(np.asarray(self._cardinality, np.int64))

    def __len__(self):
        if self._cardinality == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __iter__(self):
        return Iterator(self)

    def as_numpy_iterator(self) -> Any:
        """An iterator over the elements with NumPy values (bytes for strings)."""
        return (structure.numpy_of(e) for e in self._make_iterator())

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<Dataset element_spec={self.element_spec}>"


class Iterator:
    """An iterator over a `Dataset`'s elements (``iter(dataset)``): ``next(it)`` or
    ``it.get_next()``; ``get_next_as_optional`` is not provided."""

    def __init__(self, dataset: Any) -> None:
        self._dataset = dataset
        self._it = dataset._make_iterator()

    @property
    def element_spec(self) -> Any:
        """The dataset's element spec."""
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def get_next(self) -> Any:
        """The next element.

        Raises:
            finegrad.errors.OutOfRangeError: at the end of the sequence.
        """
        try:
            return next(self._it)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None


_END = object()


def _recording(it, stored, done):
    for element in it:
        stored.append(element)
        yield element
    done[0] = True


def _called_late(generator, args):
    """The elements of ``generator(*args)``, called at the first element (as ``tf.data``
    calls it), not when the iteration starts."""
    yield from generator(*args)


def _generator_spec(output_signature, output_types, output_shapes, fn):
    if output_signature is not None:
        return output_signature
    if output_types is None:
        raise TypeError(f"{fn}: give output_signature (or output_types)")
    if output_shapes is None:
        return structure.map_structure(lambda t: TensorSpec(None, t), output_types)
    return structure.map_structure(lambda t, s: TensorSpec(s, t), output_types, output_shapes)


def _conform(value, spec, fn):
    def one(v, s):
        t = convert_to_tensor(v) if not isinstance(v, Tensor) else v
        if t.dtype != s.dtype:
            t = Tensor(np.asarray(t._value).astype(s.dtype._np))
        if not s.is_compatible_with(t):
            raise InvalidArgumentError(f"{fn}: the generator produced an element of shape "
                                       f"{tuple(t.shape)}, which does not match {s.shape}")
        return t
    try:
        return structure.map_structure(one, value, spec)
    except ValueError as e:
        if isinstance(e, InvalidArgumentError):
            raise
        raise TypeError(f"{fn}: the generator's element does not match the structure of "
                        f"output_signature: {e}") from None

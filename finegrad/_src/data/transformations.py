"""``tf.data.experimental``'s functions: most return a transformation for `Dataset.apply`
(``ds.apply(tf.data.experimental.ignore_errors())``), the older spelling of a `Dataset`
method; `save` and `load` act directly."""
from __future__ import annotations

from typing import Any

from finegrad._src.data.dataset import Dataset


def ignore_errors(log_warning: bool = False) -> Any:
    """A transformation dropping the elements that raise (`Dataset.ignore_errors`).

    >>> import finegrad as fg
    >>> ds = fg.data.Dataset.from_tensor_slices([1., 0.]).map(
    ...     lambda x: fg.debugging.check_numerics(1. / x, "error"))
    >>> [float(x) for x in ds.apply(fg.data.experimental.ignore_errors())]
    [1.0]
    """
    return lambda dataset: dataset.ignore_errors(log_warning)


def rejection_resample(class_func: Any, target_dist: Any, initial_dist: Any = None,
                       seed: Any = None) -> Any:
    """A transformation resampling to ``target_dist`` (`Dataset.rejection_resample`)."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist,
                                                      seed)


def snapshot(path: Any, compression: Any = "AUTO", reader_func: Any = None,
             shard_func: Any = None) -> Any:
    """A transformation persisting the elements under ``path`` (`Dataset.snapshot`)."""
    return lambda dataset: dataset.snapshot(path, compression, reader_func, shard_func)


def save(dataset: Any, path: Any, compression: Any = None, shard_func: Any = None,
         checkpoint_args: Any = None) -> None:
    """``dataset.save(path, ...)`` (`Dataset.save`)."""
    dataset.save(path, compression, shard_func, checkpoint_args)


def load(path: Any, element_spec: Any = None, compression: Any = None,
         reader_func: Any = None, wait: bool = False) -> Any:
    """``Dataset.load(path, ...)`` (`Dataset.load`)."""
    return Dataset.load(path, element_spec, compression, reader_func, wait)


def cardinality(dataset: Any) -> Any:
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def get_single_element(dataset: Any) -> Any:
    """``dataset.get_single_element()``."""
    return dataset.get_single_element()


def enumerate_dataset(start: Any = 0) -> Any:
    """A transformation pairing each element with its index (`Dataset.enumerate`)."""
    return lambda dataset: dataset.enumerate(start)


def unique() -> Any:
    """A transformation keeping the first of equal elements (`Dataset.unique`)."""
    return lambda dataset: dataset.unique()


def unbatch() -> Any:
    """A transformation splitting each element along its first axis (`Dataset.unbatch`)."""
    return lambda dataset: dataset.unbatch()


def scan(initial_state: Any, scan_func: Any) -> Any:
    """A transformation folding state over the elements (`Dataset.scan`)."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def take_while(predicate: Any) -> Any:
    """A transformation ending at the first element failing ``predicate``
    (`Dataset.take_while`)."""
    return lambda dataset: dataset.take_while(predicate)

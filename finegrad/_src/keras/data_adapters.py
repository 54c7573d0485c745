"""What ``fit``, ``evaluate`` and ``predict`` iterate over: batches from NumPy arrays and
tensors (sliced, shuffled each epoch when asked), from Python generators, or from
``finegrad.data`` datasets (any iterable of batches).

A batch is a tuple ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` of tensors (nested lists
and dicts kept), as Keras's ``unpack_x_y_sample_weight`` reads it. Float64 arrays become
float32 (floatx), as Keras converts them.
"""
from typing import Any

import inspect
import math

import numpy as np

from finegrad._src.keras.dtype_policies import floatx
from finegrad._src.keras.nodes import flatten, map_structure
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable


def unpack_x_y_sample_weight(data: Any) -> Any:
    """``(x, y, sample_weight)`` from a batch: a tuple of one to three items, or ``x``.

    >>> from finegrad._src.keras.data_adapters import unpack_x_y_sample_weight
    >>> unpack_x_y_sample_weight((1, 2))
    (1, 2, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    if y is None:
        return (x,)
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _as_array(x):
    if isinstance(x, (Tensor, Variable)):
        x = x.numpy()
    x = np.asarray(x)
    if x.dtype == np.float64:
        x = x.astype(floatx())
    return x


def _to_tensor(x):
    if x is None or isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.read_value()
    x = np.asarray(x)
    if x.dtype == np.float64:
        x = x.astype(floatx())
    return Tensor(x)


def is_array_like(x):
    leaves = flatten(x)
    return bool(leaves) and all(isinstance(v, (np.ndarray, Tensor, Variable, list, float, int))
                                or v is None for v in leaves)


def _class_weights(y, class_weight):
    if len(flatten(y)) != 1:
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    y = np.asarray(flatten(y)[0])
    labels = y.reshape(-1) if y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1) \
        else np.argmax(y, axis=-1)
    table = np.ones(int(max(max(class_weight), labels.max(initial=0))) + 1, np.float32)
    for k, w in class_weight.items():
        table[int(k)] = w
    return table[labels.astype(np.int64)]


class ArrayBatches:
    """Batches of arrays (and tensors): every ``batch_size`` rows, shuffled per epoch."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
                 shuffle=False, class_weight=None):
        x, y, sw = (map_structure(_as_array, v) if v is not None else None
                    for v in (x, y, sample_weight))
        if class_weight is not None:
            if sw is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same "
                                 "time.")
            if y is None:
                raise ValueError("`class_weight` needs targets `y`")
            sw = _class_weights(y, class_weight)
        self.data = pack_x_y_sample_weight(x, y, sw)
        sizes = {name: [a.shape[0] for a in flatten(v)] for name, v in
                 zip(("x", "y", "sample_weight"), self.data, strict=False)}
        all_sizes = {n for s in sizes.values() for n in s}
        if len(all_sizes) > 1:
            detail = "".join(f"'{k}' sizes: {', '.join(map(str, s))}\n" for k, s in
                             sizes.items())
            raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain "
                             f"the same number of samples.{detail}")
        self.num_samples = all_sizes.pop()
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        full = math.ceil(self.num_samples / self.batch_size)
        self.num_batches = min(full, steps) if steps is not None else full

    def __iter__(self):
        n, bs = self.num_samples, self.batch_size
        order = np.random.permutation(n) if self.shuffle else None
        for i in range(self.num_batches):
            if order is None:
                part = slice(i * bs, min((i + 1) * bs, n))
            else:
                part = order[i * bs:(i + 1) * bs]
            yield map_structure(lambda a, p=part: Tensor(a[p]), self.data)


class IterableBatches:
    """Batches from a Python generator (one iterator for the whole training, as Keras) or
    from a dataset: iterated anew each epoch, or, with ``steps`` given, continued from epoch
    to epoch (and restarted once exhausted), as Keras's epoch iterator does."""

    def __init__(self, data, steps=None):
        self.source = data
        self.generator = inspect.isgenerator(data) or hasattr(data, "__next__")
        self._iterator = data if self.generator else None
        self._keep = self.generator or steps is not None
        self.num_batches = steps
        if steps is None and hasattr(data, "__len__") and not self.generator:
            try:
                self.num_batches = len(data)
            except TypeError:   # an infinite or unknown cardinality
                self.num_batches = None

    def __iter__(self):
        if self._iterator is None or not self._keep:
            self._iterator = iter(self.source)
        k = 0
        while self.num_batches is None or k < self.num_batches:
            try:
                batch = next(self._iterator)
            except StopIteration:
                if not self.generator:
                    self._iterator = None    # a dataset starts again next epoch
                return
            k += 1
            if not isinstance(batch, tuple):
                batch = (batch,)
            yield map_structure(_to_tensor, batch)


def batches(x, y=None, sample_weight=None, batch_size=None, steps=None, shuffle=False,
            class_weight=None, where="fit"):
    """The batches of the data given to ``where`` (fit, evaluate, predict)."""
    if x is None:
        raise ValueError(f"Model.{where}: `x` must be given (arrays, a generator or a "
                         f"dataset)")
    if is_array_like(x):
        return ArrayBatches(x, y, sample_weight, batch_size, steps, shuffle, class_weight)
    if y is not None or sample_weight is not None:
        raise ValueError(f"Model.{where}: when `x` is a generator or a dataset, `y` and "
                         f"`sample_weight` come from it and must not be given")
    if class_weight is not None:
        raise ValueError(f"Model.{where}: `class_weight` is supported for NumPy arrays and "
                         f"tensors only")
    if not hasattr(x, "__iter__") and not hasattr(x, "__next__"):
        raise ValueError(f"Model.{where}: unrecognized data type: x={x!r} (of type "
                         f"{type(x).__name__})")
    return IterableBatches(x, steps)


def train_validation_split(arrays, validation_split):
    """The data split at ``1 - validation_split`` of its rows: (train, validation)."""
    leaves = [v for v in flatten(arrays) if v is not None]
    if not all(isinstance(v, (np.ndarray, Tensor, Variable, list)) for v in leaves):
        raise ValueError(f"`validation_split` is only supported for Tensors or NumPy arrays, "
                         f"found following types in the input: "
                         f"{sorted({type(v).__name__ for v in leaves})}")
    n = _as_array(leaves[0]).shape[0]
    split = int(math.floor(n * (1.0 - validation_split)))
    if split == 0 or split == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`. Either provide more data, "
                         f"or a different value for the `validation_split` argument.")

    def part(lo, hi):
        return map_structure(lambda v: None if v is None else _as_array(v)[lo:hi], arrays)
    return part(0, split), part(split, n)


def to_categorical(x: Any, num_classes: Any = None) -> Any:
    """One-hot rows for integer class labels (``keras.utils.to_categorical``): float32, the
    classes along a new last axis (a trailing axis of size 1 is replaced).

    >>> from finegrad._src.keras.data_adapters import to_categorical
    >>> to_categorical([0, 2, 1], 3)
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]], dtype=float32)
    """
    x = np.asarray(x.numpy() if isinstance(x, (Tensor, Variable)) else x, dtype=np.int64)
    shape = x.shape[:-1] if x.ndim > 1 and x.shape[-1] == 1 else x.shape
    x = x.reshape(-1)
    num_classes = int(x.max()) + 1 if num_classes is None else int(num_classes)
    out = np.zeros((x.size, num_classes), np.float32)
    out[np.arange(x.size), x] = 1.0
    return out.reshape(shape + (num_classes,))

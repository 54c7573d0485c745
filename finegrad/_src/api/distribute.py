"""``tf.distribute`` on one machine: the default strategy, ``OneDeviceStrategy`` and
``MirroredStrategy`` with one replica, and the replica and cross-replica contexts.

The model is TensorFlow's. Code runs in one of three contexts, kept per thread on a stack:

- the *default* context (no strategy entered): ``get_strategy()`` is the default strategy,
  ``get_replica_context()`` its replica context, ``in_cross_replica_context()`` is False;
- a *cross-replica* context, inside ``strategy.scope()`` or a ``merge_call``:
  ``get_replica_context()`` is None and ``in_cross_replica_context()`` is True;
- a *replica* context, inside ``strategy.run(fn)``: ``get_replica_context()`` is the
  replica's context, whose collectives (``all_reduce``, ``all_gather``) combine the values
  of every replica in sync.

finegrad runs one replica, so a collective returns its input (as a tensor, differentiable:
the gradient of an all-reduce over one replica is the identity). This is what code written for
many replicas needs to run unchanged on one machine; for many devices, ``finegrad.ops`` runs
the same custom gradients on JAX or PyTorch and their distributed runtimes.
"""
from __future__ import annotations

import contextlib
import enum
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from finegrad._src import nest
from finegrad._src.ops.array.structural import convert_to_tensor, identity
from finegrad._src.ops.array.structural import reduce_sum
from finegrad._src.ops.math.reductions import reduce_mean

__all__ = ["ReduceOp", "Strategy", "OneDeviceStrategy", "MirroredStrategy", "ReplicaContext",
           "InputContext", "InputOptions", "DistributedDataset", "get_strategy",
           "has_strategy", "get_replica_context", "in_cross_replica_context",
           "experimental_set_strategy"]


class ReduceOp(enum.Enum):
    """How values of several replicas are combined: ``SUM`` or ``MEAN``.

    >>> import finegrad as tf
    >>> tf.distribute.ReduceOp("MEAN")
    <ReduceOp.MEAN: 'MEAN'>
    """

    SUM = "SUM"
    MEAN = "MEAN"

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str) and value.upper() in ("SUM", "MEAN"):
            return cls(value.upper())
        return None


def _reduce_op(op: ReduceOp | str, where: str) -> ReduceOp:
    try:
        return ReduceOp(op)
    except ValueError:
        raise ValueError(f"{where}: reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or "
                         f"'SUM' / 'MEAN'), got {op!r}") from None


class _Context(threading.local):
    def __init__(self):
        self.stack: list[tuple[Strategy, str]] = []


_context = _Context()


def _top() -> tuple[Strategy, str]:
    return _context.stack[-1] if _context.stack else (_DEFAULT, "default")


@contextlib.contextmanager
def _entered(strategy: Strategy, mode: str):
    _context.stack.append((strategy, mode))
    try:
        yield
    finally:
        _context.stack.pop()


class InputContext:
    """What an input function learns about the replicas it feeds (one pipeline, one replica)."""

    num_input_pipelines = 1
    input_pipeline_id = 0
    num_replicas_in_sync = 1

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """The batch each replica gets: the global batch over one replica."""
        return int(global_batch_size)


class InputOptions:
    """Accepted for code that passes it; with one replica there is nothing to place."""

    def __init__(self, **options: Any) -> None:
        self.options = options


class DistributedDataset:
    """A dataset split over the replicas; with one replica, the dataset's own elements."""

    def __init__(self, dataset: Iterable) -> None:
        self._dataset = dataset

    def __iter__(self) -> Iterator:
        return iter(self._dataset)

    @property
    def element_spec(self) -> Any:
        return getattr(self._dataset, "element_spec", None)


class ReplicaContext:
    """The context of one replica inside ``Strategy.run`` (or the default context).

    >>> import finegrad as tf
    >>> ctx = tf.distribute.get_replica_context()
    >>> ctx.all_reduce("sum", tf.constant([1., 2.])).numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, strategy: Strategy, replica_id_in_sync_group: int = 0) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> Strategy:
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        return convert_to_tensor(self._replica_id)

    def all_reduce(self, reduce_op: ReduceOp | str, value: Any, options: Any = None) -> Any:
        """``value`` (any nest of tensors) combined over the replicas: itself, for one."""
        _reduce_op(reduce_op, "ReplicaContext.all_reduce")
        return nest.map_structure(lambda v: identity(convert_to_tensor(v)), value)

    def all_gather(self, value: Any, axis: int, options: Any = None) -> Any:
        """The replicas' values concatenated along ``axis``: ``value`` itself, for one."""
        return nest.map_structure(lambda v: identity(convert_to_tensor(v)), value)

    def merge_call(self, merge_fn: Callable, args: tuple = (), kwargs: dict | None = None) -> Any:
        """``merge_fn(strategy, *args, **kwargs)`` run once, in the cross-replica context."""
        with _entered(self._strategy, "cross"):
            return merge_fn(self._strategy, *args, **(kwargs or {}))


class Strategy:
    """Runs computations on the replicas of one machine: here one replica (the CPU).

    >>> import finegrad as tf
    >>> strategy = tf.distribute.MirroredStrategy()
    >>> with strategy.scope():
    ...     v = tf.Variable(2.)
    >>> def step(x):
    ...     ctx = tf.distribute.get_replica_context()
    ...     return ctx.all_reduce("sum", v * x)
    >>> strategy.run(step, args=(tf.constant(3.),)).numpy()
    np.float32(6.0)
    """

    def __init__(self, devices: Any = None) -> None:
        self._devices = tuple(devices) if isinstance(devices, (list, tuple)) else (
            ("/cpu:0",) if devices is None else (devices,))

    @property
    def num_replicas_in_sync(self) -> int:
        return 1

    @property
    def extended(self) -> Strategy:
        return self

    @property
    def worker_devices(self) -> tuple:
        return self._devices

    @contextlib.contextmanager
    def scope(self) -> Iterator[Any]:
        """Enter the cross-replica context of this strategy (variables made here are its)."""
        current, mode = _top()
        if mode != "default" and current is not self:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {current!r} "
                               f"is not {self!r}")
        with _entered(self, "cross"):
            yield self

    def run(self, fn: Callable, args: tuple = (), kwargs: dict | None = None,
            options: Any = None) -> Any:
        """``fn(*args, **kwargs)`` on each replica, in its replica context."""
        with _entered(self, "replica"):
            return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op: ReduceOp | str, value: Any, axis: int | None) -> Any:
        """Per-replica ``value`` combined over the replicas, then along ``axis`` if given."""
        op = _reduce_op(reduce_op, "Strategy.reduce")
        value = convert_to_tensor(value)
        if axis is None:
            return identity(value)
        return (reduce_sum if op is ReduceOp.SUM else reduce_mean)(value, axis=axis)

    def gather(self, value: Any, axis: int) -> Any:
        """The replicas' values concatenated along ``axis``: ``value`` for one replica."""
        return identity(convert_to_tensor(value))

    def experimental_local_results(self, value: Any) -> tuple:
        """The values held by this machine's replicas: ``(value,)``."""
        return (value,)

    def experimental_distribute_dataset(self, dataset: Iterable,
                                        options: Any = None) -> DistributedDataset:
        """``dataset`` split over the replicas (its elements unchanged, with one replica)."""
        return DistributedDataset(dataset)

    def distribute_datasets_from_function(self, dataset_fn: Callable,
                                          options: Any = None) -> DistributedDataset:
        """The dataset ``dataset_fn(InputContext())`` returns, split over the replicas."""
        return DistributedDataset(dataset_fn(InputContext()))

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """The value ``value_fn`` gives replica 0."""
        return value_fn(_ValueContext())


class _ValueContext:
    replica_id_in_sync_group = 0
    num_replicas_in_sync = 1


class OneDeviceStrategy(Strategy):
    """A strategy that places everything on one device."""

    def __init__(self, device: str) -> None:
        super().__init__(device)


class MirroredStrategy(Strategy):
    """Synchronous training over the GPUs of one machine; here one replica on the CPU."""

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        super().__init__(devices)


class _DefaultStrategy(Strategy):
    """The strategy in force when none was entered: no distribution at all."""

    @contextlib.contextmanager
    def scope(self) -> Iterator[Any]:
        yield self


_DEFAULT = _DefaultStrategy()


def get_strategy() -> Strategy:
    """The current strategy: the one whose ``scope`` or ``run`` we are in, or the default.

    >>> import finegrad as tf
    >>> tf.distribute.get_strategy().num_replicas_in_sync
    1
    """
    return _top()[0]


def has_strategy() -> bool:
    """Whether a strategy other than the default is current.

    >>> import finegrad as tf
    >>> tf.distribute.has_strategy()
    False
    """
    return _top()[0] is not _DEFAULT


def in_cross_replica_context() -> bool:
    """True inside a strategy's ``scope`` or a ``merge_call``; False in a replica or default.

    >>> import finegrad as tf
    >>> tf.distribute.in_cross_replica_context()
    False
    """
    return _top()[1] == "cross"


def get_replica_context() -> ReplicaContext | None:
    """The current replica's context, or None in a cross-replica context.

    >>> import finegrad as tf
    >>> tf.distribute.get_replica_context().num_replicas_in_sync
    1
    """
    strategy, mode = _top()
    return None if mode == "cross" else ReplicaContext(strategy)


def experimental_set_strategy(strategy: Strategy | None) -> None:
    """Make ``strategy`` current for the rest of this thread (None: back to the default)."""
    _context.stack.clear()
    if strategy is not None:
        _context.stack.append((strategy, "cross"))

"""``tf.data.Options`` and its option groups: typed settings a pipeline carries
(`Dataset.with_options`, `Dataset.options`). finegrad's iteration is synchronous, so the
settings change nothing at run time; they are kept, checked and merged as ``tf.data`` does,
so that code which sets them (a distribution's ``auto_shard_policy``, ``deterministic``)
runs unchanged."""
from __future__ import annotations

import enum
from typing import Any


class AutoShardPolicy(enum.IntEnum):
    """How a distributed input pipeline is sharded (``tf.data.experimental``)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.IntEnum):
    """What to do with stateful functions when a pipeline is serialized."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionGroup:
    """Typed options: ``_FIELDS`` maps each name to (type, default); groups nest."""

    _FIELDS: dict[str, tuple[Any, Any]] = {}
    _ALIASES: dict[str, str] = {}

    def __init__(self) -> None:
        for name, (kind, default) in self._FIELDS.items():
            value = kind() if isinstance(kind, type) and issubclass(kind, _OptionGroup) \
                else default
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        alias = type(self)._ALIASES.get(name)
        if alias is None:
            raise AttributeError(f"{type(self).__name__} has no property {name!r}")
        return getattr(self, alias)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._ALIASES))

    def __setattr__(self, name: str, value: Any) -> None:
        name = self._ALIASES.get(name, name)
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._FIELDS[name][0]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"Property \"{name}\" must be of type {kind}, got: {value!r} "
                            f"(type: {type(value)})")
        object.__setattr__(self, name, value)

    def merge(self, options: Any) -> Any:
        """A copy with the settings of ``options`` that are set (not None) taking over."""
        out = type(self)()
        for name, (_, default) in self._FIELDS.items():
            mine, theirs = getattr(self, name), getattr(options, name)
            if isinstance(mine, _OptionGroup):
                object.__setattr__(out, name, mine.merge(theirs))
            else:
                object.__setattr__(out, name, mine if theirs is None or theirs == default
                                   else theirs)
        return out

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, n) == getattr(other, n) for n in self._FIELDS)

    __hash__ = None   # type: ignore[assignment]

    def __repr__(self):
        set_ = [f"{n}={getattr(self, n)!r}" for n in self._FIELDS if getattr(self, n) is not None]
        return f"{type(self).__name__}({', '.join(set_)})"


class AutotuneOptions(_OptionGroup):
    """``tf.data.experimental.AutotuneOptions``."""
    _FIELDS = {"autotune_algorithm": (object, None), "cpu_budget": (int, None),
               "enabled": (bool, None), "initial_parallelism": (int, None),
               "min_parallelism": (int, None), "ram_budget": (int, None)}


class DistributeOptions(_OptionGroup):
    """``tf.data.experimental.DistributeOptions``."""
    _FIELDS = {"auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO),
               "num_devices": (int, None)}


class OptimizationOptions(_OptionGroup):
    """``tf.data.experimental.OptimizationOptions``."""
    _FIELDS = {n: (bool, None) for n in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
        "shuffle_and_repeat_fusion")}


class ThreadingOptions(_OptionGroup):
    """``tf.data.ThreadingOptions``."""
    _FIELDS = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class ServiceOptions(_OptionGroup):
    """``tf.data.experimental.ServiceOptions``."""
    _FIELDS = {"pinned": (bool, None)}


class Options(_OptionGroup):
    """``tf.data.Options``: settings for a pipeline, given with `Dataset.with_options`.

    >>> import finegrad as fg
    >>> o = fg.data.Options()
    >>> o.experimental_distribute.auto_shard_policy = fg.data.experimental.AutoShardPolicy.OFF
    >>> o.deterministic = False
    >>> ds = fg.data.Dataset.range(3).with_options(o).map(lambda x: x + 1)
    >>> ds.options().deterministic, [int(x) for x in ds]
    (False, [1, 2, 3])
    """
    _FIELDS = {"autotune": (AutotuneOptions, None), "dataset_name": (str, None),
               "deterministic": (bool, None),
               "experimental_distribute": (DistributeOptions, None),
               "experimental_external_state_policy": (ExternalStatePolicy, None),
               "experimental_optimization": (OptimizationOptions, None),
               "experimental_service": (ServiceOptions, None),
               "experimental_slack": (bool, None),
               "experimental_symbolic_checkpoint": (bool, None),
               "experimental_warm_start": (bool, None), "framework_type": (list, None),
               "threading": (ThreadingOptions, None)}
    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}


def _datasets_in(fn, seen, depth=0):
    """The datasets a recipe function holds in its closure (functions followed)."""
    found = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        values = value if isinstance(value, (list, tuple)) else (value,)
        for v in values:
            if id(v) in seen or depth > 50:
                continue
            seen.add(id(v))
            if hasattr(v, "_make_iterator") and hasattr(v, "_options"):
                found.append(v)
            elif callable(v) and hasattr(v, "__closure__"):
                found.extend(_datasets_in(v, seen, depth + 1))
    return found


def pipeline_options(dataset: Any, seen: Any = None) -> Options:
    """The options of ``dataset``: those of its input datasets merged first, then its own
    (``tf.data``'s rule: the options of a pipeline's datasets combine)."""
    seen = set() if seen is None else seen
    seen.add(id(dataset))
    out = Options()
    for upstream in _datasets_in(dataset._make_iterator, seen):
        out = out.merge(pipeline_options(upstream, seen))
    return out if dataset._options is None else out.merge(dataset._options)

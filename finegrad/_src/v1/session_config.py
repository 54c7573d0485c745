"""The configuration objects TF1 programs hand to a `Session` (``ConfigProto``, ``GPUOptions``,
``RunOptions``, ``RunMetadata``, ``GraphOptions``, ``OptimizerOptions``...): finegrad runs in
one process on NumPy, so they hold what is set on them and change nothing, except
``graph_options.optimizer_options.global_jit_level``, which `Session` reads (`jit_level`)."""


class _Options:
    """Any field can be given or set; an unset field reads as None, and an unset options
    group (``config.gpu_options``) is made on first access."""

    _groups: tuple[str, ...] = ()

    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._groups:
            value = _GROUP_TYPES.get(name, _Options)()
            object.__setattr__(self, name, value)
            return value
        return None

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class GPUOptions(_Options):
    """``tf.compat.v1.GPUOptions`` (``allow_growth``, ...): accepted, ignored.

    >>> import finegrad as fg
    >>> fg.compat.v1.GPUOptions(allow_growth=True).allow_growth
    True
    """


class OptimizerOptions(_Options):
    """``tf.compat.v1.OptimizerOptions``: ``global_jit_level`` ``ON_1`` or ``ON_2`` makes a
    `Session` compile the graph it runs with XLA (as ``function(jit_compile=True)``, when JAX
    is installed); ``DEFAULT`` and ``OFF`` (and unset) keep finegrad's executor. The other
    fields are accepted and ignored.

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> config = v1.ConfigProto(graph_options=v1.GraphOptions(
    ...     optimizer_options=v1.OptimizerOptions(global_jit_level=v1.OptimizerOptions.ON_1)))
    >>> config.graph_options.optimizer_options.global_jit_level
    1
    """

    # GlobalJitLevel, and Level (opt_level), with TensorFlow's values
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2
    L1, L0 = 0, -1


class GraphOptions(_Options):
    """``tf.compat.v1.GraphOptions``: ``optimizer_options`` (an `OptimizerOptions`) is read
    by `Session`; the other fields are accepted and ignored."""

    _groups = ("optimizer_options", "rewrite_options")


class ConfigProto(_Options):
    """``tf.compat.v1.ConfigProto`` (``allow_soft_placement``, ``gpu_options``, ...):
    accepted by `Session`, ignored.

    >>> import finegrad as fg
    >>> config = fg.compat.v1.ConfigProto(allow_soft_placement=True)
    >>> config.gpu_options.allow_growth = True
    >>> config.gpu_options.allow_growth, config.log_device_placement
    (True, None)
    """

    _groups = ("gpu_options", "graph_options", "device_count", "experimental")


class RunOptions(_Options):
    """``tf.compat.v1.RunOptions``: accepted by `Session.run`, ignored."""

    FULL_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, NO_TRACE = 3, 1, 2, 0


class RunMetadata(_Options):
    """``tf.compat.v1.RunMetadata``: accepted by `Session.run`, left empty."""


_GROUP_TYPES = {"gpu_options": GPUOptions, "graph_options": GraphOptions,
                "optimizer_options": OptimizerOptions}


def jit_level(config):
    """Whether ``config`` (a `ConfigProto` or None) asks for XLA:
    ``graph_options.optimizer_options.global_jit_level`` is ``ON_1`` or ``ON_2``."""
    if config is None:
        return False
    graph = getattr(config, "graph_options", None)
    opt = getattr(graph, "optimizer_options", None) if graph is not None else None
    level = getattr(opt, "global_jit_level", None) if opt is not None else None
    return level in (OptimizerOptions.ON_1, OptimizerOptions.ON_2)

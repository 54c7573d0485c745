"""The configuration objects TF1 programs hand to a `Session` (``ConfigProto``, ``GPUOptions``,
``RunOptions``, ``RunMetadata``, ``GraphOptions``...): finegrad runs in one process on NumPy,
so they hold what is set on them and change nothing; they exist so that the programs run."""


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
            value = _Options()
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


class GraphOptions(_Options):
    """``tf.compat.v1.GraphOptions``: accepted, ignored."""


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

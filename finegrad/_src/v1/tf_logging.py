"""TensorFlow 1's ``tf.compat.v1.logging``: its levels and calls on Python's `logging`, the
logger named ``"finegrad"`` (TF1 programs start with ``set_verbosity(...)``)."""

from __future__ import annotations

import logging as _logging

from typing import Any



class Level(int):
    """A logging level: Python's level number."""


DEBUG, INFO, WARN, WARNING, ERROR, FATAL = (Level(n) for n in (
    _logging.DEBUG, _logging.INFO, _logging.WARNING, _logging.WARNING, _logging.ERROR,
    _logging.FATAL))
_logger = _logging.getLogger("finegrad")


def get_logger() -> _logging.Logger:
    """finegrad's logger, Python's ``logging.getLogger("finegrad")`` (TensorFlow's
    ``tf.get_logger``, whose logger is named "tensorflow").

    >>> import finegrad as fg
    >>> fg.get_logger().name
    'finegrad'
    """
    return _logger


def set_verbosity(v: Any) -> None:
    """Log messages at level ``v`` and above.

    >>> import finegrad as fg
    >>> fg.compat.v1.logging.set_verbosity(fg.compat.v1.logging.ERROR)
    >>> fg.compat.v1.logging.get_verbosity() == fg.compat.v1.logging.ERROR
    True
    """
    _logger.setLevel(int(v))


def get_verbosity() -> int:
    return _logger.getEffectiveLevel()


def log(level: Any, msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.fatal(msg, *args, **kwargs)

"""TensorFlow's ``tf.compat.v1.logging``: TensorFlow 1's logging calls on Python's logging
(the logger named ``"finegrad"``)."""
from finegrad._src.v1.tf_logging import (DEBUG, INFO, WARN, WARNING, ERROR, FATAL,
                                         debug, info, warn, warning, error, fatal,
                                         log, set_verbosity, get_verbosity)

__all__ = ["DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "debug", "info", "warn",
           "warning", "error", "fatal", "log", "set_verbosity", "get_verbosity"]

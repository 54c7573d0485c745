"""TensorFlow's ``tf.compat.v2``: the TensorFlow 2 API itself, so code written as
``import tensorflow.compat.v2 as tf`` (TF Quant Finance, TF Probability) runs as
``import finegrad.compat.v2 as tf``.

Every name of ``finegrad`` (its functions, classes, dtypes, submodules, ``compat.v1``) is
this module's too and is the same object, as TensorFlow 2's ``tf.compat.v2.constant is
tf.constant``.

>>> import finegrad
>>> import finegrad.compat.v2 as tf
>>> tf.constant is finegrad.constant and tf.math is finegrad.math
True
>>> float(tf.reduce_sum(tf.constant([1., 2.])))
3.0
"""
import sys as _sys
from types import ModuleType as _ModuleType
from typing import Any as _Any


def _package() -> _ModuleType:
    # the package is imported before its submodules, so it is in sys.modules; reading it
    # there (not importing it) keeps finegrad -> compat -> v2 free of a cycle
    return _sys.modules["finegrad"]


def __getattr__(name: str) -> _Any:
    """``finegrad``'s attribute ``name`` (``__all__`` included, for ``import *``)."""
    try:
        return getattr(_package(), name)
    except AttributeError:
        raise AttributeError(f"module 'finegrad.compat.v2' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(dir(_package())) | set(globals()))

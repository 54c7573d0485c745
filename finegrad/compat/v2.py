"""TensorFlow's ``tf.compat.v2``: the TensorFlow 2 API itself, so code written as
``import tensorflow.compat.v2 as tf`` (TF Quant Finance, TF Probability) runs as
``import finegrad.compat.v2 as tf``.

This module is finegrad's own top-level namespace under a second name (in TensorFlow 2,
``tf.compat.v2.constant is tf.constant``); every name, submodule and ``compat.v1`` is there.

    import finegrad.compat.v2 as tf      # the same module object as ``import finegrad``
    tf.reduce_sum(tf.constant([1., 2.]))

(The module replaces itself with the package on import, so tests/test_compat_v2.py, not a
doctest here, checks it.)
"""
import sys as _sys

# the package is imported before any of its submodules, so it is here (partly initialized
# while finegrad.compat loads this module; the same object, complete, once finegrad is)
_sys.modules[__name__] = _sys.modules["finegrad"]

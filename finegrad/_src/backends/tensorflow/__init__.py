"""The ``tensorflow`` backend of `finegrad.ops`: Keras 3's names on ``tf``,
``tf.experimental.numpy``, ``tf.nn``, ``tf.linalg`` and ``tf.signal``, over the composites
shared by every backend."""
import tensorflow as _tensorflow  # noqa: F401 (the package needs tensorflow)

from finegrad._src.backends import assemble as _assemble
from finegrad._src.backends.composite import LAYERS as _COMPOSITES
from finegrad._src.backends.tensorflow import core, custom, image, linalg, nn, numpy

BACKEND = _assemble.Backend("tensorflow", "tensorflow", with_backend=_COMPOSITES,
                            own=(custom, numpy, nn, linalg, core, image), supports_variables=True)

"""The ``jax`` backend of `finegrad.ops`: Keras 3's names on ``jax.numpy``, ``jax.nn``,
``jax.lax`` and ``jax.scipy``, over the composites shared by every backend."""
import jax as _jax  # noqa: F401 (the package needs jax)

from finegrad._src.backends import assemble as _assemble
from finegrad._src.backends.composite import LAYERS as _COMPOSITES
from finegrad._src.backends.jax import core, custom, linalg, nn, numpy

BACKEND = _assemble.Backend("jax", "jax", with_backend=_COMPOSITES,
                            own=(custom, numpy, nn, linalg, core))

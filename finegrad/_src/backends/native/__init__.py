"""The ``finegrad`` backend of `finegrad.ops`: Keras 3's names on finegrad's own engine,
over the composites shared by every backend."""
from finegrad._src.backends import assemble as _assemble
from finegrad._src.backends.composite import LAYERS as _COMPOSITES
from finegrad._src.backends.native import custom, nn, numpy

BACKEND = _assemble.Backend("finegrad", "finegrad", with_backend=_COMPOSITES,
                            own=(custom, numpy, nn), supports_variables=True)

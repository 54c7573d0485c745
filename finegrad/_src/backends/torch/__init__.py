"""The ``torch`` backend of `finegrad.ops`: Keras 3's names on ``torch``,
``torch.nn.functional``, ``torch.linalg`` and ``torch.fft``, over the composites shared by
every backend."""
import torch as _torch  # noqa: F401 (the package needs torch)

from finegrad._src.backends import assemble as _assemble
from finegrad._src.backends.composite import LAYERS as _COMPOSITES
from finegrad._src.backends.torch import core, custom, linalg, nn, numpy

BACKEND = _assemble.Backend("torch", "torch", with_backend=_COMPOSITES,
                            own=(custom, numpy, nn, linalg, core))

"""DLPack exchange with other array libraries (``tf.experimental.dlpack``): `from_dlpack`
takes a producer (NumPy, PyTorch, JAX, ...) or a capsule, `to_dlpack` makes a capsule."""
from finegrad._src.dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]

"""``tf.linalg.LinearOperator`` and its subclasses: matrices known by their structure
(diagonal, triangular, identity, low-rank updates, block-diagonal, Kronecker, Toeplitz, and
compositions, adjoints and inverses of them), built from finegrad ops."""
from finegrad._src.ops.linalg.linear_operator import (base, diagonal,  # noqa: F401
                                                      structured)

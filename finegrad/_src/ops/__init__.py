"""The primitives, one family per module; importing this package registers them all."""
import warnings

from finegrad._src.ops import (base, indexing, array, constants, gather, queries,  # noqa: F401
                               complex_numbers, elementwise, arithmetic, reduce, linalg, nn,
                               operators, special, manipulation, linalg_extra,
                               solvers, decompositions, svd_qr,
                               random_streams, random_ops, random_generator, conv, pool,
                               scatter_nd, masking, mapping,
                               special_functions, sorting, segments, counting, math_more,
                               linalg_more)

operators.install(linalg.matmul)

# NumPy warns on overflow and invalid values (exp(1000), log(0)); finegrad keeps the IEEE
# inf/nan the math produces and, like TensorFlow, does not warn about them.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"finegrad\._src\.")

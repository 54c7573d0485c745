"""The primitives, grouped by family as TensorFlow's namespaces group them; importing this
package registers every primitive.

Families: `array` (tf's array ops), `math` (tf.math), `special` (tf.math's special
functions), `linalg` (tf.linalg), `nn` (tf.nn), `random` (tf.random), `signal` (tf.signal).
Shared by all: `zeros_and_axes` (static arguments and axes, symbolic zeros, constants of a
symbolic shape), `declare` (how an elementwise primitive is declared from its derivative or
partials), `batching` (vectorized_map's shared batching rules) and `operators` (the Python
operators installed on Tensor).
"""
import warnings

from finegrad._src.ops import zeros_and_axes, array, math, linalg, nn  # noqa: F401
from finegrad._src.ops import special, random, signal  # noqa: F401
from finegrad._src.ops import operators
from finegrad._src.ops.linalg import products

operators.install(products.matmul)

# NumPy warns on overflow and invalid values (exp(1000), log(0)); finegrad keeps the IEEE
# inf/nan the math produces and, like TensorFlow, does not warn about them.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"finegrad\._src\.")

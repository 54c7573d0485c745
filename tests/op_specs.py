"""The op table: one `OpSpec` row per differentiable public op, run by test_op_gradients.py.

Each row names a function of float tensors, where its inputs are drawn from (a `Domain` per
argument), the shapes to try, the order to check, and the primitive(s) it covers. Anything
the function needs that is not differentiable (integer labels, gather indices, a `where`
condition) is fixed inside the function, so every argument a row declares is a float64
input of `finegrad.testing.check_gradients`.

The rows live by family, as the primitives do (ops/<family>/): op_specs_array.py,
op_specs_math.py, op_specs_special.py, op_specs_linalg.py, op_specs_nn.py, op_specs_random.py,
op_specs_signal.py, and op_specs_control_flow.py (custom_gradient, traced cond/while_loop,
map_fn, vectorized_map); this module gathers them.

`NONDIFF` lists the registered primitives that carry no gradient; `INTERNAL` the ones users
never call directly, each reached by the rows named beside it. The guard test in
test_op_gradients.py fails when a registered primitive is in none of these.
"""

import op_specs_array
import op_specs_composites  # noqa: F401 (LinearOperator methods, tf.raw_ops)
import op_specs_control_flow
import op_specs_image  # tf.image: resize, flips, crops, color, patches
import op_specs_linalg
import op_specs_math
import op_specs_nn
import op_specs_random
import op_specs_signal  # noqa: F401 (its rows register themselves; no NONDIFF)
import op_specs_special
from op_table import SPECS  # noqa: F401 (the table the family modules fill)

# ---- the registry beyond the rows ---------------------------------------------------------------

#: registered primitives that carry no gradient (def_nondiff): gradients stop there.
NONDIFF = (
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "is_nan", "is_inf", "is_finite",
    "floor", "ceil", "round", "rint", "floordiv",
    "stop_gradient",
    # a traced function's variable read and update: effects, run in program order
    "read_variable", "assign_variable",
    # a check that a traced int used as a size has its traced value (tests/test_traced_ints.py)
    "size_guard",
    # a check that a traced int used as a size has its traced value (tests/test_traced_ints.py)
    "size_guard",
    # constants of a symbolic shape (shape-polymorphic graphs), and a shape's value
    "full", "shape",
    # range of symbolic bounds (tests/test_v1_symbolic_bounds.py): int positions, no gradient
    "range",
    # the compiler's graph-only primitives (graph/compile/graph_ops.py, structure.py): made by
    # its rewrites after tracing, never seen by a tape
    "scatter_sum_into_zeros", "strided_slice_copy", "strided_slice_view", "diagonal_matmul",
)

#: primitives covered by tests outside the table, or reached only inside other ops' rules.
INTERNAL = {
    "custom_gradient": "the op `custom_gradient` records; rows log1pexp and "
                       "custom_gradient(x * y) reach it, test_custom_gradient.py covers the rest",
    "scatter_add_into_zeros": "the VJP of strided_slice; the vjp(x[...]) rows check its rules "
                              "(the cotangent is an input there)",
    "gather_transpose": "the VJP of gather; the vjp(gather(...)) rows check its rules (the "
                        "cotangent is an input there)",
    "cast": "float64 -> float32 loses the precision finite differences need; checked exactly "
            "in test_op_gradients.py::test_cast_gradient",
    "random_gamma": "random draws (finite differences redraw); tests/test_random_gamma.py checks "
                    "the implicit gradient, whose gamma_sample_grad row is here",
    "stateless_gamma": "as random_gamma: its draws move with alpha by the sampler, not by "
                       "the CDF inversion the gradient follows; tests/test_random_gamma.py",
    "py_function": "Python code run as an op inside a trace; tests/test_tf_parity_sweep.py "
                   "checks its gradient (first order only, by design)",
    "py_function_vjp": "the gradient of a traced py_function (its func re-run under a tape)",
    "while_grad": "the derivatives of a while_loop inside a trace (re-run the loop under "
                  "nested tapes); tests/test_control_flow.py checks them to third order",
}

NONDIFF += (op_specs_array.NONDIFF + op_specs_math.NONDIFF + op_specs_special.NONDIFF +
            op_specs_linalg.NONDIFF + op_specs_nn.NONDIFF + op_specs_random.NONDIFF +
            op_specs_control_flow.NONDIFF)
INTERNAL.update(op_specs_image.NO_GRADIENT)

"""Op-table rows of differentiation and control flow: `custom_gradient` functions, the
graph's cond and while_loop nodes in traced functions, map_fn and vectorized_map.
"""

import finegrad as fg

from op_table import (POSITIVE, OpSpec, _add, _named)


# ---- custom_gradient ----------------------------------------------------------------------

@fg.custom_gradient
def log1pexp(x):
    """log(1 + e**x) with the stable gradient 1 - 1 / (1 + e**x) (DESIGN.md's example)."""
    e = fg.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return fg.math.log(1 + e), grad


@fg.custom_gradient
def _scaled_product(x, y):
    """x * y with its true gradient, written by hand: two inputs, rules of several ops."""
    def grad(dy):
        return dy * y, dy * x
    return x * y, grad


_add(
    OpSpec(log1pexp, prims=("custom_gradient",)),
    OpSpec(_named("custom_gradient(x * y)", _scaled_product), nargs=2,
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))), prims=("custom_gradient",)),
)


# ---- control flow in traced functions (the graph's cond / while_loop nodes) -----------------

@fg.function
def _traced_cond(x):
    return fg.cond(fg.reduce_sum(x) > 0, lambda: fg.sin(x) * x, lambda: fg.exp(x) * 2.)


@fg.function
def _traced_while(x):
    _, y = fg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, fg.sin(y) * x),
                         [fg.constant(0), x])
    return y


_add(
    OpSpec(_named("function(cond) true branch", lambda x: _traced_cond(x)), domain=POSITIVE,
           prims=("cond",)),
    OpSpec(_named("function(cond) false branch", lambda x: _traced_cond(x)),
           domain=(-2.0, -0.5), prims=("cond",)),
    # called eagerly, while_loop's gradient re-runs the loop under a tape (any order)
    OpSpec(_named("function(while_loop)", lambda x: _traced_while(x)), prims=("while_loop",)),
)



# map_fn: fn per slice of one unstack, the results stacked; vectorized_map: fn's ops once
# over the batch (a slice, a size-1 axis after the batch axis, a product)
_add(OpSpec(_named("map_fn", lambda x: fg.map_fn(lambda r: fg.sin(r) * fg.reduce_sum(r), x)),
            shapes=((3,), (2, 3)), prims=("unstack_rows", "concat")),
     OpSpec(_named("vectorized_map", lambda x: fg.vectorized_map(lambda r: r * r[0], x)),
            shapes=((2, 3),), prims=("strided_slice", "reshape", "multiply")))


NONDIFF = ("numpy_function",   # Python code as one graph op: TensorFlow gives no gradient
           "assert",          # tf.debugging's value checks in a graph: no outputs
           "print")           # tf.print in a graph: no outputs

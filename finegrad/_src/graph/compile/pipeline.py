"""The compiler's passes, in the order they run: `compile_graph` is the one list of them.

1. `simplify.simplify`, `simplify.scalarize_constants`: dead code, common subexpressions,
   constant folding; whole-array constants of one value as scalars;
2. `rewrite.fold_negations`: negations folded into the arithmetic around them;
3. `algebra.drop_identities`, `algebra.commute_operands`, `algebra.fold_scalar_factors`:
   x * 1 and the like dropped, commuted subexpressions merged, scalar factors folded;
4. `structure.diagonal_matmuls`: products with diagonal matrices as scalings;
5. `rewrite.merge_scatters`, `rewrite.copy_slices`: scatters merged, slices copied into
   recycled buffers or read in place;
6. `fuse.fuse_elementwise`: chains of large elementwise kernels run block by block;
7. `executor.Compiled`: buffers planned, steps emitted, code generated (`codegen`).

`compiled(g)` compiles a graph once and keeps the result on it.
"""
from finegrad._src.graph.compile import algebra, rewrite, structure
from finegrad._src.graph.compile.executor import Compiled
from finegrad._src.graph.compile.fuse import fuse_elementwise
from finegrad._src.graph.compile.simplify import scalarize_constants, simplify


def compile_graph(g):
    """The graph's executable form, after the passes: simplify, scalarize constants, fold
    negations (graph/compile/rewrite.py), drop x * 1 and the like, merge commuted subexpressions
    and fold scalar factors (graph/compile/algebra.py), products with diagonal matrices as
    scalings (graph/compile/structure.py), merge scatters, copy slices into recycled buffers or
    read them in place (graph/compile/rewrite.py), fuse, plan buffers, emit."""
    g = rewrite.fold_negations(scalarize_constants(simplify(g)))
    g = algebra.fold_scalar_factors(algebra.commute_operands(algebra.drop_identities(g)))
    g = structure.diagonal_matmuls(g)
    return Compiled(fuse_elementwise(rewrite.copy_slices(rewrite.merge_scatters(g))))


def compiled(g):
    """``g``'s executable form (a `Compiled`), compiled on first use and kept on ``g``."""
    if g._compiled is None:
        g._compiled = compile_graph(g)
    return g._compiled

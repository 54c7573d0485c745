"""The graph compiler: the passes over a traced `ir.Graph` (in the order `pipeline` lists
them: `simplify`, `rewrite`, `algebra`, `structure`, `fuse`), the primitives only compiled
graphs hold (`graph_ops`), the executor (`executor`: buffer plan, steps, `Compiled`) and
its generated code (`codegen`), the fast path's threads and scalar arithmetic (`fast`), the
numba loops of fused chains (`jit`), and symbolic sizes (`symbolic`: how open dimensions
flow, and `specialize`)."""

"""A traced sub-graph of a control-flow node (a cond branch, a loop's condition or body),
with which captured input feeds each of its outer slots; run compiled or replayed."""
import numpy as np

from finegrad._src.graph.compile import pipeline, symbolic
from finegrad._src.graph.tracing.concrete import replay


class SubGraph:
    """A traced sub-graph, with which captured input feeds each of its outer slots
    (``outer_index``: {outer slot: index among the node's captured inputs})."""

    def __init__(self, graph, builder, outer_index):
        self.graph, self.builder, self.outer_index = graph, builder, outer_index
        self._compiled = None
        self._sized = {}    # argument and captured shapes -> compiled (symbolic sub-graphs)

    def run_values(self, args, captured_values):
        outer = {s: captured_values[i] for s, i in self.outer_index.items()}
        if self.graph.sym:
            # open sizes of the enclosing graph (a cond follows them, see _cond_shape): the
            # sub-graph resolved for these sizes, as a polymorphic function is
            key = (tuple(np.shape(a) for a in args),
                   tuple(np.shape(v) for v in captured_values))
            compiled = self._sized.get(key)
            if compiled is None:
                outs, sized, _ = symbolic.specialize(self.graph, list(args), outer)
                if len(self._sized) < 16:
                    self._sized[key] = pipeline.compiled(sized)
                return outs
            return compiled.run(list(args), outer)
        if self._compiled is None:
            self._compiled = pipeline.compiled(self.graph)
        return self._compiled.run(list(args), outer)

    def replay(self, args, captured, effects=True):
        outer = {s: captured[i] for s, i in self.outer_index.items()}
        return replay(self.graph, list(args), self.builder, outer=outer, effects=effects)

    def __repr__(self):
        return f"<{self.graph.name}: {len(self.graph.nodes)} nodes>"

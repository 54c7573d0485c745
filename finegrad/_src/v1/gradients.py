"""TensorFlow 1's ``gradients`` signature over finegrad's one reverse pass (graph/gradients.py):
in a TF1 graph the gradient ops go into the graph under the ``gradients/`` name scope."""

from __future__ import annotations

from finegrad._src.api import scopes
from finegrad._src.ad.tape import UnconnectedGradients
from finegrad._src.graph.tracing import gradients as _graph_gradients
from finegrad._src.v1.graphs import current_graph

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.tensor import Tensor


class AggregationMethod:
    """How gradients of one tensor are summed (accepted; finegrad always adds them)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method: Any = None, stop_gradients: Any = None,
              unconnected_gradients: Any = UnconnectedGradients.NONE) -> list[Tensor]:
    """d(sum of ``ys``)/d``xs`` as graph tensors (TensorFlow 1's argument order):
    ``grad_ys`` the initial cotangents, ``stop_gradients`` held constant, None for an ``x``
    that ``ys`` do not depend on (or zeros with ``unconnected_gradients="zero"``);
    ``colocate_gradients_with_ops``, ``gate_gradients`` and ``aggregation_method`` are
    accepted and change nothing.

    >>> import finegrad as fg
    >>> v1 = fg.compat.v1
    >>> with fg.Graph().as_default():
    ...     x = v1.placeholder(fg.float32, [])
    ...     (dx,) = v1.gradients(x ** 3, x)
    ...     with v1.Session() as sess:
    ...         float(sess.run(dx, {x: 2.}))
    12.0
    """
    del colocate_gradients_with_ops
    g = current_graph()
    scope = scopes.name_scope(name or "gradients") if g is not None else None
    if scope is not None:
        scope.__enter__()
    try:
        return _graph_gradients.gradients(ys, xs, grad_ys, name, gate_gradients,
                                          aggregation_method, stop_gradients,
                                          unconnected_gradients)
    finally:
        if scope is not None:
            scope.__exit__(None, None, None)

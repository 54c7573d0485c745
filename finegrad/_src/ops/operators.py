"""Python operators on Tensor (``+ - * / // % ** @``, comparisons, indexing).

`Tensor` is defined below the ops (tensor.py) so the ops can build on it; its operators are the
ops themselves, attached here in one place. ``==`` is elementwise, as in TensorFlow 2.
"""
from finegrad._src.core import bind
from finegrad._src.ops.math import arithmetic as ar
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.array import indexing
from finegrad._src.state import state as _state
from finegrad._src.tensor import Tensor


def _identity_equality():
    """Whether ``==`` compares identities: while a TF1 graph is built (v1/graphs.py), as in
    TensorFlow, whose graph tensors compare by identity (``tf.equal`` is elementwise)."""
    return getattr(_state.tracer, "v1_graph", None) is not None


def _eq(self, other):
    if other is None:
        return False
    return self is other if _identity_equality() else ew.equal(self, other)


def _ne(self, other):
    if other is None:
        return True
    return self is not other if _identity_equality() else ew.not_equal(self, other)


def _rev(op):
    def reflected(self, other):
        return op(other, self)
    return reflected


def _rev_bind(prim):
    """The reflected operator of an op that is exactly ``bind(prim, x, y)`` (add, subtract,
    multiply, divide): `bind` called directly, one Python call less per ``1 - x``."""
    def reflected(self, other):
        return bind(prim, other, self)
    return reflected


def _mul(self, other):
    """``x * y``: `bind` directly, so bool tensors give their logical and, as TensorFlow's
    operator does (``finegrad.multiply``, like ``tf.multiply``, refuses bools)."""
    return bind(ar.multiply_p, self, other)


def install(matmul):
    """Attach the operators to Tensor (called once by finegrad._src.ops)."""
    T = Tensor
    T.__add__, T.__radd__ = ar.add, _rev_bind(ar.add_p)
    T.__sub__, T.__rsub__ = ar.subtract, _rev_bind(ar.subtract_p)
    T.__mul__, T.__rmul__ = _mul, _rev_bind(ar.multiply_p)
    T.__truediv__, T.__rtruediv__ = ar.divide, _rev_bind(ar.divide_p)
    T.__floordiv__, T.__rfloordiv__ = ar.floordiv, _rev(ar.floordiv)
    T.__mod__, T.__rmod__ = ar.mod, _rev(ar.mod)
    T.__pow__, T.__rpow__ = ar.pow, _rev(ar.pow)
    T.__matmul__, T.__rmatmul__ = matmul, _rev(matmul)
    T.__neg__ = ar.negative
    T.__pos__ = lambda self: self
    T.__abs__ = ew.abs
    T.__eq__ = _eq
    T.__ne__ = _ne
    T.__lt__, T.__le__ = ew.less, ew.less_equal
    T.__gt__, T.__ge__ = ew.greater, ew.greater_equal
    T.__and__, T.__rand__ = ew.logical_and, _rev(ew.logical_and)
    T.__or__, T.__ror__ = ew.logical_or, _rev(ew.logical_or)
    T.__xor__, T.__rxor__ = ew.logical_xor, _rev(ew.logical_xor)
    T.__invert__ = ew.logical_not
    T.__getitem__ = indexing.getitem
    # (__hash__ stays tensor.py's: unhashable but in a TF1 graph, despite __eq__ here)

"""Structural rewrites: matrix products with a diagonal operand (a pass of the `pipeline`).

`diagonal_matmuls`: a Jacobian taken by one batched reverse pass (`GradientTape.jacobian`)
seeds it with an identity matrix; elementwise VJPs then scale it by vectors
(``tanh_grad(y, eye)`` is ``eye * (1 - y^2)``, a diagonal matrix ``D``) and a matrix
product's VJP multiplies ``D`` with a matrix: ``n^3`` multiply-adds for what is a row or
column scaling of ``n^2`` elements. The pass matches a chain of elementwise kernels that
starts at a constant diagonal matrix (an identity or a multiple of one: the *diagonal
chain*; `GradientTape.batch_jacobian`'s seed, identities along the first and last axes of
an ``(n, b, n)`` array, too), whose other
operands broadcast against it, ending, maybe through a reshape into a batch of rows or
columns, in one operand of a ``matmul``. The whole is one `diag_matmul_p` node that runs the
chain twice on small arrays: on the diagonal's values (the other operands' diagonals), and
on zero with the other operands as they are, which gives every value an off-diagonal element
takes (and some more: a check that may only be too strict). Then:
- when every off-diagonal value is zero (``0`` or ``-0``) and the other operand is finite,
  each element of the dense product is one product ``a * d_k`` plus terms ``a' * (+-0)``,
  which are zeros and add nothing (with or without fused multiply-adds): the product is the
  scaling ``d[:, None] * b`` (or ``a * d``), with the same values as the dense product
  (identical; only a zero's sign may differ, ``-0 == 0``);
- otherwise (a nan or an infinity reached the chain, or the other operand is not finite:
  ``0 * inf`` is nan in the dense product) the node runs the original ops densely, the same
  ufuncs on the same arrays, so the values are identical in every case.
"""
import numpy as np

from finegrad._src.core import Primitive, def_nondiff
from finegrad._src.graph import ir
from finegrad._src.graph.xla import lower
from finegrad._src.ops import lowering
from finegrad._src.ops.array.structural import reshape_p
from finegrad._src.ops.linalg.products import matmul_p

diag_matmul_p = def_nondiff(Primitive("diagonal_matmul", unify=False, fresh=True))


@diag_matmul_p.def_impl
def _diag_matmul_impl(eye, other, *ext, plan, form, shape):
    """The product of ``other`` with the diagonal chain's result (reshaped to ``shape``) on
    the side ``form`` says: "left" (``D @ other``), "right" (``other @ D``), "cols" (``other
    @ D.reshape(n, n, 1)``), "rows" (``D.reshape(n, 1, n) @ other``), or "batch" (``D @
    other``, ``D`` of shape ``(n, b, n)`` diagonal in its first and last axes, the seed of
    `GradientTape.batch_jacobian`). ``plan``: the chain's kernels, each with its operands
    (None: the chain's value, k: ``ext[k]``)."""
    n = shape[0]
    # a folded reshape may have made a 2-D identity (n, n, 1) or (n, 1, n)
    eye = eye if form == "batch" else np.reshape(eye, (n, n))
    axes = {"axis1": 0, "axis2": eye.ndim - 1}
    vals = [np.diagonal(np.broadcast_to(v, eye.shape), **axes) if np.ndim(v) else v
            for v in ext]
    diag, off = np.diagonal(eye, **axes), np.zeros((), eye.dtype)
    for kernel, args in plan:
        diag = kernel(*[diag if a is None else vals[a] for a in args])
        # the off-diagonal elements' values (checked wherever the operands vary)
        off = kernel(*[off if a is None else ext[a] for a in args])
    if np.any(off) or not np.isfinite(np.sum(other)):
        return _dense(eye, other, ext, plan, form, shape)
    return _batched(_scaled(np, diag, other, form), form)


@diag_matmul_p.def_lowering
def _diag_matmul_lower(eye, other, *ext, plan, form, shape):
    """XLA: the scaling where the chain's off-diagonal values are zero and ``other`` is
    finite, else the dense ops (``lax.cond``: one of them runs), as the impl decides; the
    chain's steps lowered as their primitives are."""
    import jax
    from jax import lax
    fns = [lower.jax_lowering(p) if hasattr(p, "lower_jax") else None for p in plan.prims]
    if plan.seed is None or any(f is None for f in fns):
        return NotImplemented
    jnp = lowering.jnp()
    n = shape[0]
    eye = eye if form == "batch" else jnp.reshape(eye, (n, n))

    def run(x, vals):
        for fn, (_, args) in zip(fns, plan, strict=True):
            x = fn(*[x if a is None else vals[a] for a in args])
        return x
    diag = run(jnp.asarray(plan.seed), [_diagonal(v, eye.shape) if jnp.ndim(v) else v
                                        for v in ext])
    off = run(jnp.zeros((), eye.dtype), list(ext))
    if any(v is NotImplemented for v in (diag, off)):
        return NotImplemented
    # (one scalar for both checks, fewer of XLA's small kernels than any() | ~isfinite():
    # nan where ``other``'s sum is not finite, nonzero or nan where an off value is)
    dense_needed = _sum_of(other) * 0 + jnp.sum(jnp.abs(off)) != 0
    dtype = jax.numpy.result_type(other)
    product = lower.jax_lowering(matmul_p)   # (full precision, as every matmul)

    def dense():   # (a batch of rows or columns as one matrix product: the same sums)
        x = run(eye, list(ext))
        if form == "cols":
            return product(x, other.T).astype(dtype)
        return (product(other, x) if form == "right" else product(x, other)).astype(dtype)
    # (rows and columns: a matrix out of the cond, a reshape after it, no layout copies)
    return _batched(lax.cond(dense_needed, dense,
                             lambda: _scaled(jnp, diag, other, form).astype(dtype)), form)


def _sum_of(x):
    """The sum of JAX array ``x`` (ndim >= 2), nan or an infinity where ``x`` holds one (or
    the sum overflows): its rows' sums as a product with a vector of ones, then their sum.
    XLA's CPU code adds a reduction's elements one after another (about 2 ns each: each add
    waits for the last), while its matrix-vector product is vectorized: 9 us instead of
    60 us for a 200x200 float32 matrix."""
    from jax import lax
    jnp = lowering.jnp()
    rows = jnp.reshape(x, (-1, x.shape[-1]))
    ones = jnp.ones((x.shape[-1],), x.dtype)
    return jnp.sum(lax.dot(rows, ones, precision=lax.Precision.HIGHEST))


def _diagonal(v, shape):
    """The diagonal (first and last axes) of JAX value ``v`` broadcast to ``shape``: for a
    vector along the last axis, ``v`` broadcast to the diagonal's shape (no gather)."""
    jnp = lowering.jnp()
    axes = {"axis1": 0, "axis2": len(shape) - 1}
    if jnp.ndim(v) <= 1:
        return jnp.broadcast_to(v, (*shape[1:-1], shape[0]))
    return jnp.diagonal(jnp.broadcast_to(v, shape), **axes)


def _scaled(xp, diag, other, form):
    """The product as a scaling of ``other`` by the diagonal's values ``diag`` (``xp``:
    NumPy or JAX's NumPy), for each ``form`` of `_diag_matmul_impl`."""
    if form == "left":
        return xp.multiply(diag[:, None], other)
    if form == "right":
        return xp.multiply(other, diag)
    if form == "cols":
        return xp.multiply(other.T, diag[:, None])   # (then a batch of columns: `_batched`)
    if form == "rows":
        return xp.multiply(diag[:, None], other)     # (then a batch of rows)
    return xp.multiply(diag.T[:, :, None], other[:, None, :])   # diag: (b, n)


def _batched(product, form):
    """The node's result from `_scaled`'s: a batch of columns (``cols``: ``(n, n, 1)``) or
    of rows (``rows``: ``(n, 1, m)``) from the matrix of them."""
    if form == "cols":
        return product[:, :, None]
    return product[:, None, :] if form == "rows" else product


def _dense(eye, other, ext, plan, form, shape):
    """The original ops: the chain over whole matrices, the reshape, the product."""
    x = eye
    for kernel, args in plan:
        x = kernel(*[x if a is None else ext[a] for a in args])
    x = np.reshape(x, shape)
    return np.matmul(x, other) if form in ("left", "rows", "batch") else np.matmul(other, x)


def _is_diagonal(v, shape):
    """Whether constant ``v`` of ``shape``, ``(n, n)`` or ``(n, b, n)`` with ``n >= 2``, is
    real floating and ``+0`` off the diagonal of its first and last axes (an identity, or a
    multiple of one: a seed scaled by a constant folds so)."""
    if not isinstance(v, np.ndarray) or v.dtype.kind != "f" or v.shape != tuple(shape) or \
            v.ndim not in (2, 3) or v.shape[0] != v.shape[-1] or v.shape[0] < 2:
        return False
    on = np.eye(v.shape[0], dtype=bool)
    off = v[~np.broadcast_to(on[:, None, :] if v.ndim == 3 else on, v.shape)]
    return not off.any() and not np.signbit(off).any()


def _broadcasts(shape, to):
    """Whether an operand of ``shape`` broadcasts to ``to`` (leaving its shape alone)."""
    try:
        return np.broadcast_shapes(tuple(shape), to) == to
    except ValueError:
        return False


class Chain(tuple):
    """A diagonal chain's plan: (kernel, operands) per step; prints as the primitives
    (``prims``: the steps' primitives, whose XLA lowerings the node's lowering applies)."""

    def __new__(cls, steps, prims):
        self = super().__new__(cls, steps)
        self.prims = tuple(prims)
        self.seed = None   # the diagonal matrix's diagonal (NumPy), set by the rewrite
        self.names = [getattr(p, "name", p) for p in prims]   # (a name, for a plan by hand)
        return self

    def __repr__(self):
        return "[" + ", ".join(self.names) + "]"


class _Graph:
    """What the pass reads of a graph: producers, use counts, outputs, metadata."""

    def __init__(self, g):
        self.g, self.outs = g, ir.out_slots(g)
        self.producer, self.uses = {}, {}
        for n in g.nodes:
            for s in n.outs:
                self.producer[s] = n
            for s in n.ins:
                self.uses[s] = self.uses.get(s, 0) + 1

    def private(self, s):
        """Whether value ``s`` is read once and not returned (its node may be absorbed)."""
        return self.uses.get(s) == 1 and s not in self.outs

    def chain(self, s, shape):
        """(eye slot, the chain's nodes in order, ext slots, plan) of a diagonal chain ending
        in slot ``s`` (a value of ``shape``), or None."""
        nodes = []
        while s not in self.g.consts:
            node = self.producer.get(s)
            if node is None or node.prim.kernel is None or node.params or \
                    len(node.outs) != 1 or not self.private(s) or \
                    tuple(node.meta[0][0]) != shape:
                return None
            inner = [x for x in node.ins if tuple(self.g.meta[x][0]) == shape]
            if len(inner) != 1 or node.ins.count(inner[0]) != 1:
                return None
            nodes.append(node)
            s = inner[0]
        if not _is_diagonal(self.g.consts[s], shape):
            return None
        nodes.reverse()
        ext, plan, chain_slots = [], [], {s} | {m.outs[0] for m in nodes}
        for node in nodes:
            args = []
            for x in node.ins:
                if x in chain_slots:
                    args.append(None)
                    continue
                if not _broadcasts(self.g.meta[x][0], shape):
                    return None
                if x not in ext:
                    ext.append(x)
                args.append(ext.index(x))
            plan.append((node.prim.kernel, tuple(args)))
        return s, nodes, ext, Chain(plan, [m.prim for m in nodes])


def _forms(g, m):
    """The (side of the diagonal operand, form, n) triples a matmul node ``m`` may take,
    given its operands' shapes (``n``: the diagonal's size)."""
    (sa, _), (sb, _) = (g.meta[x] for x in m.ins)
    sa, sb = tuple(sa), tuple(sb)
    if len(sa) == 2 and sa[0] == sa[1] and len(sb) >= 2 and sb[-2] == sa[0]:
        yield 0, "left", sa[0]
    if len(sa) == 3 and sa[1] == 1 and sa[0] == sa[2] and len(sb) == 2 and sb[0] == sa[0]:
        yield 0, "rows", sa[0]
    if len(sb) == 2 and sb[0] == sb[1] and len(sa) >= 2 and sa[-1] == sb[0]:
        yield 1, "right", sb[0]
    if len(sb) == 3 and sb[2] == 1 and sb[0] == sb[1] and len(sa) == 2 and sa[1] == sb[0]:
        yield 1, "cols", sb[0]
    if len(sa) == 3 and sa[0] == sa[2] and len(sb) == 2 and sb[0] == sa[0]:
        yield 0, "batch", sa[0]


def _rewritten(gr, m):
    """The `diag_matmul_p` node replacing matmul node ``m``, and the nodes it absorbs; or
    None."""
    g = gr.g
    if len({np.dtype(g.meta[x][1]) for x in m.ins}) != 1 or \
            np.dtype(m.meta[0][1]).kind != "f":
        return None
    for side, form, n in _forms(g, m):
        s, absorbed, found = m.ins[side], [], None
        shape = tuple(g.meta[s][0])
        if form in ("rows", "cols") and s in g.consts:     # a reshaped identity, folded
            if not _is_diagonal(np.reshape(g.consts[s], (n, n)), (n, n)):
                continue
            found = s, [], [], Chain((), [])
        elif form in ("rows", "cols"):
            r = gr.producer.get(s)
            if r is None or r.prim is not reshape_p or not gr.private(s):
                continue
            absorbed.append(r)
            s = r.ins[0]
        chain_shape = shape if form == "batch" else (n, n)
        if not found and (tuple(g.meta[s][0]) != chain_shape or m.ins[0] == m.ins[1]):
            continue
        found = found or gr.chain(s, chain_shape)
        if found is None:
            continue
        eye, nodes, ext, plan = found
        value = g.consts[eye] if form == "batch" else np.reshape(g.consts[eye], (n, n))
        plan.seed = np.diagonal(value, 0, 0, value.ndim - 1)   # (for the XLA lowering)
        params = {"plan": plan, "form": form, "shape": shape}
        node = ir.Node(diag_matmul_p, (eye, m.ins[1 - side], *ext), params, m.outs, m.meta)
        return node, absorbed + nodes
    return None


def diagonal_matmuls(g):
    """Each ``matmul`` of a diagonal chain (see the module docstring) with another operand:
    one `diag_matmul_p` node. Returns ``g`` when there is none."""
    gr, dropped, nodes = _Graph(g), set(), []
    for n in g.nodes:
        if n.prim is matmul_p and len(n.ins) == 2:
            found = _rewritten(gr, n)
            if found is not None:
                n, absorbed = found
                dropped.update(id(a) for a in absorbed)
        nodes.append(n)
    if not dropped:
        return g
    nodes = [n for n in nodes if id(n) not in dropped]
    return ir.Graph(g.name, g.args, g.arg_names, g.consts, nodes, g.outputs, g.meta, g.outer)

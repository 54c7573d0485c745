"""Batching rules of `vectorized_map` shared by several primitives (`Primitive.def_vmap`).

A rule gets ``(args, batched, **params)``: a batched input has the slices along an extra
axis 0. The rules here cover primitives that broadcast leading axes (`aligned_vmap`: the
elementwise default, matmul), that map over leading axes (`leading_vmap`: linalg), and that
compute each example of an NHWC batch on its own (`merged_vmap`: convolutions, pools). The
axis-shifting rule is `ops.zeros_and_axes.axis_vmap`; `ops.array.batch_all` and
`ops.array.expand_after_batch` are the helpers beside reshape and broadcast_to.
"""
from finegrad._src import core
from finegrad._src.core import bind
from finegrad._src.ops.array.structural import (batch_all, broadcast_to_p, expand_after_batch,
                                                reshape_p)


def aligned_vmap(prim):
    """The batching rule of a primitive that broadcasts its inputs' leading axes as NumPy
    does (elementwise ones, matmul): each batched input of lower per-slice rank than the
    others gets size-1 axes after its batch axis (`expand_after_batch`), then one bind."""
    def rule(args, batched, **params):
        rank = max(len(core.shape_of(a)) - b for a, b in zip(args, batched, strict=True))
        return bind(prim, *[expand_after_batch(a, rank) if b else a
                            for a, b in zip(args, batched, strict=True)], **params)
    return rule


def merged_vmap(prim, images):
    """The batching rule of a primitive whose inputs at positions ``images`` hold examples
    along axis 0, each computed on its own (convolutions, pools: NHWC): the batch merged
    with that axis, one bind, then split again. A batched input elsewhere (the filters):
    ``NotImplemented``."""
    def rule(args, batched, **params):
        if any(b for i, b in enumerate(batched) if i not in images):
            return NotImplemented
        args = list(args)
        some = [i for i in images if batched[i]]
        lead = tuple(core.shape_of(args[some[0]]))[:2]
        for i in images:
            a = args[i] if batched[i] else \
                bind(broadcast_to_p, args[i], shape=lead[:1] + tuple(core.shape_of(args[i])))
            args[i] = bind(reshape_p, a, shape=(-1,) + tuple(core.shape_of(a))[2:])
        out = bind(prim, *args, **params)
        return bind(reshape_p, out, shape=lead + tuple(core.shape_of(out))[1:])
    return rule


def leading_vmap(prim):
    """The batching rule of a primitive that maps over the leading axes of its inputs (the
    linalg ones): every input batched, then one bind."""
    def rule(args, batched, **params):
        return bind(prim, *batch_all(args, batched), **params)
    return rule

"""Op-table rows of the tf.nn family (ops/nn/): softmax and the cross-entropies, the
activations written with existing ops, convolutions and pooling.

The convolution rows use small odd shapes; each primitive is reached directly (the filter
gradient through its primitive), so all its rules meet the finite differences."""

import finegrad as fg
from finegrad._src.core import bind
from finegrad._src.ops.nn import conv
from finegrad._src.ops.nn import pool

from op_table import (ANY, AWAY_FROM_ZERO, Domain,
                      OpSpec, _add, _named)

_X, _W = (2, 5, 4, 2), (3, 2, 2, 3)
_add(OpSpec(fg.nn.conv2d, nargs=2, shapes=((_X, _W),), kwargs=dict(strides=1, padding="SAME")),
     OpSpec(fg.nn.conv2d, nargs=2, shapes=((_X, _W),), prims=("conv2d",),
            kwargs=dict(strides=[2, 1], padding="VALID", dilations=[1, 2])),
     OpSpec(fg.nn.conv2d, nargs=2, shapes=((_X, _W),), prims=("conv2d",),
            kwargs=dict(strides=2, padding=[[1, 0], [0, 2]])),
     OpSpec(fg.nn.conv2d_transpose, nargs=2, shapes=(((2, 3, 2, 3), _W),),
            kwargs=dict(output_shape=[2, 5, 4, 2], strides=2, padding="SAME"),
            prims=("conv2d_input_grad",)),
     OpSpec(_named("conv2d_filter_grad", lambda x, ct: bind(
         conv.conv2d_filter_grad_p, x, ct, k_hw=(3, 2), strides=(2, 1), dilations=(1, 1),
         pads=((1, 1), (0, 1)))), nargs=2, shapes=((_X, (2, 3, 4, 3)),)),
     OpSpec(fg.nn.conv1d, nargs=2, shapes=(((2, 7, 2), (3, 2, 3)),), prims=("conv2d",),
            kwargs=dict(stride=2, padding="SAME", dilations=1)),
     OpSpec(fg.nn.depthwise_conv2d, nargs=2, shapes=((_X, (2, 2, 2, 2)),), prims=("conv2d",),
            kwargs=dict(strides=[1, 1, 1, 1], padding="SAME")))

# pooling: random inputs have no ties, so the max's positions are stable under the steps
_P = dict(ksize=(2, 2), strides=(2, 1), pads=((0, 1), (1, 0)))
_add(OpSpec(fg.nn.max_pool2d, shapes=(_X,), kwargs=dict(ksize=2, strides=2, padding="SAME"),
            prims=("max_pool",)),
     OpSpec(fg.nn.max_pool2d, shapes=(_X,), kwargs=dict(ksize=[3, 2], strides=1,
                                                        padding="VALID"), prims=("max_pool",)),
     OpSpec(fg.nn.max_pool1d, shapes=((2, 7, 3),), kwargs=dict(ksize=3, strides=2,
                                                              padding="SAME"),
            prims=("max_pool",)),
     OpSpec(_named("max_pool_scatter", lambda x, ct: bind(pool.max_pool_scatter_p, x, ct, **_P)),
            nargs=2, shapes=((_X, (2, 3, 4, 2)),)),
     OpSpec(_named("max_pool_gather", lambda x, g: bind(pool.max_pool_gather_p, x, g, **_P)),
            nargs=2, shapes=((_X, _X),)),
     OpSpec(fg.nn.avg_pool2d, shapes=(_X,), kwargs=dict(ksize=3, strides=2, padding="SAME"),
            prims=("avg_pool", "avg_pool_grad")),
     OpSpec(fg.nn.avg_pool1d, shapes=((2, 7, 3),), kwargs=dict(ksize=2, strides=1,
                                                              padding="VALID"),
            prims=("avg_pool",)),
     OpSpec(_named("avg_pool_grad", lambda ct: bind(pool.avg_pool_grad_p, ct, in_hw=(5, 4),
                                                    **_P)), shapes=((2, 3, 4, 2),)))


# 3-D convolutions and pools: sums over depth offsets of the 2-D primitives (and maximum)
_V, _W3 = (2, 5, 4, 3, 2), (2, 2, 2, 2, 3)
_add(OpSpec(fg.nn.conv3d, nargs=2, shapes=((_V, _W3),), kwargs=dict(strides=1, padding="SAME"),
            prims=("conv2d",)),
     OpSpec(fg.nn.conv3d, nargs=2, shapes=((_V, _W3),), prims=("conv2d",),
            kwargs=dict(strides=[2, 1, 2], padding="VALID", dilations=[1, 2, 1])),
     OpSpec(fg.nn.conv3d_transpose, nargs=2, shapes=(((2, 3, 2, 2, 3), _W3),),
            kwargs=dict(output_shape=[2, 5, 4, 3, 2], strides=2, padding="SAME"),
            prims=("conv2d_input_grad",)),
     OpSpec(fg.nn.convolution, nargs=2, shapes=((_V, _W3),), prims=("conv2d",),
            kwargs=dict(strides=[1, 2, 1], padding="SAME", dilations=[2, 1, 1])),
     OpSpec(fg.nn.max_pool3d, shapes=(_V,), kwargs=dict(ksize=2, strides=2, padding="SAME"),
            prims=("max_pool", "maximum")),
     OpSpec(fg.nn.max_pool3d, shapes=(_V,), kwargs=dict(ksize=[3, 2, 1], strides=1,
                                                        padding="VALID"),
            prims=("max_pool", "maximum")),
     OpSpec(fg.nn.avg_pool3d, shapes=(_V,), kwargs=dict(ksize=3, strides=2, padding="SAME"),
            prims=("avg_pool",)),
     OpSpec(fg.nn.avg_pool, shapes=(_V,), kwargs=dict(ksize=[2, 1, 2], strides=[1, 1, 2],
                                                      padding="VALID"), prims=("avg_pool",)))


# ---- neural-network ops ----------------------------------------------------------------------

_add(
    OpSpec(fg.nn.softmax, shapes=((3,), (2, 3))),
    OpSpec(fg.nn.softmax, shapes=((2, 3),), kwargs=dict(axis=0)),
    OpSpec(fg.math.softmax, shapes=((2, 3, 2),), kwargs=dict(axis=1)),
    OpSpec(fg.nn.log_softmax, shapes=((3,), (2, 3))),
    OpSpec(fg.nn.log_softmax, shapes=((2, 3),), kwargs=dict(axis=0)),
    OpSpec(fg.nn.softmax_cross_entropy_with_logits, nargs=2,
           shapes=(((3,), (3,)), ((2, 3), (2, 3))),
           prims=("log_softmax", "multiply", "reduce_sum")),
    OpSpec(fg.nn.softmax_cross_entropy_with_logits, nargs=2, kwargs=dict(axis=0),
           shapes=(((2, 3), (2, 3)),), prims=("log_softmax", "multiply", "reduce_sum")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=1)",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits(1, x)),
           shapes=((3,),), prims=("log_softmax", "multiply")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=[0, 2])",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x)),
           shapes=((2, 3),), prims=("log_softmax", "multiply")),
    OpSpec(_named("sparse_softmax_cross_entropy_with_logits(labels=[[0, 1], [2, 2]])",
                  lambda x: fg.nn.sparse_softmax_cross_entropy_with_logits([[0, 1], [2, 2]],
                                                                           x)),
           shapes=((2, 2, 3),), prims=("log_softmax", "multiply")),
    # smooth in the logits although written with `where` (both branches agree at 0)
    OpSpec(fg.nn.sigmoid_cross_entropy_with_logits, nargs=2, domains=((0., 1.), ANY),
           shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3))),
           prims=("select", "log1p", "exp", "multiply")),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (0.5, 1.5)),
           shapes=(((3,), ()), ((2, 3), ())),
           prims=("reduce_sum", "sqrt", "maximum", "divide"), name="clip_by_norm(clipped)"),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (8., 9.)),
           shapes=(((3,), ()), ((2, 3), ())),
           prims=("reduce_sum", "sqrt", "maximum", "divide"), name="clip_by_norm(unclipped)"),
    OpSpec(fg.clip_by_norm, nargs=2, domains=(ANY, (0.5, 2.)), kwargs=dict(axes=[1]),
           shapes=(((2, 3), ()), ((2, 3), (2, 1))),
           prims=("reduce_sum", "sqrt", "maximum", "divide")),
)


# ---- activations of tf.nn written with existing ops (no primitive of their own); their kinks
# (leaky_relu, elu, selu: at 0) are outside the domain
_add(
    OpSpec(fg.nn.leaky_relu, domain=AWAY_FROM_ZERO, prims=("select", "greater")),
    OpSpec(fg.nn.leaky_relu, domain=AWAY_FROM_ZERO, kwargs=dict(alpha=0.01), prims=("select",)),
    OpSpec(fg.nn.elu, domain=AWAY_FROM_ZERO, prims=("select", "expm1")),
    OpSpec(fg.nn.selu, domain=AWAY_FROM_ZERO, prims=("select", "expm1")),
    OpSpec(fg.nn.gelu, kwargs=dict(approximate=True), prims=("tanh",)),
    OpSpec(fg.nn.silu, prims=("sigmoid",)),
    OpSpec(fg.nn.silu, kwargs=dict(beta=2.0), prims=("sigmoid",)),
    OpSpec(fg.nn.relu6, domain=Domain(0.5, 5.5, signed=True), prims=("relu", "minimum")),
)

NONDIFF = ()

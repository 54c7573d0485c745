"""Op-table rows of the random, dropout, convolution and pooling families (kept apart from
op_specs.py, which includes them): `NONDIFF` lists their primitives without a gradient.

The convolution rows use small odd shapes; each primitive is reached directly (the filter
gradient through its primitive), so all its rules meet the finite differences."""
import finegrad as fg
from finegrad._src.core import bind
from finegrad._src.ops.nn import conv
from finegrad._src.ops.nn import pool

from op_table import OpSpec, _add, _named

NONDIFF = ("random", "random_like", "random_poisson", "random_shuffle", "random_categorical",
           "stateless_random", "stateless_categorical", "stateless_poisson",
           "numpy_function")

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

"""Op-table rows of the random, dropout, convolution and pooling families (kept apart from
op_specs.py, which includes them): `NONDIFF` lists their primitives without a gradient.

The convolution rows use small odd shapes; each primitive is reached directly (the filter
gradient through its primitive), so all its rules meet the finite differences."""
import finegrad as fg
from finegrad._src.core import bind
from finegrad._src.ops import conv

from op_table import OpSpec, _add, _named

NONDIFF = ("random", "random_shuffle", "random_categorical", "stateless_random",
           "stateless_categorical")

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

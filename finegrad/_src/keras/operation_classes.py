"""Keras 3's operation classes: how a `finegrad.ops` call on symbolic tensors is saved in a
functional model's config, as Keras 3 saves its ``keras.ops`` calls.

Keras makes each ``keras.ops.<fn>`` call on a KerasTensor an ``Operation`` of a class of
``keras.src.ops.<group>`` (``ops.sum(x, axis=1)`` is ``Sum(axis=1)`` called on ``x``): the
class's constructor takes the call's static arguments, saved as the entry's ``config``
(``{"name": "sum", "axis": 1, "keepdims": False}``), and its ``call`` the rest, saved as the
node's ``args``. `KERAS_OPS` records, for every such function of Keras 3.15.1, its group, its
class and the two parameter lists (read with ``inspect`` from Keras's sources;
tests/test_keras_operation_config.py compares it with the installed Keras). Functions taking
Python callables (``cond``, ``scan``, ``map``...) are left out: Keras cannot save them either.

Rebuilding a node runs the function of `finegrad.ops` of the same name: the module a config
names (``keras.src.ops.numpy``) is read as finegrad's counterpart (``finegrad.ops``),
imported by name as Keras imports the module its configs name.
"""
import importlib
import inspect
from typing import Any, NamedTuple

import numpy as np

from finegrad._src import dtypes
from finegrad._src.keras import naming
from finegrad._src.keras.nodes import KerasTensor, Operation, flatten

# "function group Class: constructor parameters / call parameters;" (Keras 3.15.1); a call
# parameter marked ``=`` is one Keras's function passes by name
_TABLE = """
abs numpy Abs:  / x;
absolute numpy Absolute:  / x;
adaptive_average_pool nn AdaptiveAveragePool: output_size data_format / inputs;
adaptive_max_pool nn AdaptiveMaxPool: output_size data_format / inputs;
add numpy Add:  / x1 x2;
all numpy All: axis keepdims / x;
allclose numpy AllClose: rtol atol equal_nan / x1 x2;
amax numpy Amax: axis keepdims / x;
amin numpy Amin: axis keepdims / x;
angle numpy Angle:  / x;
any numpy Any: axis keepdims / x;
append numpy Append: axis / x1 x2;
arange numpy Arange: dtype / start stop step=;
arccos numpy Arccos:  / x;
arccosh numpy Arccosh:  / x;
arcsin numpy Arcsin:  / x;
arcsinh numpy Arcsinh:  / x;
arctan numpy Arctan:  / x;
arctan2 numpy Arctan2:  / x1 x2;
arctanh numpy Arctanh:  / x;
argmax numpy Argmax: axis keepdims / x;
argmin numpy Argmin: axis keepdims / x;
argpartition numpy Argpartition: kth axis / x;
argsort numpy Argsort: axis / x;
array numpy Array: dtype / x;
array_split numpy ArraySplit: indices_or_sections axis / x;
average numpy Average: axis / x weights=;
average_pool nn AveragePool: pool_size strides padding data_format / inputs;
binary_crossentropy nn BinaryCrossentropy: from_logits / target output;
bincount numpy Bincount: weights minlength sparse / x;
bitwise_and numpy BitwiseAnd:  / x y;
bitwise_invert numpy BitwiseInvert:  / x;
bitwise_left_shift numpy BitwiseLeftShift:  / x y;
bitwise_not numpy BitwiseNot:  / x;
bitwise_or numpy BitwiseOr:  / x y;
bitwise_right_shift numpy BitwiseRightShift:  / x y;
bitwise_xor numpy BitwiseXor:  / x y;
broadcast_to numpy BroadcastTo: shape / x;
cast core Cast: dtype / x;
categorical_crossentropy nn CategoricalCrossentropy: from_logits axis / target output;
cbrt numpy Cbrt:  / x;
cdist math CDist:  / x y;
ceil numpy Ceil:  / x;
celu nn Celu: alpha / x;
cholesky linalg Cholesky: upper / x;
cholesky_inverse linalg CholeskyInverse: upper / x;
clip numpy Clip: x_min x_max / x;
concatenate numpy Concatenate: axis / xs;
conj numpy Conj:  / x;
conjugate numpy Conjugate:  / x;
conv nn Conv: strides padding data_format dilation_rate / inputs kernel;
conv_transpose nn ConvTranspose: strides padding output_padding data_format dilation_rate /
    inputs kernel;
convert_to_tensor core ConvertToTensor: dtype sparse ragged / x;
copy numpy Copy:  / x;
corrcoef numpy Corrcoef:  / x;
correlate numpy Correlate: mode / x1 x2;
cos numpy Cos:  / x;
cosh numpy Cosh:  / x;
count_nonzero numpy CountNonzero: axis / x;
cross numpy Cross: axisa axisb axisc axis / x1 x2;
ctc_decode nn CTCDecode: strategy beam_width top_paths merge_repeated mask_index / inputs
    sequence_lengths;
ctc_loss nn CTCLoss: mask_index / target output target_length output_length;
cumprod numpy Cumprod: axis dtype / x;
cumsum numpy Cumsum: axis dtype / x;
deg2rad numpy Deg2rad:  / x;
depth_to_space nn DepthToSpace: block_size data_format / x;
depthwise_conv nn DepthwiseConv: strides padding data_format dilation_rate / inputs kernel;
det linalg Det:  / x;
diag numpy Diag: k / x;
diagflat numpy Diagflat: k / x;
diagonal numpy Diagonal: offset axis1 axis2 / x;
diff numpy Diff: n axis / a;
digitize numpy Digitize:  / x bins;
divide numpy Divide:  / x1 x2;
divide_no_nan numpy DivideNoNan:  / x1 x2;
dot numpy Dot:  / x1 x2;
dot_product_attention nn DotProductAttention: is_causal flash_attention attn_logits_soft_cap /
    query key value bias= mask= scale=;
dsplit numpy Dsplit: indices_or_sections / x;
dstack numpy Dstack:  / xs;
eig linalg Eig:  / x;
eigh linalg Eigh:  / x;
einsum numpy Einsum: subscripts / *operands;
elu nn Elu: alpha / x;
empty_like numpy EmptyLike: dtype / x;
equal numpy Equal:  / x1 x2;
erf math Erf:  / x;
erfc math Erfc:  / x;
erfinv math Erfinv:  / x;
exp numpy Exp:  / x;
exp2 numpy Exp2:  / x;
expand_dims numpy ExpandDims: axis / x;
expm1 numpy Expm1:  / x;
extract_sequences math ExtractSequences: sequence_length sequence_stride / x;
fabs numpy Fabs:  / x;
fft math FFT:  / x;
fft2 math FFT2:  / x;
flip numpy Flip: axis / x;
fliplr numpy Fliplr:  / x;
flipud numpy Flipud:  / x;
floor numpy Floor:  / x;
floor_divide numpy FloorDivide:  / x1 x2;
fmax numpy Fmax:  / x1 x2;
fmin numpy Fmin:  / x1 x2;
fmod numpy Fmod:  / x1 x2;
fold nn Fold: output_size kernel_size dilation padding stride / x;
full numpy Full: shape dtype / fill_value;
full_like numpy FullLike: dtype / x fill_value;
gcd numpy Gcd:  / x1 x2;
gelu nn Gelu: approximate / x;
geomspace numpy Geomspace: num endpoint dtype axis / start stop;
get_item numpy GetItem:  / x key;
glu nn Glu: axis / x;
greater numpy Greater:  / x1 x2;
greater_equal numpy GreaterEqual:  / x1 x2;
hard_shrink nn HardShrink: threshold / x;
hard_sigmoid nn HardSigmoid:  / x;
hard_silu nn HardSilu:  / x;
hard_tanh nn HardTanh:  / x;
heaviside numpy Heaviside:  / x1 x2;
histogram numpy Histogram: bins range / x;
hsplit numpy Hsplit: indices_or_sections / x;
hstack numpy Hstack:  / xs;
hypot numpy Hypot:  / x1 x2;
i0 numpy I0:  / x;
ifft2 math IFFT2:  / x;
imag numpy Imag:  / x;
image_affine_transform image AffineTransform: interpolation fill_mode fill_value data_format /
    images transform;
image_crop_images image CropImages: top_cropping left_cropping bottom_cropping right_cropping
    target_height target_width data_format / images;
image_elastic_transform image ElasticTransform: alpha sigma interpolation fill_mode fill_value
    seed data_format / images;
image_extract_patches image ExtractPatches: size strides dilation_rate padding data_format /
    images;
image_gaussian_blur image GaussianBlur: kernel_size sigma data_format / images;
image_hsv_to_rgb image HSVToRGB: data_format / images;
image_map_coordinates image MapCoordinates: order fill_mode fill_value / inputs coordinates;
image_pad_images image PadImages: top_padding left_padding bottom_padding right_padding
    target_height target_width data_format / images;
image_perspective_transform image PerspectiveTransform: interpolation fill_value data_format /
    images start_points end_points;
image_resize image Resize: size interpolation antialias crop_to_aspect_ratio pad_to_aspect_ratio
    fill_mode fill_value data_format / images;
image_rgb_to_grayscale image RGBToGrayscale: data_format / images;
image_rgb_to_hsv image RGBToHSV: data_format / images;
image_scale_and_translate image ScaleAndTranslate: spatial_dims method antialias / images
    output_shape scale translation;
image_sobel_edges image SobelEdges: data_format / images;
image_ssim image SSIM: max_val filter_size filter_sigma k1 k2 data_format / image1 image2;
in_top_k math InTopK: k / targets predictions;
inner numpy Inner:  / x1 x2;
inv linalg Inv:  / x;
irfft math IRFFT: fft_length / x;
isclose numpy Isclose: equal_nan / x1 x2 rtol atol;
isfinite numpy Isfinite:  / x;
isin numpy IsIn: assume_unique invert / x1 x2;
isinf numpy Isinf:  / x;
isnan numpy Isnan:  / x;
isneginf numpy Isneginf:  / x;
isposinf numpy Isposinf:  / x;
isreal numpy Isreal:  / x;
istft math ISTFT: sequence_length sequence_stride fft_length length window center / x;
kron numpy Kron:  / x1 x2;
lcm numpy Lcm:  / x1 x2;
ldexp numpy Ldexp:  / x1 x2;
leaky_relu nn LeakyRelu: negative_slope / x;
left_shift numpy LeftShift:  / x y;
less numpy Less:  / x1 x2;
less_equal numpy LessEqual:  / x1 x2;
linspace numpy Linspace: num endpoint retstep dtype axis / start stop;
log numpy Log:  / x;
log10 numpy Log10:  / x;
log1p numpy Log1p:  / x;
log2 numpy Log2:  / x;
log_sigmoid nn LogSigmoid:  / x;
log_softmax nn LogSoftmax: axis / x;
logaddexp numpy Logaddexp:  / x1 x2;
logaddexp2 numpy Logaddexp2:  / x1 x2;
logdet math Logdet:  / x;
logical_and numpy LogicalAnd:  / x1 x2;
logical_not numpy LogicalNot:  / x;
logical_or numpy LogicalOr:  / x1 x2;
logical_xor numpy LogicalXor:  / x1 x2;
logspace numpy Logspace: num endpoint base dtype axis / start stop;
logsumexp math Logsumexp: axis keepdims / x;
lstsq linalg Lstsq: rcond / a b;
lu_factor linalg LuFactor:  / x;
matmul numpy Matmul:  / x1 x2;
matrix_rank linalg MatrixRank: tol / x;
max numpy Max: axis keepdims initial / x;
max_pool nn MaxPool: pool_size strides padding data_format / inputs;
maximum numpy Maximum:  / x1 x2;
mean numpy Mean: axis keepdims / x;
median numpy Median: axis keepdims / x;
meshgrid numpy Meshgrid: indexing / *x;
min numpy Min: axis keepdims initial / x;
minimum numpy Minimum:  / x1 x2;
mod numpy Mod:  / x1 x2;
moments nn Moments: axes keepdims synchronized / x;
moveaxis numpy Moveaxis: source destination / x;
multi_hot nn MultiHot: num_classes axis dtype sparse / inputs;
multiply numpy Multiply:  / x1 x2;
nan_to_num numpy NanToNum: nan posinf neginf / x;
nanargmax numpy Nanargmax: axis keepdims / x;
nanargmin numpy Nanargmin: axis keepdims / x;
nancumprod numpy Nancumprod: axis dtype / x;
nancumsum numpy Nancumsum: axis dtype / x;
nanmax numpy Nanmax: axis keepdims / x;
nanmean numpy Nanmean: axis keepdims / x;
nanmedian numpy Nanmedian: axis keepdims / x;
nanmin numpy Nanmin: axis keepdims / x;
nanpercentile numpy Nanpercentile: axis method keepdims / x q;
nanprod numpy Nanprod: axis keepdims / x;
nanquantile numpy Nanquantile: axis method keepdims / x q;
nanstd numpy Nanstd: axis keepdims / x;
nansum numpy Nansum: axis keepdims / x;
nanvar numpy Nanvar: axis keepdims / x;
ndim numpy Ndim:  / x;
negative numpy Negative:  / x;
nextafter numpy Nextafter:  / x1 x2;
nonzero numpy Nonzero:  / x;
norm linalg Norm: ord axis keepdims / x;
normalize nn Normalize: axis order epsilon / x;
not_equal numpy NotEqual:  / x1 x2;
one_hot nn OneHot: num_classes axis dtype sparse / x;
ones_like numpy OnesLike: dtype / x;
outer numpy Outer:  / x1 x2;
pad numpy Pad: pad_width mode / x constant_values=;
percentile numpy Percentile: axis method keepdims / x q;
pinv linalg Pinv: rcond / x;
polar nn Polar:  / abs_ angle;
power numpy Power:  / x1 x2;
prod numpy Prod: axis keepdims dtype / x;
psnr nn PSNR: max_val / x1 x2;
ptp numpy Ptp: axis keepdims / x;
qr linalg Qr: mode / x;
quantile numpy Quantile: axis method keepdims / x q;
rad2deg numpy Rad2deg:  / x;
ravel numpy Ravel:  / x;
real numpy Real:  / x;
reciprocal numpy Reciprocal:  / x;
relu nn Relu:  / x;
relu6 nn Relu6:  / x;
repeat numpy Repeat: repeats axis / x;
reshape numpy Reshape: newshape / x;
rfft math RFFT: fft_length / x;
right_shift numpy RightShift:  / x y;
roll numpy Roll: shift axis / x;
rot90 numpy Rot90: k axes / array;
round numpy Round: decimals / x;
rsqrt math Rsqrt:  / x;
saturate_cast core SaturateCast: dtype / x;
scatter core Scatter: shape / indices values;
scatter_update core ScatterUpdate: reduction / inputs indices updates;
searchsorted numpy SearchSorted: side / sorted_sequence values;
segment_max math SegmentMax: num_segments sorted / data segment_ids;
segment_min math SegmentMin: num_segments sorted / data segment_ids;
segment_prod math SegmentProd: num_segments sorted / data segment_ids;
segment_sum math SegmentSum: num_segments sorted / data segment_ids;
select numpy Select:  / condlist choicelist default;
selu nn Selu:  / x;
separable_conv nn SeparableConv: strides padding data_format dilation_rate / inputs
    depthwise_kernel pointwise_kernel;
sigmoid nn Sigmoid:  / x;
sign numpy Sign:  / x;
signbit numpy Signbit:  / x;
silu nn Silu:  / x;
sin numpy Sin:  / x;
sinc numpy Sinc:  / x;
sinh numpy Sinh:  / x;
size numpy Size:  / x;
slice core Slice: shape / inputs start_indices;
slice_update core SliceUpdate:  / inputs start_indices updates;
slogdet numpy Slogdet:  / x;
soft_shrink nn SoftShrink: threshold / x;
softmax nn Softmax: axis / x;
softplus nn Softplus:  / x;
softsign nn Softsign:  / x;
solve linalg Solve:  / a b;
solve_triangular linalg SolveTriangular: lower / a b;
sort numpy Sort: axis / x;
space_to_depth nn SpaceToDepth: block_size data_format / x;
sparse_categorical_crossentropy nn SparseCategoricalCrossentropy: from_logits axis / target
    output;
sparse_plus nn SparsePlus:  / x;
sparse_sigmoid nn SparseSigmoid:  / x;
sparsemax nn Sparsemax: axis / x;
split numpy Split: indices_or_sections axis / x;
sqrt numpy Sqrt:  / x;
square numpy Square:  / x;
squareplus nn Squareplus: b / x;
squeeze numpy Squeeze: axis / x;
stack numpy Stack: axis / x;
std numpy Std: axis keepdims / x;
stft math STFT: sequence_length sequence_stride fft_length window center / x;
stop_gradient core StopGradient:  / variable;
subtract numpy Subtract:  / x1 x2;
sum numpy Sum: axis keepdims / x;
svd linalg SVD: full_matrices compute_uv / x;
swapaxes numpy Swapaxes: axis1 axis2 / x;
take numpy Take: axis / x indices;
take_along_axis numpy TakeAlongAxis: axis / x indices;
tan numpy Tan:  / x;
tanh numpy Tanh:  / x;
tanh_shrink nn TanhShrink:  / x;
tensordot numpy Tensordot: axes / x1 x2;
threshold nn Threshold: threshold default_value / x;
tile numpy Tile: repeats / x;
top_k math TopK: k sorted / x;
trace numpy Trace: offset axis1 axis2 / x;
transpose numpy Transpose: axes / x;
trapezoid numpy Trapezoid: x dx axis / y;
tril numpy Tril: k / x;
triu numpy Triu: k / x;
true_divide numpy TrueDivide:  / x1 x2;
trunc numpy Trunc:  / x;
unfold nn Unfold: kernel_size dilation padding stride / x;
unique numpy Unique: sorted return_index return_inverse return_counts axis size fill_value / x;
unravel_index numpy UnravelIndex: shape / indices;
unstack core Unstack: num axis / x;
vander numpy Vander: N increasing / x;
var numpy Var: axis keepdims / x;
vdot numpy Vdot:  / x1 x2;
view numpy View: dtype / x;
view_as_complex math ViewAsComplex:  / x;
view_as_real math ViewAsReal:  / x;
vsplit numpy Vsplit: indices_or_sections / x;
vstack numpy Vstack:  / xs;
where numpy Where:  / condition x1 x2;
zeros_like numpy ZerosLike: dtype / x;

"""


class OpClass(NamedTuple):
    """A Keras operation class: the ``keras.ops`` function making it, ``module``, its name,
    its constructor's parameters (saved in the config) and its call's (the node's args; a
    ``*`` marks a variadic one, a ``=`` one passed by name: the node's kwargs)."""
    function: str
    module: str
    class_name: str
    init: tuple
    call: tuple


def _parse(text):
    table = {}
    for record in filter(None, (r.strip() for r in text.split(";"))):
        head, _, params = record.partition(":")
        function, group, class_name = head.split()
        init, _, call = params.partition("/")
        table[function] = OpClass(function, f"keras.src.ops.{group}", class_name,
                                  tuple(init.split()), tuple(call.split()))
    return table


KERAS_OPS = _parse(_TABLE)
BY_CLASS = {(c.module, c.class_name): c for c in KERAS_OPS.values()}
_FINEGRAD_MODULES = {"image": "finegrad.ops.image"}   # other groups: finegrad.ops


def _config_value(value):
    """A constructor argument as Keras's config holds it (tuples as lists, dtypes by name)."""
    if isinstance(value, (list, tuple)):
        return [_config_value(v) for v in value]
    if isinstance(value, dtypes.DType):
        return value.name
    if isinstance(value, np.dtype) or (isinstance(value, type) and
                                       issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return value.item()
    return value


def _finegrad_function(spec):
    group = spec.module.rpartition(".")[2]
    module = importlib.import_module(_FINEGRAD_MODULES.get(group, "finegrad.ops"))
    return getattr(module, spec.function.removeprefix("image_"))


def _replay(spec, config):
    """The node's function: ``finegrad.ops.<function>`` of the call's arguments and the
    constructor's, on finegrad's own backend (the model runs on finegrad tensors)."""
    names = [p.rstrip("=") for p in spec.call if not p.startswith("*")]
    variadic = len(names) < len(spec.call)

    def run(*args: Any, **kwargs: Any) -> Any:
        fn = _finegrad_function(spec)
        values = {**config, **kwargs}
        ops = importlib.import_module("finegrad.ops")
        with ops.backend_scope("finegrad"):
            if not variadic:
                return fn(**dict(zip(names, args, strict=False)), **values)
            # einsum(subscripts, *operands), meshgrid(*x, indexing=...)
            params = inspect.signature(fn).parameters.values()
            leading = [values.pop(p.name) for p in params
                       if p.kind is p.POSITIONAL_OR_KEYWORD and p.name in values]
            return fn(*leading, *args, **values)
    return run


def operation(spec, config, name=None):
    """An `Operation` node running ``spec``'s function with the constructor arguments
    ``config``, saved as Keras saves an instance of ``spec``'s class; named ``name`` (as
    read from a config), else Keras's automatic name (``sum``, ``sum_1``...)."""
    config = {k: v for k, v in config.items() if k != "name"}
    op = Operation(_replay(spec, config), name or naming.to_snake_case(spec.class_name),
                   unique=name is None)
    op.keras_class = (spec.module, spec.class_name,
                      {"name": op.name, **{k: _config_value(v) for k, v in config.items()}})
    return op


def record(function, by_name, varargs=()):
    """``(operation, args, kwargs)`` for the ops call ``function`` whose arguments are
    ``by_name`` (and ``varargs`` for a variadic one): the constructor's arguments split from
    the call's, as Keras splits them; None when Keras has no class for it or its
    constructor would receive a symbolic tensor (then the node cannot be saved)."""
    spec = KERAS_OPS.get(function)
    if spec is None or set(by_name) - set(spec.init) - {p.strip("*=") for p in spec.call}:
        return None
    config = {p: by_name[p] for p in spec.init if p in by_name}
    if any(_is_symbolic(v) for v in config.values()):
        return None
    args, kwargs, gap = [], {}, False
    for p in spec.call:
        name = p.strip("*=")
        if p.startswith("*"):
            args.extend(varargs)
        elif name not in by_name:
            gap = True
        elif gap or p.endswith("="):   # by name as Keras passes it, or after a missing one
            kwargs[name] = by_name[name]
        else:
            args.append(by_name[name])
    return operation(spec, config), args, kwargs


def _is_symbolic(value):
    return any(isinstance(x, KerasTensor) for x in flatten(value))

"""The gradient of a plain slice under ``function(jit_compile=True)``: its scatter into zeros
(``scatter_add_into_zeros``, and the compiled graph's ``scatter_sum_into_zeros``) lowers to
``lax.pad`` (interior padding for a slice's step), which XLA fuses, or, where the slices tile
an axis (``x[0::2]``, ``x[1::2]``), to one interleave; other indices (arrays, negative steps,
new axes) still scatter. Values against NumPy's ``z[idx] = ct``."""
import numpy as np
import pytest

import finegrad as fg
from finegrad._src.graph.compile.graph_ops import scatter_sum_p
from finegrad._src.ops.array.indexing import _Index, scatter_add_p
from finegrad._src.ops.lowering import interleave, pad_into_zeros
from test_graph_rewrite import rosenbrock_hvp

jax = pytest.importorskip("jax")

PLAIN = [((10,), (slice(1, None, 2),)), ((10,), (slice(0, None, 2),)),
         ((7, 5), (slice(1, 6, 3), 2)), ((7, 5), (-1,)), ((9,), (slice(-3, None),)),
         ((4, 5, 6), (Ellipsis, slice(None, None, 4))), ((9,), (slice(None, 100, 5),)),
         ((4, 5, 6), (1, Ellipsis, slice(2, -1))), ((3, 4), (np.int64(1),))]
OTHER = [(slice(None, None, -1),), (None,), (np.array([1, 2]),), (slice(3, 3),), (True,),
         (Ellipsis, Ellipsis)]


# JAX's float64 (as the compiled functions use), restored after each test
pytestmark = pytest.mark.usefixtures("jax64")


@pytest.mark.parametrize("shape, idx", PLAIN)
def test_pad_into_zeros_writes_the_slice_as_numpy(shape, idx):
    z = np.zeros(shape)
    ct = np.random.default_rng(0).standard_normal(z[idx].shape)
    z[idx] = ct
    got = np.asarray(pad_into_zeros(ct, shape, idx))
    assert got.dtype == np.float64 and got.shape == shape
    np.testing.assert_array_equal(got, z)


@pytest.mark.parametrize("idx", OTHER)
def test_pad_into_zeros_declines_other_indices(idx):
    assert pad_into_zeros(np.zeros(3), (10,), idx) is None


def _jaxpr(fn, *args):
    return str(jax.make_jaxpr(fn)(*args))


def test_scatter_add_lowers_a_plain_slice_to_pad_and_an_array_index_to_scatter():
    ct = np.arange(1., 6.)
    plain = _Index((slice(1, None, 2),))
    low = scatter_add_p.lower_jax
    src = _jaxpr(lambda c: low(c, shape=(10,), index=plain), ct)
    assert "pad[" in src and "scatter" not in src
    np.testing.assert_array_equal(np.asarray(low(ct, shape=(10,), index=plain)),
                                  scatter_add_p.impl(ct, shape=(10,), index=plain))
    fancy = _Index((np.array([0, 0, 3, 4, 9]),))
    assert "scatter" in _jaxpr(lambda c: low(c, shape=(10,), index=fancy), ct)
    np.testing.assert_array_equal(np.asarray(low(ct, shape=(10,), index=fancy)),
                                  scatter_add_p.impl(ct, shape=(10,), index=fancy))


def test_scatter_sum_adds_overlapping_pads_and_scatters_the_rest():
    rng = np.random.default_rng(1)
    indices = (_Index((slice(1, None),)), _Index((slice(None, -1),)),
               _Index((slice(0, None, 3),)), _Index((np.array([2, 2, 5]),)))
    cts = [rng.standard_normal(n) for n in (7, 7, 3, 3)]
    low = scatter_sum_p.lower_jax
    src = _jaxpr(lambda *c: low(*c, shape=(8,), indices=indices), *cts)
    assert src.count("pad[") == 3 and src.count("scatter-add") == 1
    np.testing.assert_allclose(np.asarray(low(*cts, shape=(8,), indices=indices)),
                               scatter_sum_p.impl(*cts, shape=(8,), indices=indices),
                               rtol=1e-15)


def _hvp(x, v):
    with fg.GradientTape() as outer:
        outer.watch(x)
        with fg.GradientTape() as inner:
            inner.watch(x)
            y = fg.reduce_sum(100. * (x[1::2] - x[0::2] ** 2) ** 2 + (1. - x[0::2]) ** 2)
        g = inner.gradient(y, x)
    return outer.gradient(g, x, output_gradients=v)


def test_rosenbrock_hvp_compiles_without_scatters_and_matches_the_executor():
    rng = np.random.default_rng(2)
    x, v = fg.constant(rng.standard_normal(10)), fg.constant(rng.standard_normal(10))
    compiled = fg.function(_hvp, jit_compile=True)
    got, want = compiled(x, v).numpy(), fg.function(_hvp)(x, v).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    xn, vn = x.numpy(), v.numpy()   # the closed form: the Hessian of Rosenbrock's pairs
    a, b = xn[0::2], xn[1::2]
    h = np.zeros((10, 10))
    for k in range(5):
        i, j = 2 * k, 2 * k + 1
        h[i, i] = 1200. * a[k] ** 2 - 400. * b[k] + 2.
        h[i, j] = h[j, i] = -400. * a[k]
        h[j, j] = 200.
    np.testing.assert_allclose(got, h @ vn, rtol=1e-12)
    src = compiled.get_concrete_function(x, v).compiled_source
    assert "scatter" not in src and "host callbacks: none" in src


def test_forward_over_reverse_hvp_interleaves_the_slices_cotangents():
    """x[0::2] and x[1::2] tile x: their cotangents' sum is one interleave (no pads, whose
    fused loop tests every element twice)."""
    rng = np.random.default_rng(4)
    x, v = fg.constant(rng.standard_normal(10)), fg.constant(rng.standard_normal(10))
    compiled = fg.function(rosenbrock_hvp, jit_compile=True)
    np.testing.assert_allclose(compiled(x, v).numpy(),
                               fg.function(rosenbrock_hvp)(x, v).numpy(),
                               rtol=1e-12, atol=1e-12)
    src = compiled.get_concrete_function(x, v).compiled_source
    assert "pad[" not in src and "stack[axis=1]" in src and "scatter" not in src


WOVEN = [((10,), [(slice(0, None, 2),), (slice(1, None, 2),)]),
         ((9,), [(slice(2, None, 3),), (slice(0, None, 3),), (slice(1, 9, 3),)]),
         ((4, 6), [(slice(None), slice(1, None, 2)), (Ellipsis, slice(0, 5, 2))]),
         ((6, 3), [(slice(0, None, 2),), (slice(1, None, 2), slice(None))])]
NOT_WOVEN = [((10,), [(slice(0, None, 2),), (slice(1, 9, 2),)]),      # 9 not reached
             ((9,), [(slice(0, None, 2),), (slice(1, None, 2),)]),     # 9 odd
             ((4, 6), [(slice(0, 2),), (slice(2, 4),)]),               # blocks, not steps
             ((4, 6), [(slice(0, None, 2), slice(0, 3)), (slice(1, None, 2), slice(3, 6))])]


@pytest.mark.parametrize("shape, idxs", WOVEN + NOT_WOVEN)
def test_slices_that_tile_an_axis_interleave(shape, idxs):
    rng = np.random.default_rng(3)
    z = np.zeros(shape)
    cts = [rng.standard_normal(z[i].shape) for i in idxs]
    for ct, i in zip(cts, idxs, strict=True):
        z[i] = ct
    got = interleave(cts, shape, idxs)
    if (shape, idxs) in NOT_WOVEN:
        assert got is None
    else:
        np.testing.assert_array_equal(np.asarray(got), z)

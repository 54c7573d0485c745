"""Ops along a ``None`` dimension of a placeholder that once kept the size the graph was built
with: one graph fed several sizes gives TensorFlow's values and gradients (compared live), and
TensorFlow's errors where a fed size does not fit."""
import numpy as np
import pytest

import finegrad as fg


def _run(lib, build, feeds, shape=(None, 3), order=1):
    """Values of ``build(lib, x)`` and the gradients of ``sum(sin(.))`` of them (and their
    gradients' sums' gradients for ``order`` 2), for each of ``feeds`` to one graph."""
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        x = v1.placeholder(lib.float64, list(shape))
        y = build(lib, x)
        fetch = [y]
        g = v1.gradients(sum(lib.reduce_sum(lib.sin(t)) for t in lib.nest.flatten(y)), [x])[0]
        fetch.append(g)
        if order == 2:
            fetch.append(v1.gradients(lib.reduce_sum(g * g), [x])[0])
        with v1.Session() as sess:
            return [sess.run(fetch, {x: f}) for f in feeds]


def _compare(build, feeds, **kw):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _run(fg, build, feeds, **kw), _run(tf, build, feeds, **kw)
    for a, b in zip(fg.nest.flatten(ours), fg.nest.flatten(theirs), strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    return ours


def _feeds(*sizes, cols=3):
    return [np.linspace(-1.5, 2., n * cols).reshape(n, cols) for n in sizes]


PADS = {
    "reflect": lambda lib, x: lib.pad(x, [[3, 4], [1, 2]], mode="REFLECT"),
    "symmetric": lambda lib, x: lib.pad(x, [[5, 2], [0, 3]], mode="SYMMETRIC"),
    "reflect_inner_axis": lambda lib, x: lib.pad(lib.transpose(x), [[1, 1], [4, 2]],
                                                 mode="REFLECT"),
    "symmetric_inner_axis": lambda lib, x: lib.pad(lib.transpose(x), [[0, 2], [3, 6]],
                                                   mode="SYMMETRIC"),
}


@pytest.mark.parametrize("case", sorted(PADS))
def test_mirror_pad_larger_than_the_built_size(case):
    _compare(PADS[case], _feeds(7, 9, 6))


@pytest.mark.parametrize("case", sorted(PADS))
def test_mirror_pad_too_large_for_the_fed_size_is_invalid_argument(case):
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None, 3])
        y = PADS[case](fg, x)
        with v1.Session() as sess:
            assert sess.run(y, {x: _feeds(7)[0]}).size
            with pytest.raises(fg.errors.InvalidArgumentError):
                sess.run(y, {x: _feeds(3)[0]})


def test_unstack_along_an_open_axis_needs_num():
    tf = pytest.importorskip("tensorflow")
    for lib in (fg, tf):
        with lib.Graph().as_default():
            x = lib.compat.v1.placeholder(lib.float64, [None, 3])
            with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape "
                                                 r"\(None, 3\)"):
                lib.unstack(x)


def _stack_back(lib, parts):
    return lib.stack([p * (k + 1.) for k, p in enumerate(parts)], axis=1)


OPEN_OPS = {
    "unstack": (lambda lib, x: _stack_back(lib, lib.unstack(x, num=4)), (4, 4)),
    "unstack_inner": (lambda lib, x: _stack_back(lib, lib.unstack(lib.transpose(x), num=5,
                                                                  axis=1)), (5, 5)),
    "repeat_counts": (lambda lib, x: lib.repeat(x, [2, 0, 3, 1], axis=0), (4, 4, 5)),
    "repeat_counts_inner": (lambda lib, x: lib.repeat(x, [1, 0, 2], axis=1), (3, 6, 0)),
    "boolean_mask_fixed_mask": (lambda lib, x: lib.boolean_mask(
        x * 2., np.array([True, False, True, True])), (4, 6, 5)),
    "boolean_mask_fixed_mask_2d": (lambda lib, x: lib.boolean_mask(
        x, np.arange(12).reshape(4, 3) % 3 != 1), (4, 7)),
    "boolean_mask_fixed_inner": (lambda lib, x: lib.boolean_mask(
        x, [True, False, True], axis=1), (4, 0, 6)),
}


@pytest.mark.parametrize("case", sorted(OPEN_OPS))
def test_open_axis_ops_serve_each_fed_size(case):
    build, sizes = OPEN_OPS[case]
    _compare(build, _feeds(*sizes))


@pytest.mark.parametrize("case", ["unstack", "unstack_inner", "repeat_counts",
                                  "boolean_mask_fixed_mask", "boolean_mask_fixed_mask_2d"])
def test_a_size_the_op_cannot_take_is_invalid_argument(case):
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None, 3])
        y = OPEN_OPS[case][0](fg, x)
        with v1.Session() as sess:
            sess.run(y, {x: _feeds(OPEN_OPS[case][1][0])[0]})
            with pytest.raises(fg.errors.InvalidArgumentError):
                sess.run(y, {x: _feeds(2)[0]})


def _meshgrid_run(lib, indexing, feeds):
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        a = v1.placeholder(lib.float64, [None])
        b = v1.placeholder(lib.float64, [None])
        c = lib.constant([0.5, -1., 2.], lib.float64)
        grids = lib.meshgrid(a, c, lib.sin(b), indexing=indexing)
        loss = sum(lib.reduce_sum(lib.sin(g * (k + 1.))) for k, g in enumerate(grids))
        grads = v1.gradients(loss, [a, b])
        with v1.Session() as sess:
            return [sess.run([grids, grads], {a: fa, b: fb}) for fa, fb in feeds]


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_of_open_sizes(indexing):
    tf = pytest.importorskip("tensorflow")
    feeds = [(np.linspace(-1, 1, n), np.linspace(0, 2, m)) for n, m in ((4, 5), (2, 7), (0, 3))]
    ours, theirs = _meshgrid_run(fg, indexing, feeds), _meshgrid_run(tf, indexing, feeds)
    for a, b in zip(fg.nest.flatten(ours), fg.nest.flatten(theirs), strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


PRODUCTS = {
    "reduce_prod_open_axis": lambda lib, x: lib.reduce_prod(x, 0),
    "reduce_prod_all": lambda lib, x: lib.reduce_prod(x),
    "reduce_prod_fixed_axis": lambda lib, x: lib.reduce_prod(x, 1, keepdims=True),
    "cumprod": lambda lib, x: lib.math.cumprod(x, 0),
    "cumprod_exclusive_reverse": lambda lib, x: lib.math.cumprod(x, 0, exclusive=True,
                                                                 reverse=True),
    "cumprod_exclusive": lambda lib, x: lib.math.cumprod(x * 0.5, 0, exclusive=True),
    "cumsum_exclusive": lambda lib, x: lib.math.cumsum(lib.sin(x), 0, exclusive=True),
}


@pytest.mark.parametrize("case", sorted(PRODUCTS))
def test_second_derivatives_of_products_along_an_open_axis(case):
    feeds = [np.linspace(0.5, 1.5, 3 * n).reshape(n, 3) for n in (4, 6, 3)]
    _compare(PRODUCTS[case], feeds, order=2)


@pytest.mark.parametrize("case", ["reduce_prod_open_axis", "reduce_prod_all"])
def test_reduce_prod_derivatives_with_zeros_and_zero_rows(case):
    feeds = [np.array([[0., 2., 3.], [1., 0., 0.5], [2., 0., 4.]]), np.zeros((0, 3)),
             np.linspace(-1., 1.5, 15).reshape(5, 3)]
    _compare(PRODUCTS[case], feeds, order=2)


def _py_run(lib, feeds):
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        x = v1.placeholder(lib.float64, [None, 3])
        y = lib.numpy_function(lambda a: np.concatenate([a, a[:1]]) * 2., [x], lib.float64)
        z = v1.py_func(lambda a: (a.sum(1), np.arange(a.shape[0] * 2.)), [x],
                       [lib.float64, lib.float64])
        w = lib.py_function(lambda a: a[:, :2] * 3., [x], lib.float64)
        static = [y.shape.as_list() if y.shape.rank is not None else None]
        s = lib.reduce_sum(y) + lib.reduce_sum(z[0]) * lib.reduce_sum(z[1]) + lib.reduce_sum(w)
        g = lib.gradients(lib.reduce_sum(w * x[:, 1:]), [x])[0]
        with v1.Session() as sess:
            return static, [sess.run([y, z, w, s, g], {x: f}) for f in feeds]


def test_py_func_results_of_open_sizes():
    tf = pytest.importorskip("tensorflow")
    feeds = _feeds(4, 6, 0, 4)
    (static, ours), (tf_static, theirs) = _py_run(fg, feeds), _py_run(tf, feeds)
    assert static == tf_static == [None]   # unknown shape (any rank), as TensorFlow's
    for a, b in zip(fg.nest.flatten(ours), fg.nest.flatten(theirs), strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_py_func_results_whose_size_changes_for_one_fed_size():
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None])
        y = fg.numpy_function(lambda a: a[a > 0], [x], fg.float64)
        m = fg.reduce_mean(y) * fg.cast(fg.shape(y)[0], fg.float64)
        with v1.Session() as sess:
            for f in ([1., -2., 3.], [1., 2., 3.], [-1., -2., 3.], [1., 2.]):
                f = np.array(f)
                np.testing.assert_allclose(sess.run(m, {x: f}), f[f > 0].sum())


def test_whole_axis_strided_slices_serve_every_size_including_zero():
    # x[::2] and x[::-3] over an open axis decide nothing about its size (no guard)
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float64, [None, 3])
        y, z = x[::2] * 2., x[::-3]
        (g,) = v1.gradients(fg.reduce_sum(y) + fg.reduce_sum(z), [x])
        with v1.Session() as sess:
            for n in (5, 4, 0, 7):
                f = np.arange(3. * n).reshape(n, 3)
                a, b, c = sess.run([y, z, g], {x: f})
                np.testing.assert_array_equal(a, f[::2] * 2)
                np.testing.assert_array_equal(b, f[::-3])
                expected = np.zeros_like(f)
                expected[::2] += 2
                expected[::-3] += 1
                np.testing.assert_array_equal(c, expected)

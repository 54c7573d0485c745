"""Ops whose output shape depends on input values (unique, one-argument where,
boolean_mask, bincount, ...) and values used as static arguments (range bounds, shapes,
depths): eagerly, in finegrad.function (with and without None dimensions) and in TF1 graphs,
each gives the value for the input it is given, or a clear error; never the value of the
trace's (or a placeholder's made-up) input."""
import warnings

import numpy as np
import pytest

import finegrad as fg

v1 = fg.compat.v1

A = np.array([1., 1., 3., -2., 3.], np.float32)
B = np.array([5., -1., 7., 7., 0.], np.float32)
C = np.array([4., 2.], np.float32)

VALUE_SIZED = {
    "unique": lambda x: fg.unique(x)[0],
    "unique_idx": lambda x: fg.unique(x)[1],
    "unique_with_counts": lambda x: fg.unique_with_counts(x)[2],
    "where": lambda x: fg.where(x > 0),
    "boolean_mask": lambda x: fg.boolean_mask(x, x > 0),
    "sum_of_unique": lambda x: fg.reduce_sum(fg.unique(x)[0]),
    "size_of_unique": lambda x: fg.size(fg.unique(x)[0]),
    "mean_of_mask": lambda x: fg.reduce_mean(fg.boolean_mask(x, x > 0)),
    "bincount": lambda x: fg.math.bincount(fg.cast(fg.abs(x), fg.int32)),
}


def _eager(fn, v):
    return fn(fg.constant(v)).numpy().tolist()


@pytest.mark.parametrize("name", sorted(VALUE_SIZED))
@pytest.mark.parametrize("signature", [None, [fg.TensorSpec([None], fg.float32)],
                                       [fg.TensorSpec([5], fg.float32)]],
                         ids=["no_signature", "none_dim", "fixed_dim"])
def test_function_gives_each_calls_value(name, signature):
    fn = VALUE_SIZED[name]
    f = fg.function(fn, input_signature=signature)
    inputs = (A, B, A, B) if signature and signature[0].shape == (5,) else (A, B, C, A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # retrace warnings under a None signature
        for v in inputs:
            assert f(fg.constant(v)).numpy().tolist() == _eager(fn, v)


def test_eager_values_match_numpy():
    y, idx = fg.unique(fg.constant(B))
    assert y.numpy().tolist() == [5., -1., 7., 0.]
    assert idx.numpy().tolist() == [0, 1, 2, 2, 3]
    c = np.array([[True, False, True], [False, True, True]])
    assert fg.where(c).numpy().tolist() == np.argwhere(c).tolist()
    assert fg.where(c).dtype == fg.int64


@pytest.mark.parametrize("cond", [np.array(True), np.array(False), np.zeros((2, 0), bool),
                                  np.array([[1, 0, 1], [0, 1, 1]], bool),
                                  np.ones((2, 2, 2), bool)],
                         ids=["true", "false", "empty", "2d", "3d"])
def test_where_coordinates_traced(cond):
    f = fg.function(lambda c: fg.where(c))
    r = f(fg.constant(cond))
    assert r.shape == np.argwhere(cond).shape
    assert r.numpy().tolist() == np.argwhere(cond).tolist()


def test_where_coordinates_none_dims_follow_each_call():
    f = fg.function(lambda c: fg.where(c), input_signature=[fg.TensorSpec([None, None], fg.bool)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in (np.array([[1, 0, 1], [0, 1, 1]], bool), np.array([[0, 0, 1, 1], [1, 1, 1, 1]],
                                                                  bool),
                  np.array([[1, 1], [0, 1], [1, 1]], bool)):
            assert f(fg.constant(c)).numpy().tolist() == np.argwhere(c).tolist()


def test_where_coordinates_under_a_tape():
    x = fg.constant([1., -1., 2.])
    with fg.GradientTape() as tape:
        tape.watch(x)
        y = fg.reduce_sum(fg.gather(x, fg.where(x > 0)[:, 0]))
    assert fg.convert_to_tensor(tape.gradient(y, x)).numpy().tolist() == [1., 0., 1.]


# --- TF1 graphs: a placeholder's value is only known when a Session runs --------------------

STATIC_USES = {
    "range": lambda n, iv: fg.range(n),
    "zeros": lambda n, iv: fg.zeros([n, 2]),
    "fill": lambda n, iv: fg.fill([n], 1.),
    "one_hot_depth": lambda n, iv: fg.one_hot(iv, n),
    "eye": lambda n, iv: fg.eye(n),
    "tile": lambda n, iv: fg.tile([1, 2], [n]),
    "slice": lambda n, iv: fg.range(10)[:n],
    "linspace": lambda n, iv: fg.linspace(0., 1., n),
    "axis": lambda n, iv: fg.reduce_sum(fg.ones([2, 3]), axis=n),
    "bincount": lambda n, iv: fg.math.bincount(iv),
    "confusion_matrix": lambda n, iv: fg.math.confusion_matrix(iv, iv),
    "unique": lambda n, iv: fg.unique(iv)[0],
    "unique_with_counts": lambda n, iv: fg.unique_with_counts(iv)[2],
    "shape_of_placeholder": lambda n, iv: fg.zeros([fg.shape(iv)[0], 2]),
}


@pytest.mark.parametrize("name", sorted(STATIC_USES))
def test_tf1_static_argument_from_a_placeholder_is_checked_by_each_run(name):
    """These used to run with the placeholder's made-up value (0, or zeros) whatever was fed:
    ``range(n)`` gave [] for n=1. TensorFlow computes them at run time; finegrad's TF1
    graphs keep the value the graph was built with and raise for a run that feeds another
    (main's value guards, tests/test_v1_open_sizes.py)."""
    with fg.Graph().as_default():
        n = v1.placeholder(fg.int32, [])
        iv = v1.placeholder(fg.int32, [None])
        y = STATIC_USES[name](n, iv)
        with v1.Session() as s, pytest.raises(fg.errors.InvalidArgumentError,
                                              match="Session.run: .*traced as"):
            s.run(y, {n: 1, iv: [0, 3, 3]})


def test_tf1_static_argument_from_a_variable_is_checked_by_each_run():
    with fg.Graph().as_default():
        v = fg.Variable(3)
        r = fg.range(v + 1)
        step = v.assign_add(1)
        with v1.Session() as s:
            s.run(v.initializer)
            assert s.run(r).tolist() == [0, 1, 2, 3]
            s.run(step)
            with pytest.raises(fg.errors.InvalidArgumentError, match="traced as 4"):
                s.run(r)


def test_tf1_static_argument_from_constants_still_works():
    with fg.Graph().as_default():
        r = fg.range(fg.constant(2) + 1)
        u = fg.unique(fg.constant([3, 1, 3]))[0]
        with v1.Session() as s:
            assert s.run(r).tolist() == [0, 1, 2]
            assert s.run(u).tolist() == [3, 1]


@pytest.mark.parametrize("make", [lambda x: fg.boolean_mask(x, x > 0),
                                  lambda x: fg.where(x > 0)], ids=["boolean_mask", "where"])
def test_tf1_value_sized_op_runs_or_raises(make):
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [5])
        y = make(x)
        with v1.Session() as s:
            # the placeholder's made-up value (zeros) selects nothing: the same count works
            assert s.run(y, {x: -np.ones(5)}).shape[0] == 0
            with pytest.raises(fg.errors.InvalidArgumentError, match="Session.run: "):
                s.run(y, {x: A})


def test_tf1_boolean_mask_on_a_none_dim_follows_each_run():
    # (main's open sizes: the mask's count is a symbol of its own)
    with fg.Graph().as_default():
        x = v1.placeholder(fg.float32, [None])
        y = fg.boolean_mask(x, x > 0)
        with v1.Session() as s:
            assert s.run(y, {x: A}).tolist() == [1., 1., 3., 3.]
            assert s.run(y, {x: C}).tolist() == [4., 2.]

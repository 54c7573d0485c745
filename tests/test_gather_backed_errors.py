"""Public functions that read rows with an internal gather_nd over an open (None) size
(unstack with num, REFLECT/SYMMETRIC pad, repeat, boolean_mask with a fixed mask, scan
without an initializer): a run whose size does not fit is TensorFlow's InvalidArgumentError,
and its message names the function the user called, never gather_nd."""

import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

V = fg.TensorSpec([None], fg.float32)


def _in_function(f, x):
    return fg.function(f, input_signature=[V])(fg.constant(x))


def _in_session(f, x):
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        p = v1.placeholder(fg.float32, [None])
        y = f(p)
        with v1.Session() as sess:
            return sess.run(y, {p: x})


CASES = [
    (lambda x: fg.unstack(x, num=2), [1., 2., 3.],
     "finegrad.unstack: axis 0 must have size num=2, got size 3"),
    (lambda x: fg.pad(x, [[4, 0]], mode="REFLECT"), [1., 2., 3.],
     "finegrad.pad: paddings must be less than the dimension size: 4, 0 not less than 3"),
    (lambda x: fg.pad(x, [[0, 4]], mode="SYMMETRIC"), [1., 2., 3.],
     "finegrad.pad: paddings must be no greater than the dimension size: 0, 4 greater "
     "than 3"),
    (lambda x: fg.repeat(x, [1, 2, 1], axis=0), [1., 2.],
     "finegrad.repeat: repeats has 3 entries but axis 0 has 2"),
    (lambda x: fg.boolean_mask(x, [False, True, True]), [1., 2.],
     "finegrad.boolean_mask: the mask selects position 2 of axis 0, of size 2"),
]


@pytest.mark.parametrize("run", [_in_function, _in_session])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_message_names_the_public_function(run, case):
    f, x, message = CASES[case]
    with pytest.raises(InvalidArgumentError) as info:
        run(f, np.array(x, np.float32))
    assert type(info.value) is InvalidArgumentError
    assert str(info.value) == message
    assert "gather_nd" not in str(info.value)


@pytest.mark.parametrize("run", [_in_function, _in_session])
def test_the_same_graphs_serve_sizes_that_fit(run):
    x = np.array([1., 2., 3.], np.float32)
    np.testing.assert_array_equal(run(lambda t: fg.stack(fg.unstack(t, num=3)), x), x)
    np.testing.assert_array_equal(run(lambda t: fg.pad(t, [[2, 0]], mode="REFLECT"), x),
                                  [3., 2., 1., 2., 3.])
    np.testing.assert_array_equal(run(lambda t: fg.boolean_mask(t, [False, True, True]), x),
                                  [2., 3.])


def test_scan_without_initializer_over_zero_slices_names_scan():
    f = fg.function(lambda x: fg.scan(lambda a, r: a + r, x), input_signature=[V])
    np.testing.assert_array_equal(f(fg.constant([1., 2., 3.])).numpy(), [1., 3., 6.])
    with pytest.raises(InvalidArgumentError) as info:
        f(fg.zeros([0]))
    assert type(info.value) is InvalidArgumentError
    assert str(info.value).startswith("finegrad.scan: elems has no slices along axis 0")


def test_tensorflow_raises_the_same_class():
    tf = pytest.importorskip("tensorflow")
    for f, x in [(lambda t: tf.unstack(t, num=2), [1., 2., 3.]),
                 (lambda t: tf.pad(t, [[4, 0]], mode="REFLECT"), [1., 2., 3.]),
                 (lambda t: tf.pad(t, [[0, 4]], mode="SYMMETRIC"), [1., 2., 3.])]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.function(f, input_signature=[tf.TensorSpec([None], tf.float32)])(
                tf.constant(x))


def test_batch_gather_matches_tensorflow_and_names_itself():
    p = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    i = np.array([[2, 0], [1, 1]])
    got = fg.compat.v1.batch_gather(p, i).numpy()
    np.testing.assert_array_equal(got, np.stack([p[0][[2, 0]], p[1][[1, 1]]]))
    with pytest.raises(fg.errors.InvalidArgumentError) as info:   # (TensorFlow's class)
        fg.compat.v1.batch_gather(p[:, :, 0], [[5, 0], [1, 1]])
    assert str(info.value) == ("finegrad.compat.v1.batch_gather: indices[0,0] = 5 is not in "
                               "[0, 3) (axis 1 of a tensor of shape (2, 3))")
    tf = pytest.importorskip("tensorflow")
    np.testing.assert_array_equal(got, tf.compat.v1.batch_gather(p, i).numpy())

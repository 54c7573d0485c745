"""TensorFlow's bit streams for ``random.shuffle``, ``categorical``/``multinomial``, ``gamma``
and ``poisson`` seeded in a TF1 graph (graph seed and op seeds, two runs of one session, so
the kernels' reservations are checked too), and for ``stateless_categorical``: the values
equal TensorFlow 2.21's, recorded below (``RECORDED``, from running `program` with
``import tensorflow as tf``) and compared live when TensorFlow is installed."""
import numpy as np
import pytest

import finegrad as fg

_LOGITS = np.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25], [1., 1e-3, 1.]])


def program(lib):
    """Two runs of one session over seeded random ops of a TF1 graph."""
    v1 = lib.compat.v1
    with lib.Graph().as_default():
        v1.set_random_seed(11)
        ops = [lib.random.shuffle(lib.reshape(lib.range(12), [4, 3]), seed=3),
               v1.random_shuffle(lib.range(7)),
               lib.random.categorical(lib.constant(_LOGITS, lib.float32), 5, seed=5),
               v1.multinomial(lib.constant(_LOGITS, lib.float64), 2, output_dtype=lib.int32),
               lib.random.gamma([3], [0.3, 1.0, 2.5], seed=2),
               v1.random_gamma([2], lib.constant([[0.7], [4.]], lib.float64), beta=[1., 2.],
                               dtype=lib.float64),
               lib.random.poisson([2], [0.5, 3., 12.5, 100.], seed=2),
               v1.random_poisson([2., 30.], [3], dtype=lib.int32, seed=9)]
        with v1.Session() as sess:
            return [sess.run(ops) for _ in range(2)]


def stateless(lib):
    logits = lib.constant(_LOGITS, lib.float32)
    return [lib.random.stateless_categorical(logits, 6, seed=[4, 2]),
            lib.random.stateless_categorical(logits, 3, seed=[-1, 7], dtype=lib.int32)]


# TensorFlow 2.21's values of `program` (runs 1 and 2) and `stateless`, recorded on Linux x86-64
RECORDED = [[[[0, 1, 2], [9, 10, 11], [3, 4, 5], [6, 7, 8]], [6, 5, 3, 4, 2, 0, 1],
             [[0, 2, 2, 2, 2], [0, 0, 1, 2, 0], [2, 2, 0, 2, 2]], [[2, 2], [0, 0], [0, 0]],
             [[0.41881120204925537, 1.7973029613494873, 1.0145705938339233],
              [0.042125724256038666, 0.2852005064487457, 1.2505825757980347],
              [0.5204818248748779, 1.786269187927246, 2.8499252796173096]],
             [[[1.174593222018084, 0.560505988789911], [3.6885193458915144, 1.0415626006420737]],
              [[0.22613546934338724, 0.05736286208732656],
               [5.054355073838644, 1.2127757281587142]]],
             [[1.0, 4.0, 10.0, 100.0], [1.0, 4.0, 16.0, 106.0]], [[2, 31], [2, 18], [5, 25]]],
            [[[6, 7, 8], [0, 1, 2], [3, 4, 5], [9, 10, 11]], [4, 3, 0, 6, 5, 2, 1],
             [[2, 2, 1, 1, 2], [0, 0, 1, 2, 1], [2, 2, 2, 2, 0]], [[1, 2], [0, 2], [0, 2]],
             [[0.6062702536582947, 0.7060309052467346, 0.7327664494514465],
              [0.14971299469470978, 1.9616308212280273, 3.005235195159912],
              [0.8161373138427734, 0.08935365825891495, 4.057778358459473]],
             [[[1.4928944673286995, 0.27049401875382395], [1.7313116884623279, 2.7681096621334436]],
              [[1.2454631585133145, 0.6964844246677969], [4.302716129983681, 0.8267997120813904]]],
             [[0.0, 5.0, 12.0, 83.0], [3.0, 5.0, 15.0, 96.0]], [[0, 23], [3, 36], [2, 35]]],
            [[[2, 2, 2, 2, 2, 2], [1, 1, 1, 1, 2, 1], [0, 2, 2, 0, 2, 0]],
             [[2, 2, 2], [2, 1, 2], [2, 2, 0]]]]


def _same(ours, theirs):
    for a, b in zip(ours, theirs, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_seeded_kernels_in_a_graph_give_tensorflows_values():
    runs = program(fg)
    for r, run in enumerate(runs):
        _same(run, [np.asarray(v, dtype=np.asarray(o).dtype)
                    for v, o in zip(RECORDED[r], run, strict=True)])


def test_stateless_categorical_gives_tensorflows_values():
    ours = stateless(fg)
    _same(ours, [np.asarray(v, dtype=np.asarray(o).dtype)
                 for v, o in zip(RECORDED[2], ours, strict=True)])


def test_live_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for ours, theirs in zip(program(fg), program(tf), strict=True):
        _same(ours, theirs)
    _same(stateless(fg), stateless(tf))

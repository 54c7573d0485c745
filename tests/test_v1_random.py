"""TF1 random seeds in graphs: set_random_seed, op seeds and the stateful kernels' bit streams.

RECORDED holds TensorFlow 2.21's values for tests/v1_seeds_case.py (tf.compat.v1 with eager
execution disabled): finegrad gives them bit for bit, normals and truncated normals included
(their float32 log, sin and cos are the C library's, as TensorFlow's kernel calls them)."""
import numpy as np
import pytest

import finegrad as tf

from v1_seeds_case import run

v1 = tf.compat.v1

RECORDED = {
    "u": [0.13047122955322266, 0.9760946035385132, 0.012220263481140137, 0.5802934169769287,
        0.8661562204360962],
    "n": [[-0.32364845275878906, 1.8577390909194946], [0.39556974172592163, 0.2311697006225586],
        [0.24243995547294617, -1.9485782384872437]],
    "t": [-1.9809215068817139, 1.0912599563598633, 0.5730576515197754, 0.18874049186706543,
        -1.9669559001922607, -1.9414023160934448, -1.082904577255249],
    "u2": [2.1881046295166016, -0.7601332664489746, 0.37998342514038086],
    "ui": [2, 9, 1, 0],
    "nd": [-0.9344590386794571, 1.1328291957469143, 0.872034688009344],
    "u_again": [0.018962860107421875, 0.9528031349182129, 0.655300498008728, 0.3036137819290161,
        0.7811299562454224],
    "w": [[0.04199576377868652, -0.5287691354751587], [-0.41715729236602783, -0.7244499325752258],
        [0.495768666267395, 0.013796329498291016]],
    "k": [0.029251938685774803, -0.04862524941563606, -0.04690093919634819, -0.01980731636285782],
    "u_new_session": [0.13047122955322266, 0.9760946035385132, 0.012220263481140137,
        0.5802934169769287, 0.8661562204360962],
    "op_only": [0.3883112668991089, 0.6636828184127808, 0.1919107437133789],
}


def test_seeded_random_ops_match_tensorflow_recorded():
    out = run(tf)
    assert sorted(out) == sorted(RECORDED)
    for k, want in RECORDED.items():
        got = np.asarray(out[k])
        np.testing.assert_array_equal(got, np.asarray(want, got.dtype), k)


def _big_draws(m):
    with m.Graph().as_default():   # a Graph block: TensorFlow's eager mode stays on
        m.compat.v1.set_random_seed(99)
        ops = [m.compat.v1.random_normal([4001]), m.compat.v1.truncated_normal([4003]),
               m.compat.v1.random_normal([501], dtype=m.float64),
               m.compat.v1.truncated_normal([501], dtype=m.float64)]
        with m.compat.v1.Session() as sess:
            return sess.run(ops) + sess.run(ops[:2])


def test_seeded_random_ops_match_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    for w, g in zip(_big_draws(real), _big_draws(tf), strict=True):
        np.testing.assert_array_equal(g, w)


def test_get_seed_rules():
    with tf.Graph().as_default():
        assert v1.get_seed(None) == (None, None)
        assert v1.get_seed(3) == (87654321, 3)
        v1.set_random_seed(5)
        assert [v1.get_seed(None) for _ in range(2)] == [(5, 0), (5, 1)]
        assert v1.get_seed(2 ** 31 + 4) == (5, 5)
        v1.set_random_seed(0)
        assert v1.get_seed(0) == (0, 2 ** 31 - 1)


def test_unseeded_graph_random_ops_differ_between_runs():
    with tf.Graph().as_default():
        x = v1.random_uniform([4])
        with v1.Session() as sess:
            assert not np.array_equal(sess.run(x), sess.run(x))


def test_random_normal_of_a_placeholder_shape():
    # the VAE idiom: noise shaped like a tensor whose batch size is open; the same kernel
    # stream as a static shape with the same seeds
    def draw(shape_of_x):
        with tf.Graph().as_default():
            x = v1.placeholder(tf.float32, [None, 2])
            shape = tf.shape(x) if shape_of_x else [3, 2]
            ops = [v1.random_normal(shape, seed=5), v1.truncated_normal(shape, seed=6),
                   v1.random_uniform(shape, seed=7)]
            with v1.Session() as sess:
                return sess.run(ops, {x: np.zeros((3, 2), np.float32)})
    for a, b in zip(draw(True), draw(False), strict=True):
        assert a.shape == (3, 2)
        np.testing.assert_array_equal(a, b)


def _initialized(m):
    v1m = m.compat.v1
    with m.Graph().as_default():
        v1m.set_random_seed(3)
        inits = [v1m.random_normal_initializer(0.5, 2.), v1m.random_uniform_initializer(-1., 3.),
                 v1m.truncated_normal_initializer(stddev=0.3, seed=4),
                 v1m.variance_scaling_initializer(2., "fan_in", "normal"),
                 v1m.variance_scaling_initializer(1., "fan_avg", "uniform", seed=9),
                 v1m.glorot_normal_initializer(), v1m.glorot_uniform_initializer()]
        ws = [v1m.get_variable(f"w{i}", [5, 4], initializer=init)
              for i, init in enumerate(inits)]
        with v1m.Session() as sess:
            sess.run(v1m.global_variables_initializer())
            return sess.run(ws)


def test_v1_initializers_match_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    want = _initialized(real)   # in a Graph block: TensorFlow's eager mode stays on
    for w, g in zip(want, _initialized(tf), strict=True):
        np.testing.assert_array_equal(g, w)


def test_v1_namespaces_initializers_and_random_recorded():
    # TensorFlow 2.21's values for this program (tf.compat.v1, eager execution disabled); a
    # TensorFlow 2 op (tf.random.normal) in a TF1 graph takes TF1's seeds too
    with tf.Graph().as_default():
        v1.random.set_random_seed(1)
        w = v1.get_variable("w", [2, 2], initializer=v1.initializers.he_normal())
        u = v1.random.uniform([2])
        n = tf.random.normal([2], seed=3)
        with v1.Session() as sess:
            sess.run(v1.initializers.global_variables())
            got = sess.run([w, u, n])
    want = [[[0.3469711244106293, 0.6447490453720093], [0.4757964015007019, 0.26447853446006775]],
            [0.055544137954711914, 0.018698453903198242],
            [-0.6708612442016602, 0.22357144951820374]]
    for g, w_ in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, np.asarray(w_, np.float32))

"""The TF1 seeded random program of tests/test_v1_random.py, run on finegrad or TensorFlow."""


def run(tf):
    v1 = tf.compat.v1
    out = {}
    with tf.Graph().as_default():
        v1.set_random_seed(1234)
        u = v1.random_uniform([5])
        n = v1.random_normal([3, 2])
        t = v1.truncated_normal([7], stddev=2.)
        u2 = v1.random_uniform([3], minval=-1., maxval=3., seed=7)
        ui = v1.random_uniform([4], minval=0, maxval=10, dtype=tf.int32)
        nd = v1.random_normal([3], dtype=tf.float64)
        w = v1.get_variable("w", [3, 2])                     # glorot uniform
        k = v1.get_variable("k", [4], initializer=v1.truncated_normal_initializer(stddev=0.1))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            out["u"], out["n"], out["t"], out["u2"], out["ui"], out["nd"] = s.run(
                [u, n, t, u2, ui, nd])
            out["u_again"] = s.run(u)
            out["w"], out["k"] = s.run([w, k])
        with v1.Session() as s:
            out["u_new_session"] = s.run(u)
    with tf.Graph().as_default():
        a = v1.random_uniform([3], seed=5)       # op seed only: default graph seed
        with v1.Session() as s:
            out["op_only"] = s.run(a)
    return out

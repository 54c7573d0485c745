"""TF1 programs of the kinds that real code around custom gradients is, written once for a
module ``tf`` (finegrad or TensorFlow) with eager execution disabled by the caller."""
import numpy as np


def _data(n=64, d=20, k=5, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    labels = np.argmax(x[:, :k] + 0.3 * rng.standard_normal((n, k)), axis=1)
    return x, np.eye(k, dtype=np.float32)[labels]


def softmax_tutorial(tf, steps=50):
    """The classic TF1 softmax-regression tutorial (tf.Variable, tf.log, reduction_indices,
    tf.equal of argmaxes), on synthetic data; ``W.get_shape()[0].value`` is TF1's idiom."""
    v1 = tf.compat.v1
    xs, ys = _data()
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 20])
        y_ = v1.placeholder(tf.float32, [None, 5])
        W = tf.Variable(tf.zeros([20, 5]))
        b = tf.Variable(tf.zeros([5]))
        assert W.get_shape()[0].value == 20
        y = tf.nn.softmax(tf.matmul(x, W) + b)
        cross_entropy = tf.reduce_mean(-v1.reduce_sum(y_ * v1.log(y), reduction_indices=[1]))
        train_step = v1.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
        correct = tf.equal(v1.argmax(y, 1), v1.argmax(y_, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(steps):
                sess.run(train_step, feed_dict={x: xs, y_: ys})
            return sess.run([cross_entropy, accuracy], {x: xs, y_: ys}) + [sess.run(W)]


_REGISTERED = []


def binarized_net(tf, steps=30):
    """A BinaryNet-style network: sign activations with a clipped straight-through gradient
    (RegisterGradient + gradient_override_map), a custom-gradient log1pexp loss, weights from
    get_variable under variable scopes with a graph-level seed, Adam, a global step."""
    v1 = tf.compat.v1
    xs, ys = _data(seed=1)
    name = "V1ProgramsBinaryNetSTE"
    if tf not in _REGISTERED:    # (a gradient name is registered once per process)
        _REGISTERED.append(tf)

        @tf.RegisterGradient(name)
        def _ste(op, grad):
            return grad * tf.cast(tf.abs(op.inputs[0]) <= 1., grad.dtype)

    @tf.custom_gradient
    def log1pexp(z):
        e = tf.exp(z)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return v1.log(1 + e), grad

    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(7)
        x = v1.placeholder(tf.float32, [None, 20])
        y_ = v1.placeholder(tf.float32, [None, 5])
        h = x
        for i, width in enumerate((16, 5)):
            with v1.variable_scope(f"layer{i}"):
                w = v1.get_variable("w", [h.shape[-1], width])
                bias = v1.get_variable("b", [width], initializer=v1.zeros_initializer())
            h = tf.matmul(h, w) + bias
            if i == 0:
                with g.gradient_override_map({"Sign": name}):
                    h = tf.sign(h)
        margin = tf.reduce_sum(h * (2. * y_ - 1.), axis=1)
        loss = tf.reduce_mean(log1pexp(-margin))
        step = v1.train.get_or_create_global_step()
        train = v1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            first = sess.run(loss, {x: xs, y_: ys})
            for _ in range(steps):
                sess.run(train, {x: xs, y_: ys})
            return [first, sess.run(loss, {x: xs, y_: ys}), sess.run(step)]

"""The Keras `Layer` base class: building, weights, tracking, losses, config, dtype policies,
training flags, and custom gradients inside ``call`` (Keras 3 as shipped with TensorFlow 2.21
is the specification; recorded Keras values say where they came from)."""
import numpy as np
import pytest

import finegrad as tf

keras_fg = tf.keras


class Linear(keras_fg.layers.Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel",
                                      initializer="ones")
        self.bias = self.add_weight(shape=(self.units,), name="bias", initializer="zeros")

    def call(self, x):
        return tf.matmul(x, self.kernel) + self.bias


class WithState(keras_fg.layers.Layer):
    def build(self, input_shape):
        self.moving = self.add_weight(shape=(2,), name="moving", trainable=False,
                                      initializer="zeros")
        self.gamma = self.add_weight(shape=(2,), name="gamma", initializer="ones")

    def call(self, x, training=None):
        return x * self.gamma


@pytest.fixture(autouse=True)
def _fresh_session():
    keras_fg.backend.clear_session()
    yield
    keras_fg.backend.clear_session()


def test_builds_on_first_call_from_the_input_shape():
    layer = Linear(3)
    assert not layer.built and layer.weights == []
    y = layer(tf.ones((4, 5)))
    assert layer.built
    assert [tuple(w.shape) for w in layer.weights] == [(5, 3), (3,)]
    np.testing.assert_allclose(y.numpy(), np.full((4, 3), 5.0))


def test_names_are_snake_case_and_unique_per_session_as_keras():
    # Keras 3: Linear() -> "linear", then "linear_1"; weights' paths "<layer>/<name>"
    a, b = Linear(), Linear()
    assert (a.name, b.name) == ("linear", "linear_1")
    a(tf.ones((1, 2)))
    assert [w.path for w in a.weights] == ["linear/kernel", "linear/bias"]
    assert [w.name for w in a.weights] == ["kernel", "bias"]
    keras_fg.backend.clear_session()
    assert Linear().name == "linear"


def test_weights_order_trainable_first_then_sublayers():
    class Outer(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = [WithState(), Linear()]
            self.by_name = {"head": Linear(1)}
            self.scale = tf.Variable(2.0)

        def call(self, x):
            for b in self.blocks:
                x = b(x)
            return self.by_name["head"](x) * self.scale

    outer = Outer()
    outer(tf.ones((1, 2)))
    names = [w.name for w in outer.weights]
    assert names[0] == "Variable:0" or names[0].startswith("Variable")
    assert names[1:] == ["gamma", "moving", "kernel", "bias", "kernel", "bias"]
    assert len(outer.trainable_weights) == 6 and len(outer.non_trainable_weights) == 1
    assert [type(x).__name__ for x in outer._flatten_layers()] == \
        ["Outer", "WithState", "Linear", "Linear"]


def test_list_appended_after_assignment_is_tracked():
    class M(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = []
            for _ in range(3):
                self.blocks.append(Linear(2))

        def call(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    m = M()
    m(tf.ones((1, 2)))
    assert len(m.trainable_weights) == 6


def test_trainable_false_freezes_weights_and_sublayers():
    layer = WithState()
    layer(tf.ones((1, 2)))
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(tf.ones((1, 2))))
    assert tape.watched_variables() == ()
    assert y.numpy() == 2.0
    layer.trainable = True
    assert [w.name for w in layer.trainable_weights] == ["gamma"]


def test_gradients_reach_the_weights():
    layer = Linear(1)
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x) ** 2)
    gk, gb = tape.gradient(y, layer.trainable_weights)
    # y = (x1 + x2)^2 with ones kernel: dy/dk_i = 2 * 3 * x_i, dy/db = 6
    np.testing.assert_allclose(gk.numpy().ravel(), [6.0, 12.0])
    np.testing.assert_allclose(gb.numpy(), [6.0])


def test_add_weight_after_build_is_refused_as_keras():
    layer = Linear()
    layer(tf.ones((1, 2)))
    with pytest.raises(ValueError, match="already built"):
        layer.add_weight(shape=(1,))


def test_unknown_constructor_keyword_is_a_value_error():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Linear"):
        Linear(units=2, foo=1)
    assert Linear(2, input_shape=(3,))._input_shape_arg == (3,)
    assert Linear(2, input_dim=4)._input_shape_arg == (4,)


def test_add_loss_is_reset_at_each_outermost_call():
    class Reg(keras_fg.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    class Outer(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = Reg(), Reg()

        def call(self, x):
            return self.b(self.a(x))

    outer = Outer()
    outer(tf.ones((2,)))
    assert [float(v) for v in outer.losses] == [2.0, 2.0]
    outer(tf.ones((3,)))
    assert [float(v) for v in outer.losses] == [3.0, 3.0]


def test_weight_regularizer_loss():
    class L(keras_fg.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(2,), initializer="ones",
                                     regularizer=keras_fg.regularizers.L2(0.5))

        def call(self, x):
            return x * self.w

    layer = L()
    layer(tf.ones((2,)))
    # L2(0.5): 0.5 * sum(w^2) = 1.0
    assert [float(v) for v in layer.losses] == [1.0]


def test_activity_regularizer():
    layer = Linear(1, activity_regularizer=keras_fg.regularizers.L1(0.1))
    layer(tf.constant([[1.0, 1.0]]))
    np.testing.assert_allclose([float(v) for v in layer.losses], [0.2], rtol=1e-6)


def test_auto_get_config_matches_keras():
    # Keras 3.15: a subclass without get_config whose __init__ takes (units=3, **kw) gives
    # {'units': 3, 'trainable': True, 'dtype': {'module': 'keras', 'class_name':
    #  'DTypePolicy', 'config': {'name': 'float32'}, 'registered_name': None}}
    class L(keras_fg.layers.Layer):
        def __init__(self, units=3, **kw):
            super().__init__(**kw)
            self.units = units

    assert L().get_config() == {
        "units": 3, "trainable": True,
        "dtype": {"module": "keras", "class_name": "DTypePolicy",
                  "config": {"name": "float32"}, "registered_name": None}}
    restored = L.from_config(L(units=5, name="x").get_config())
    assert restored.units == 5 and restored.name == "x"


def test_get_config_of_non_serializable_arguments_raises():
    class L(keras_fg.layers.Layer):
        def __init__(self, fn, **kw):
            super().__init__(**kw)
            self.fn = fn

    with pytest.raises(NotImplementedError, match="must override `get_config"):
        L(lambda x: x).get_config()


def test_compute_output_shape_traces_symbolically():
    assert Linear(5).compute_output_shape((None, 7)) == (None, 5)
    assert Linear(5).compute_output_shape((3, 7)) == (3, 5)


def test_training_flag_reaches_nested_calls():
    seen = []

    class Probe(keras_fg.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def call(self, x):
            return self.p(x)

    outer = Outer()
    outer(tf.ones(1), training=True)
    outer(tf.ones(1))
    outer(tf.ones(1), training=False)
    assert seen == [True, None, False]


def test_mixed_float16_computes_in_half_and_keeps_float32_variables():
    layer = Linear(2, dtype="mixed_float16")
    assert (layer.compute_dtype, layer.variable_dtype, layer.dtype) == \
        ("float16", "float32", "float32")
    x = np.ones((1, 3), np.float32)
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    assert y.dtype == tf.float16
    assert all(w.dtype == tf.float32 for w in layer.weights)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    np.testing.assert_allclose(grads[0].numpy(), np.ones((3, 2)))


def test_global_policy():
    keras_fg.mixed_precision.set_global_policy("mixed_float16")
    try:
        assert Linear().compute_dtype == "float16"
    finally:
        keras_fg.mixed_precision.set_global_policy("float32")
    assert Linear().compute_dtype == "float32"


def test_custom_gradient_in_call_with_the_layers_variables():
    """A layer whose call reads its kernel inside a custom_gradient: ``variables=`` receives
    the kernel, and the gradient given there is the one the tape returns."""
    class Clipped(keras_fg.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1],), initializer="ones", name="w")

        def call(self, x):
            @tf.custom_gradient
            def f(x):
                y = x * self.w

                def grad(dy, variables=None):
                    assert [v.name for v in variables] == ["w"]
                    return dy * 0.5, [tf.reduce_sum(dy * x, axis=0) * 10.0]
                return y, grad
            return f(x)

    layer = Clipped()
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(layer(x))
    gx, gw = tape.gradient(y, [x, layer.w])
    np.testing.assert_allclose(gx.numpy(), [[0.5, 0.5]])
    np.testing.assert_allclose(gw.numpy(), [10.0, 20.0])


def test_custom_gradient_under_mixed_precision():
    """The float16 read of a float32 kernel inside a custom gradient: the variable gradient
    comes back to the float32 variable."""
    class Scale(keras_fg.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(), initializer="ones", name="w")

        def call(self, x):
            @tf.custom_gradient
            def f(x):
                y = x * self.w

                def grad(dy, variables=None):
                    return dy * tf.cast(self.w, dy.dtype), [tf.reduce_sum(
                        tf.cast(dy * x, tf.float32)) * 3.0]
                return y, grad
            return f(x)

    layer = Scale(dtype="mixed_float16")
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    assert y.dtype == tf.float16
    (gw,) = tape.gradient(loss, [layer.w])
    assert gw.dtype == tf.float32
    np.testing.assert_allclose(float(gw), 9.0)


def test_variable_assigned_outside_add_weight_is_tracked():
    class L(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([1.0, 2.0])
            self.frozen = tf.Variable(0.0, trainable=False)

        def call(self, x):
            return x * self.v + self.frozen

    layer = L()
    assert len(layer.trainable_weights) == 1 and len(layer.non_trainable_weights) == 1


def test_setting_a_layer_before_super_init_is_an_error():
    class Bad(keras_fg.layers.Layer):
        def __init__(self):
            self.inner = Linear()
            super().__init__()

    with pytest.raises(RuntimeError, match="super"):
        Bad()


def test_keras_variable_from_an_initializer():
    v = keras_fg.Variable(keras_fg.initializers.Ones(), shape=(2, 3), name="w")
    assert v.name == "w" and tuple(v.shape) == (2, 3)
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        keras_fg.Variable(keras_fg.initializers.Ones())


def test_check_gradients_runs_on_a_layer_with_a_custom_gradient():
    """A layer is a callable: finegrad's gradient checker verifies its custom rule (first and
    second order, both modes) against finite differences, and a wrong rule is caught."""
    class SinScale(keras_fg.layers.Layer):
        def __init__(self, wrong=False, **kwargs):
            super().__init__(**kwargs)
            self.wrong = wrong

        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1],), initializer="ones", name="w")

        def call(self, x):
            @tf.custom_gradient
            def f(x):
                def grad(dy, variables=None):
                    d = tf.sin(x) if self.wrong else tf.cos(x)
                    return dy * d * self.w, [tf.reduce_sum(dy * tf.sin(x), axis=0)]
                return tf.sin(x) * self.w, grad
            return f(x)

    x = np.random.default_rng(0).normal(size=(2, 3))
    good = SinScale(dtype="float64")
    good(x)
    tf.testing.check_gradients(good, [x])
    bad = SinScale(wrong=True, dtype="float64")
    bad(x)
    with pytest.raises(AssertionError):
        tf.testing.check_gradients(bad, [x], order=1)


def test_input_spec_is_checked_at_each_call():
    class Images(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = keras_fg.layers.InputSpec(ndim=4, axes={-1: 3})

        def call(self, x):
            return x

    layer = Images()
    assert tuple(layer(tf.ones((1, 2, 2, 3))).shape) == (1, 2, 2, 3)
    # Keras 3.15's messages, recorded
    with pytest.raises(ValueError) as e:
        layer(tf.ones((1, 3)))
    assert str(e.value) == ("Input 0 with name 'None' of layer 'images' is incompatible with "
                            "the layer: expected ndim=4, found ndim=2. Full shape received: "
                            "(1, 3)")
    with pytest.raises(ValueError) as e:
        layer(tf.ones((1, 2, 2, 4)))
    assert str(e.value) == ("Input 0 with name 'None' of layer 'images' is incompatible with "
                            "the layer: expected axis -1 of input shape to have value 3, but "
                            "received input with shape (1, 2, 2, 4)")
    x = keras_fg.Input((5, 5, 3))
    assert layer(x).shape == (None, 5, 5, 3)


def test_training_given_positionally():
    seen = []

    class Probe(keras_fg.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(keras_fg.layers.Layer):
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def call(self, x, training=None):
            return self.p(x)

    Outer()(tf.ones(1), True)
    Probe()(tf.ones(1), False)
    assert seen == [True, False]


def test_a_subclass_build_adds_weights_after_the_built_in_build():
    # Keras: the state is locked when the outermost build returns
    class ScaledDense(keras_fg.layers.Dense):
        def build(self, input_shape):
            super().build(input_shape)
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, x):
            return super().call(x) * self.scale

    layer = ScaledDense(2, kernel_initializer="ones")
    out = layer(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(out.numpy(), [[3., 3.]])
    assert [w.name for w in layer.weights] == ["kernel", "bias", "scale"]
    with pytest.raises(ValueError, match="cannot add new elements of state"):
        layer.add_weight(shape=(), name="late")

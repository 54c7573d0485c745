"""Run a finegrad layer and its Keras 3 twin on the same weights and inputs, and compare the
outputs and the gradients (with respect to the floating inputs and the trainable weights) of
``sum(u * output)`` for a fixed random cotangent ``u``. Used by the test_layers_* modules; Keras
is imported only inside `keras_module` (tests call it under ``pytest.importorskip``).
"""
import os

import numpy as np
import pytest

import finegrad as fg

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def keras_module():
    """Keras 3 on TensorFlow, or a skip."""
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("the Keras comparisons need KERAS_BACKEND=tensorflow")
    return keras


def randn(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _floating(x):
    return np.issubdtype(np.asarray(x).dtype, np.floating)


def _default_call(layer, xs, kwargs):
    return layer(xs[0] if len(xs) == 1 else list(xs), **kwargs)


def finegrad_run(layer, inputs, cotangents, call=_default_call, **kwargs):
    xs = [fg.constant(x) for x in inputs]
    with fg.GradientTape(persistent=True) as tape:
        for x, a in zip(xs, inputs, strict=True):
            if _floating(a):
                tape.watch(x)
        outs = _flat(call(layer, xs, kwargs))
        loss = fg.add_n([fg.reduce_sum(o * u) for o, u in zip(outs, cotangents, strict=True)])
    wrt = [x for x, a in zip(xs, inputs, strict=True) if _floating(a)]
    grads = tape.gradient(loss, wrt + list(layer.trainable_weights))
    return [o.numpy() for o in outs], [None if g is None else
                                       np.asarray(fg.convert_to_tensor(g)) for g in grads]


def keras_run(layer, inputs, cotangents, call=_default_call, **kwargs):
    import tensorflow as tf
    xs = [tf.constant(x) for x in inputs]
    with tf.GradientTape(persistent=True) as tape:
        for x, a in zip(xs, inputs, strict=True):
            if _floating(a):
                tape.watch(x)
        outs = _flat(call(layer, xs, kwargs))
        loss = tf.add_n([tf.reduce_sum(o * u) for o, u in zip(outs, cotangents, strict=True)])
    wrt = [x for x, a in zip(xs, inputs, strict=True) if _floating(a)]
    grads = tape.gradient(loss, wrt + list(layer.trainable_weights))
    return [np.asarray(o) for o in outs], [None if g is None else
                                           np.asarray(tf.convert_to_tensor(g)) for g in grads]


def assert_matches_keras(ours, theirs, inputs, call=_default_call, rtol=1e-5, atol=1e-5,
                         **kwargs):
    """Build both layers on ``inputs``, give ours Keras's weights, and compare outputs and
    gradients. Returns our outputs."""
    first = _flat(call(theirs, list(inputs), kwargs))
    call(ours, [fg.constant(x) for x in inputs], kwargs)
    ours.set_weights(theirs.get_weights())
    cts = [randn(*np.shape(o), seed=7 + i).astype(np.asarray(o).dtype)
           for i, o in enumerate(first)]
    k_out, k_grads = keras_run(theirs, inputs, cts, call, **kwargs)
    f_out, f_grads = finegrad_run(ours, inputs, cts, call, **kwargs)
    assert len(f_out) == len(k_out)
    for a, b in zip(f_out, k_out, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    assert len(f_grads) == len(k_grads)
    for i, (a, b) in enumerate(zip(f_grads, k_grads, strict=True)):
        if b is None:
            assert a is None or not np.any(a), f"gradient {i}: Keras gives None"
            continue
        assert a is not None, f"gradient {i}: finegrad gives None"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"gradient {i}")
    return f_out


def assert_config_keys_match(ours, theirs, ignore=()):
    """Our get_config has Keras's keys (less ``ignore``), and equal values for plain
    ones."""
    mine, keras_cfg = ours.get_config(), theirs.get_config()
    missing = set(keras_cfg) - set(mine) - set(ignore) - {"quantization_config"}
    assert not missing, f"get_config lacks {sorted(missing)}"
    for key, value in keras_cfg.items():
        if key in ignore or key not in mine or isinstance(value, dict) or key == "name":
            continue
        assert _plain(mine[key]) == _plain(value), f"{key}: {mine[key]!r} != {value!r}"


def _plain(v):
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v

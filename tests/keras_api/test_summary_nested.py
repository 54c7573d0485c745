"""``Model.summary`` with ``expand_nested``, ``show_trainable``, ``line_length``,
``positions``, ``layer_range`` and ``print_fn``: the same text as Keras 3 prints for the same
models (compared live, Keras run in a subprocess with the same layer names)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import finegrad as tf

K = tf.keras

# one source for both sides: `keras` is finegrad.keras here and Keras 3 in the subprocess
MODELS = """
def models(keras):
    L = keras.layers
    inner = keras.Sequential([keras.Input((4,), name="inner_in"),
                              L.Dense(3, name="inner_dense"),
                              L.BatchNormalization(name="inner_bn")], name="inner")
    inner.layers[1].trainable = False
    x = keras.Input((4,), name="x")
    y = keras.Input((4,), name="y")
    h = L.Concatenate(name="cat")([inner(x), L.Dense(2, name="side")(y)])
    functional = keras.Model([x, y], L.Dense(1, name="head")(h), name="outer")
    seq = keras.Sequential([keras.Input((4,), name="seq_in"), inner,
                            L.Dense(2, name="top")], name="seq")
    return {"functional": functional, "seq": seq}


CASES = [("functional", dict(expand_nested=True, show_trainable=True, line_length=100)),
         ("functional", dict(expand_nested=True, line_length=90,
                             positions=[0.4, 0.6, 0.75, 1.0])),
         ("functional", dict(layer_range=["side", "head"], line_length=100)),
         ("seq", dict(expand_nested=True, line_length=76)),
         ("seq", dict(expand_nested=True, show_trainable=True, line_length=80))]


def texts(keras):
    built = models(keras)
    out = []
    for name, kwargs in CASES:
        lines = []
        built[name].summary(print_fn=lines.append, **kwargs)
        out.append("".join(lines))
    return out
"""


def test_summaries_match_keras_3():
    pytest.importorskip("keras")
    env = dict(os.environ, KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="3",
               COLUMNS="200")
    code = MODELS + "\nimport json, keras\nprint(json.dumps(texts(keras)))\n"
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    namespace: dict = {}
    exec(MODELS, namespace)   # the same model code on our side
    K.backend.clear_session()
    ours = namespace["texts"](K)
    for mine, keras_text in zip(ours, theirs, strict=True):
        assert mine == keras_text, f"finegrad:\n{mine}\nKeras 3:\n{keras_text}"


def test_layer_range_errors():
    m = K.Sequential([K.Input((2,)), K.layers.Dense(1, name="only")])
    with pytest.raises(ValueError, match="do not match the layer names"):
        m.summary(layer_range=["nope", "only"])
    with pytest.raises(ValueError, match="length 2"):
        m.summary(layer_range=["only"])

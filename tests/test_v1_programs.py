"""Whole TF1 programs (tests/v1_programs.py) under disable_v2_behavior: their training results
against TensorFlow 2.21's for the same programs (recorded; rerun live when TensorFlow is
installed). Float32 sums may be added in another order, hence rtol 1e-5."""
import numpy as np
import pytest

import finegrad as tf

import v1_programs as programs

RECORDED = {   # TensorFlow 2.21, tf.compat.v1 after disable_v2_behavior()
    "softmax": [0.21826058626174927, 0.984375, 32.756744384765625],  # loss, accuracy, sum|W|
    "binary": [1.7204660177230835, 0.01906980387866497, 30.0],      # loss before/after, step
}


def _run(module):
    # finegrad: disable_v2_behavior (graph mode and TF1 shapes) around the programs, which
    # build in Graph blocks; TensorFlow: TF1 shapes only, its eager mode staying on for the
    # other tests of the process (its graph mode cannot be switched back once used)
    v2_off = module.compat.v1.disable_v2_behavior if module is tf else \
        module.compat.v1.disable_v2_tensorshape
    v2_on = module.compat.v1.enable_v2_behavior if module is tf else \
        module.compat.v1.enable_v2_tensorshape
    v2_off()
    try:
        loss, accuracy, w = programs.softmax_tutorial(module)
        module.compat.v1.enable_v2_tensorshape()
        binary = programs.binarized_net(module)
    finally:
        v2_on()
    return {"softmax": [float(loss), float(accuracy), float(np.abs(w).sum())],
            "binary": [float(v) for v in binary]}


def test_programs_match_tensorflow_recorded():
    got = _run(tf)
    assert tf.executing_eagerly()
    for k, want in RECORDED.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)


def test_programs_match_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    want = _run(real)
    got = _run(tf)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, err_msg=k)

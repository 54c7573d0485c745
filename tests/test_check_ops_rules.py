"""finegrad.testing.sweep / ``finegrad check`` on `finegrad.ops.custom_gradient` rules (each
finegrad.ops backend) and on real Keras 3 `keras.ops.custom_gradient` rules (each Keras
backend, in a subprocess since Keras's backend is fixed per process): a rule 2x off on x > 3
is flagged with its region through the backend's own autodiff, the fixed rule passes, and a
mode the backend cannot do is "not available"."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import finegrad as fg
from finegrad import ops

RULE = '''
@ops.custom_gradient
def softplus(x):
    e = ops.exp(x)
    def grad(*args, upstream=None):
        if upstream is None:
            (upstream,) = args
        return ops.multiply(upstream, ops.where(x > 3, FACTOR, 1.0) * ops.sigmoid(x))
    return ops.log(1 + e), grad
'''


def _ops_rule(factor):
    scope = {"ops": ops, "FACTOR": factor}
    exec(RULE, scope)
    return scope["softplus"]


# forward mode: torch and finegrad transpose the rule; jax's custom_vjp and tf.custom_gradient
# cannot use it
FORWARD = {"finegrad": True, "jax": False, "torch": True, "tensorflow": False}


@pytest.mark.parametrize("backend", ["finegrad", "jax", "torch", "tensorflow"])
def test_finegrad_ops_rule_on_each_backend(backend):
    if backend != "finegrad":
        pytest.importorskip(backend)
    bad = fg.testing.sweep(_ops_rule(2.0), backend=backend, points=201)
    assert not bad.ok and bad.framework == backend and bad.name == "softplus"
    assert f"(finegrad.ops on {backend})" in bad.title()
    rev, fwd = bad.checks
    assert bad.failing_spans(rev) == "d/dx: 70 of 201 points (x in [3.1, 10])"
    if FORWARD[backend]:
        assert bad.failing_spans(fwd) == "d/dx: 70 of 201 points (x in [3.1, 10])"
    else:
        assert fwd.unavailable.startswith(f"not available in {backend}")
    good = fg.testing.sweep(_ops_rule(1.0), backend=backend, points=201)
    assert good.ok, str(good)


def test_finegrad_ops_rule_on_active_backend_by_default():
    report = fg.testing.sweep(_ops_rule(2.0), points=101)
    assert report.framework == "finegrad" and not report.ok
    with pytest.raises(ValueError, match="backend must be one of"):
        fg.testing.sweep(_ops_rule(2.0), backend="mxnet", points=11)
    with pytest.raises(ValueError, match="does not match backend 'finegrad'"):
        fg.testing.sweep(_ops_rule(2.0), backend="finegrad", framework="jax", points=11)


def test_cli_backend(tmp_path, capsys):
    pytest.importorskip("jax")
    from finegrad.__main__ import main
    path = tmp_path / "rule.py"
    path.write_text("from finegrad import ops\nFACTOR = 2.0\n" + RULE)
    assert main(["check", f"{path}:softplus", "--backend", "jax", "--points", "101",
                 "-q"]) == 1
    out = capsys.readouterr().out
    assert "softplus (finegrad.ops on jax)" in out and "not available in jax" in out


def _keras_check(tmp_path, backend, factor):
    path = tmp_path / f"keras_rule_{backend}_{factor}.py"
    path.write_text(f"from keras import ops\nFACTOR = {factor}\n" + RULE)
    out = tmp_path / "report.json"
    env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=os.pathsep.join(p for p in [os.getcwd(),
                                                      os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run([sys.executable, "-m", "finegrad", "check", f"{path}:softplus",
                           "--points", "201", "-q", "--json", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, proc.stdout, json.loads(out.read_text())


@pytest.mark.parametrize("backend", ["jax", "torch", "tensorflow"])
def test_real_keras_rule(tmp_path, backend):
    pytest.importorskip("keras")
    pytest.importorskip(backend)
    status, text, report = _keras_check(tmp_path, backend, 2.0)
    assert status == 1 and report["framework"] == backend, text
    # Keras on tensorflow is tf.custom_gradient itself: known by its keras.ops names
    assert f"softplus (keras.ops on {backend})" in text
    rev, fwd = report["checks"]
    assert rev["failing_where"] == "d/dx: 70 of 201 points (x in [3.1, 10])"
    # Keras's rules are a jax custom_vjp, a torch Function without jvp, a tf.custom_gradient
    assert fwd["not_available"].startswith(f"not available in {backend}")
    status, text, report = _keras_check(tmp_path, backend, 1.0)
    assert status == 0 and report["ok"], textwrap.shorten(text, 600)


def test_plain_tf_rule_with_keras_imported_stays_tensorflow():
    """A tf.custom_gradient written with tf ops is TensorFlow's, even with Keras imported and
    on tensorflow; the same rule written with keras.ops is Keras's (on tensorflow)."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    if keras.config.backend() != "tensorflow":
        pytest.skip("Keras runs on another backend here")

    @tf.custom_gradient
    def tf_softplus(x):
        return tf.math.softplus(x), lambda dy: dy * tf.sigmoid(x)

    @keras.ops.custom_gradient
    def keras_softplus(x):
        def grad(*args, upstream=None):
            return (args[0] if upstream is None else upstream) * keras.ops.sigmoid(x)
        return keras.ops.softplus(x), grad
    plain = fg.testing.sweep(tf_softplus, points=51)
    assert plain.ok and "tf_softplus (tensorflow)" in plain.title()
    marked = fg.testing.sweep(keras_softplus, points=51)
    assert marked.ok and "keras_softplus (keras.ops on tensorflow)" in marked.title()
    assert marked.to_dict()["framework"] == "tensorflow"

"""finegrad.testing.sweep / ``finegrad check`` on functions of vectors and matrices
(``shape=``, ``--shape``, ``elements=``): swept along random lines and coordinate lines in
each framework's own autodiff, a rule wrong on one element is flagged and that element is
named; functions that are not elementwise are never swept as scalars (no vacuous ok)."""
import json

import numpy as np
import pytest

import finegrad as fg
from finegrad import stable
from finegrad.__main__ import main

WRONG = np.array([1.0, 1.0, 1.0, 2.0])     # the rule's gradient of element [3] is doubled


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _lse_finegrad(factor):
    @fg.custom_gradient
    def lse(x):
        y = fg.reduce_logsumexp(x)
        return y, lambda dy: dy * fg.exp(x - y) * fg.constant(factor, x.dtype)
    return lse


def _wrong(report):
    """The elements named wrong, per line."""
    return [[idx for items in line.wrong[1] for idx, _, _ in items]
            for line in report.lines if line.wrong is not None]


def test_logsumexp_is_swept_as_vectors_without_shape():
    report = fg.testing.sweep(stable.logsumexp, points=101)
    assert report.shapes == [(3,)] and report.guessed and report.ok
    assert report.compared > 0 and "not elementwise on vectors" in str(report)
    assert fg.testing.sweep(stable.logsumexp, points=51, shape=(2, 3)).ok


def test_one_wrong_element_is_named_finegrad():
    report = fg.testing.sweep(_lse_finegrad(WRONG), shape=(4,), points=101)
    assert not report.ok
    assert _wrong(report) and all(w == ["[3]"] for w in _wrong(report))
    assert "wrong elements at the worst point (1 of 4): x[3]: " in report.verdict()
    assert fg.testing.sweep(_lse_finegrad(np.ones(4)), shape=(4,), points=101).ok


def test_coordinate_lines_of_chosen_elements():
    report = fg.testing.sweep(_lse_finegrad(WRONG), shape=(4,), points=51, elements=[0, 3])
    assert [line.label for line in report.lines] == ["element [0]", "element [3]"]
    assert [line.report.ok for line in report.lines] == [True, False]
    matrix = fg.testing.sweep(_lse_finegrad(np.tile(WRONG, (2, 1))), shape=(2, 4), points=31,
                              elements=[(1, 3), (0, 1)], lines=1)
    assert [line.label for line in matrix.lines] == ["random line 1", "element [1, 3]",
                                                     "element [0, 1]"]
    assert [line.report.ok for line in matrix.lines] == [False, False, True]
    assert len(fg.testing.sweep(_lse_finegrad(np.ones(4)), shape=4, points=11,
                                elements="all").lines) == 4


def test_vector_output_is_weighted():
    @fg.custom_gradient
    def softmax(x):
        y = fg.nn.softmax(x)

        def grad(dy):
            g = y * (dy - fg.reduce_sum(dy * y))
            return g * fg.constant(WRONG, x.dtype)
        return y, grad
    report = fg.testing.sweep(softmax, shape=(4,), points=51)
    assert not report.ok and all(w == ["[3]"] for w in _wrong(report))


def test_arguments_checked():
    with pytest.raises(ValueError, match="one per input"):
        fg.testing.sweep(_lse_finegrad(WRONG), shape=[(4,), (4,)], points=11)
    with pytest.raises(ValueError, match="not an index of shape"):
        fg.testing.sweep(_lse_finegrad(WRONG), shape=(4,), points=11, elements=[4])
    with pytest.raises(ValueError, match="need array inputs"):
        fg.testing.sweep(fg.stable.log1pexp, points=11, elements=[0])
    with pytest.raises(TypeError, match="shape must be a shape"):
        fg.testing.sweep(_lse_finegrad(WRONG), shape="four", points=11)


def test_torch_function_vector():
    torch = pytest.importorskip("torch")

    class LSE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.logsumexp(x, 0)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.softmax(x, 0) * torch.as_tensor(WRONG, dtype=x.dtype)
    report = fg.testing.sweep(LSE.apply, shape=(4,), points=51)
    assert not report.ok and report.framework == "torch"
    assert all(w == ["[3]"] for w in _wrong(report)) and _wrong(report)


def test_jax_custom_vjp_vector():
    jax = pytest.importorskip("jax")

    @jax.custom_vjp
    def lse(x):
        return jax.nn.logsumexp(x)
    lse.defvjp(lambda x: (lse(x), x),
               lambda x, g: (g * jax.nn.softmax(x) * jax.numpy.asarray(WRONG, x.dtype),))
    report = fg.testing.sweep(lse, shape=(4,), points=51)
    assert not report.ok and report.framework == "jax"
    assert all(w == ["[3]"] for w in _wrong(report)) and _wrong(report)


def test_tensorflow_custom_gradient_vector():
    tf = pytest.importorskip("tensorflow")

    @tf.custom_gradient
    def lse(x):
        return tf.reduce_logsumexp(x), lambda dy: dy * tf.nn.softmax(x) * tf.constant(
            WRONG, x.dtype)
    report = fg.testing.sweep(lse, shape=(4,), points=31)
    assert not report.ok and report.framework == "tensorflow"
    assert all(w == ["[3]"] for w in _wrong(report)) and _wrong(report)


def test_numpy_black_box_vector():
    def lse(x):
        m = x.max()
        return m + np.log(np.exp(x - m).sum()), lambda dy: dy * _softmax(x) * WRONG
    report = fg.testing.sweep(lse, framework="numpy", shape=(4,), points=51)
    assert not report.ok and all(w == ["[3]"] for w in _wrong(report)) and _wrong(report)


def test_cli_shape_and_elements(tmp_path, capsys):
    path = tmp_path / "rule.py"
    path.write_text("import finegrad as fg\n"
                    "@fg.custom_gradient\n"
                    "def lse(x):\n"
                    "    y = fg.reduce_logsumexp(x)\n"
                    "    return y, lambda dy: dy * fg.exp(x - y) * fg.constant(\n"
                    "        [[1., 1.], [1., 2.]], x.dtype)\n")
    out = tmp_path / "r.json"
    assert main(["check", f"{path}:lse", "--shape", "2,2", "--elements", "1,1;0,1",
                 "--lines", "0", "--points", "31", "-q", "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "x of shape (2, 2)" in text and "element [1, 1]: MISMATCH" in text
    assert "element [0, 1]: ok" in text
    data = json.loads(out.read_text())
    assert [line["line"] for line in data["lines"]] == ["element [1, 1]", "element [0, 1]"]
    assert [e["index"] for e in data["lines"][0]["wrong_elements"]["elements"]["x"]] == \
        ["[1, 1]"]
    assert main(["check", "finegrad.stable:logsumexp", "--points", "21", "-q"]) == 0
    assert "shape (3,)" in capsys.readouterr().out
    assert main(["check", "finegrad.stable:logsumexp", "--shape", "2,x", "-q"]) == 2


def test_base_point_of_the_coordinate_lines():
    base = np.array([0.5, -1.0, 2.0, 0.0])
    report = fg.testing.sweep(_lse_finegrad(WRONG), shape=(4,), points=21, elements=[3],
                              base=base)
    (line,) = report.lines
    assert np.array_equal(line.ps[0], [0.5, -1.0, 2.0, 0.0]) and list(line.ds[0]) == [0, 0, 0, 1]
    assert not report.ok
    with pytest.raises(ValueError, match="base must be an array of the inputs' shape"):
        fg.testing.sweep(_lse_finegrad(WRONG), shape=(4,), points=11, base=np.zeros(3))


def test_json_of_a_rule_that_is_nan_on_one_element(tmp_path):
    @fg.custom_gradient
    def lse(x):
        y = fg.reduce_logsumexp(x)
        return y, lambda dy: dy * fg.exp(x - y) * fg.constant([1., 1., np.nan], x.dtype)
    report = fg.testing.sweep(lse, shape=(3,), points=21)
    assert not report.ok and all(w == ["[2]"] for w in _wrong(report)) and _wrong(report)
    data = json.dumps(report.to_dict(), allow_nan=False)
    assert '"got": "nan"' in data



def _scaled_np(reduce_all):
    def scaled(x, b):
        def grad(dy):
            db = np.sum(dy * x) if reduce_all else np.sum(dy * x, axis=0)
            return dy * b, db
        return x * b, grad
    return scaled


def test_gradient_of_the_wrong_shape_is_named():
    """A rule that forgets to reduce over a broadcast dimension (or reduces too much) gives
    a gradient of another shape than its input's: the sweep names the input and both
    shapes (a NumPy black box here: finegrad's own custom_gradient raises a ValueError
    saying the same), and the right rule passes."""
    report = fg.testing.sweep(_scaled_np(True), shape=[(3, 2), (2,)], points=21,
                              framework="numpy")
    assert not report.ok and report.wrong_shapes == ["d/db has shape () where b has shape (2,)"]
    assert report.verdict().startswith("MISMATCH: _scaled_np.<locals>.scaled's gradient has "
                                       "the wrong shape: d/db has shape () where b has shape "
                                       "(2,)")
    assert report.to_dict()["wrong_shapes"] == report.wrong_shapes
    with pytest.raises(ValueError, match="no line was swept"):
        report.plot()
    assert "wrong shape" in report.to_html(figure=True)
    assert fg.testing.sweep(_scaled_np(False), shape=[(3, 2), (2,)], points=21,
                            framework="numpy").ok

    @fg.custom_gradient
    def scaled(x, b):
        return x * b, lambda dy: (dy * b, fg.reduce_sum(dy * x))
    with pytest.raises(ValueError, match=r"returned a gradient of shape \(\) for b, which "
                                         r"has shape \(2,\)"):
        fg.testing.sweep(scaled, shape=[(3, 2), (2,)], points=21)


def test_tensorflow_rule_along_lines_is_not_checked_in_forward_mode():
    """ForwardAccumulator differentiates a tf.custom_gradient's forward computation, not its
    rule: along lines too, forward mode is "not available", never a pass of the forward."""
    tf = pytest.importorskip("tensorflow")

    @tf.custom_gradient
    def lse(x):
        y = tf.reduce_logsumexp(x)
        return y, lambda dy: dy * tf.exp(x - y) * tf.constant([1., 1., 2.])
    report = fg.testing.sweep(lse, shape=(3,), points=21)
    line = report.lines[0].report
    fwd = next(c for c in line.checks if c.mode == "fwd")
    assert fwd.unavailable.startswith("not available in tensorflow")
    assert not report.ok and "x[2]" in report.verdict()

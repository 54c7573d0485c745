"""Real custom-gradient bugs, each with its fix, checked by ``finegrad check`` and by the
frameworks' own checkers (``torch.autograd.gradcheck`` / ``gradgradcheck``,
``jax.test_util.check_grads``, ``tf.test.compute_gradient``), used the way their
documentation shows: float64 random inputs from a seeded generator.

Each bug was reported in public and fixed; the rule is rewritten here as the smallest
custom-gradient function that has it (the reports are cited). ``python bench/real_bugs.py``
prints the table of docs/custom_gradients.md section 13.3; tests/test_real_bugs.py checks
that the table there is this one and that finegrad check flags every bug and passes every
fix. Needs torch, jax and tensorflow (run from the repository root, or with finegrad
installed).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import finegrad as fg


def softplus_threshold(torch, fixed):
    """pytorch/pytorch#55587: softplus's backward tested ``output * beta > threshold``
    where the forward tests ``input * beta > threshold``, so for inputs just below the
    threshold the gradient is 1 instead of sigmoid(beta x) (here beta 1, threshold 1)."""
    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = torch.where(x > 1, x, torch.log1p(torch.exp(x)))
            ctx.save_for_backward(x, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, out = ctx.saved_tensors
            z = x if fixed else out
            return torch.where(z > 1, g, g * torch.sigmoid(x))
    return Softplus.apply


def isrlu(torch, fixed):
    """pytorch/pytorch#4355: the ISRLU activation x / sqrt(1 + min(x, 0)^2) whose backward
    returned the local derivative without multiplying by the upstream gradient. Multiplying
    by it fixes order 1; the fix here also recomputes the local derivative from the saved
    input, since a saved intermediate breaks the double backward (pytorch/pytorch#58509)."""
    def local(x):
        return torch.rsqrt(1.0 + torch.clamp(x, max=0.0) ** 2) ** 3

    class ISRLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * torch.rsqrt(1.0 + torch.clamp(x, max=0.0) ** 2)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * local(x) if fixed else local(x.detach())
    return ISRLU.apply


def saved_intermediate(torch, fixed):
    """pytorch/pytorch#58509: (2x)^2 with the intermediate 2x stored on ``ctx`` and used in
    the backward: the first derivative is right, the double backward silently misses its
    dependence on x. The fix saves the input and recomputes."""
    class Square2(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            interm = x * 2
            if fixed:
                ctx.save_for_backward(x)
            else:
                ctx.interm = interm
            return interm ** 2

        @staticmethod
        def backward(ctx, g):
            interm = ctx.saved_tensors[0] * 2 if fixed else ctx.interm
            return 2 * 2 * interm * g
    return Square2.apply


def softplus_overflow(torch, fixed):
    """tenstorrent/tt-metal#56397: softplus's backward spelled as exp(x) * 1 / (exp(x) + 1),
    which is inf * 0 = nan once exp(x) overflows (x > 88.7 in float32); the fix is
    sigmoid(x)."""
    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.logaddexp(x, torch.zeros_like(x))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            if fixed:
                return g * torch.sigmoid(x)
            e = torch.exp(x)
            return g * e * torch.reciprocal(e + 1)
    return Softplus.apply


def sin_times(jax, fixed):
    """jax-ml/jax#3213: the ``custom_vjp`` example of f(x, y) = sin(x) y in JAX's
    documentation gave -sin(x) for df/dy (fixed in jax-ml/jax#3219)."""
    @jax.custom_vjp
    def f(x, y):
        return jax.numpy.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jax.numpy.cos(x), jax.numpy.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return cos_x * g * y, (sin_x if fixed else -sin_x) * g
    f.defvjp(f_fwd, f_bwd)
    return f


def prod_at_zero(torch, fixed):
    """pytorch/pytorch#773: prod's backward computed as prod(x) / x, which is 0 / 0 = nan at
    the one element of x that is 0, where the derivative is the product of the others (the
    same formula was reported in tinygrad/tinygrad#17404, tracel-ai/burn#5533 and
    tenstorrent/tt-metal#54551). The fix takes the product of the other elements."""
    class Prod(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.prod(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            if not fixed:
                return g * torch.prod(x) / x
            return g * torch.stack([torch.prod(torch.cat([x[:i], x[i + 1:]]))
                                    for i in range(x.numel())])
    return Prod.apply


def swish_beta(tf, fixed):
    """tensorflow/tensorflow#127690: the custom gradient of ``tf.nn.silu(features, beta)``
    sums the derivative with respect to ``beta`` over every element, whatever beta's shape:
    a per-column beta of shape (2,) gets one number of shape (). The fix sums it over the
    dimensions beta was broadcast along only."""
    @tf.custom_gradient
    def swish(x, beta):
        s = tf.sigmoid(beta * x)

        def grad(dy):
            d_beta = dy * x * x * s * (1 - s)
            if fixed:
                _, axes = tf.raw_ops.BroadcastGradientArgs(s0=tf.shape(x), s1=tf.shape(beta))
                d_beta = tf.reshape(tf.reduce_sum(d_beta, axis=axes), tf.shape(beta))
            else:
                d_beta = tf.reduce_sum(d_beta)
            return dy * s * (1 + beta * x * (1 - s)), d_beta
        return x * s, grad
    return swish


# name, report, framework, the rule's maker, finegrad check's options, the shapes of the
# inputs the frameworks' own checkers get (None: 8 numbers)
CASES = [
    ("wrong region", "pytorch/pytorch#55587", "torch", softplus_threshold,
     {"interval": (-3, 3)}, None),
    ("forgotten chain rule", "pytorch/pytorch#4355", "torch", isrlu, {"interval": (-5, 5)},
     None),
    ("double backward", "pytorch/pytorch#58509", "torch", saved_intermediate,
     {"interval": (-3, 3)}, None),
    ("float32 overflow", "tenstorrent/tt-metal#56397", "torch", softplus_overflow,
     {"interval": (-100, 100)}, None),
    ("sign error", "jax-ml/jax#3213", "jax", sin_times, {"interval": (-3, 3)}, None),
    ("one wrong element", "pytorch/pytorch#773", "torch", prod_at_zero,
     {"interval": (-2, 2), "shape": (4,), "elements": "all", "points": 101}, None),
    ("broadcast not reduced", "tensorflow/tensorflow#127690", "tensorflow", swish_beta,
     {"interval": (-3, 3), "shape": [(3, 2), (2,)], "points": 51}, [(3, 2), (2,)]),
]


def finegrad_says(fn, options):
    """``finegrad check --order 2``'s answer in a few words: ok, or where it fails first
    (with array inputs: on which lines, and which elements are wrong at the worst point)."""
    report = fg.testing.sweep(fn, order=2, **options)
    if report.ok:
        return "ok"
    if not hasattr(report, "lines"):
        return "MISMATCH, " + _first_failure(report)
    if report.wrong_shapes:
        return "MISMATCH, wrong shape: " + "; ".join(report.wrong_shapes)
    line = report.worst_line()
    bad = sum(not ln.report.ok for ln in report.lines)
    text = (f"MISMATCH on {bad} of {len(report.lines)} lines; along {line.label}, "
            f"{_first_failure(line.report)}")
    if line.wrong is not None and not isinstance(line.wrong[1], str):
        names = [f"{report.input_names[k]}{idx}" for k, items in enumerate(line.wrong[1])
                 for idx, _, _ in items]
        total = sum(x.size for x in line.wrong[0])
        text += f"; wrong at its worst point: {', '.join(names)} ({len(names)} of {total})"
    return text


def _first_failure(report):
    failing = next(c for c in report.checks if not c.ok)
    mode = {"rev": "reverse", "fwd": "forward"}[failing.mode]
    return f"{mode} order {failing.order}: {report.failing_spans(failing)}"


def torch_says(check, fn, torch):
    """``gradcheck`` / ``gradgradcheck`` on 8 float64 normal inputs (seed 0)."""
    x = torch.randn(8, dtype=torch.float64, generator=torch.Generator().manual_seed(0),
                    requires_grad=True)
    try:
        return "pass" if check(fn, (x,)) else "FAIL"
    except Exception as e:   # gradcheck raises GradcheckError on a mismatch
        first = str(e).strip().splitlines()[0]
        return "FAIL" if type(e).__name__ == "GradcheckError" else f"error: {first[:60]}"


def jax_says(fn, jax):
    """``check_grads(f, args, order=2)`` at float64 normal inputs (key 0)."""
    from jax.test_util import check_grads
    with jax.enable_x64(True):
        x, y = jax.random.normal(jax.random.PRNGKey(0), (2, 8), dtype=jax.numpy.float64)
        try:
            check_grads(fn, (x, y), order=2, modes=["rev"])
        except AssertionError:
            return "FAIL"
    return "pass"


def tf_says(fn, tf, shapes):
    """``tf.test.compute_gradient`` at float64 normal inputs (seed 0), its Jacobians
    compared as TensorFlow's own tests do: the largest difference under 1e-4."""
    rng = np.random.default_rng(0)
    xs = [tf.constant(rng.standard_normal(s)) for s in shapes]
    theoretical, numerical = tf.test.compute_gradient(fn, xs)
    error = max(float(np.max(np.abs(t - n), initial=0.0))
                for t, n in zip(theoretical, numerical, strict=True))
    return "pass" if error < 1e-4 else "FAIL"


def rows():
    """One row per (case, buggy or fixed): the case, the version, and each tool's answer."""
    import jax
    import tensorflow as tf
    import torch
    modules = {"torch": torch, "jax": jax, "tensorflow": tf}
    out = []
    for name, source, framework, make, options, shapes in CASES:
        for fixed in (False, True):
            fn = make(modules[framework], fixed)
            row = [name, source, "fix" if fixed else "bug", finegrad_says(fn, options)]
            na = f"n/a ({framework})"
            if framework == "torch":
                row += [torch_says(torch.autograd.gradcheck, fn, torch),
                        torch_says(torch.autograd.gradgradcheck, fn, torch), na, na]
            elif framework == "jax":
                row += [na, na, jax_says(fn, jax), na]
            else:
                row += [na, na, na, tf_says(fn, tf, shapes)]
            out.append(row)
    return out


HEAD = ["bug", "reported in", "version", "finegrad check --order 2", "gradcheck",
        "gradgradcheck", "check_grads (order 2)", "tf.test.compute_gradient"]


def table():
    """The markdown table of docs/custom_gradients.md section 13.3."""
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    np.seterr(all="ignore")
    print(table(), end="")

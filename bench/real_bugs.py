"""Real custom-gradient bugs, each with its fix, checked by ``finegrad check`` and by the
frameworks' own checkers (``torch.autograd.gradcheck`` / ``gradgradcheck``,
``jax.test_util.check_grads``), used the way their documentation shows: float64 random
inputs from a seeded generator.

Each bug was reported in public and fixed; the rule is rewritten here as the smallest
custom-gradient function that has it (the reports are cited). ``python bench/real_bugs.py``
prints the table of docs/custom_gradients.md section 13.3; tests/test_real_bugs.py checks
that the table there is this one and that finegrad check flags every bug and passes every
fix. Needs torch and jax (run from the repository root, or with finegrad installed).
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


# name, report, framework, the rule's maker, finegrad check's options
CASES = [
    ("wrong region", "pytorch/pytorch#55587", "torch", softplus_threshold,
     {"interval": (-3, 3)}),
    ("forgotten chain rule", "pytorch/pytorch#4355", "torch", isrlu, {"interval": (-5, 5)}),
    ("double backward", "pytorch/pytorch#58509", "torch", saved_intermediate,
     {"interval": (-3, 3)}),
    ("float32 overflow", "tenstorrent/tt-metal#56397", "torch", softplus_overflow,
     {"interval": (-100, 100)}),
    ("sign error", "jax-ml/jax#3213", "jax", sin_times, {"interval": (-3, 3)}),
]


def finegrad_says(fn, options):
    """``finegrad check --order 2``'s answer in a few words: ok, or where it fails first."""
    report = fg.testing.sweep(fn, order=2, **options)
    if report.ok:
        return "ok"
    failing = next(c for c in report.checks if not c.ok)
    mode = {"rev": "reverse", "fwd": "forward"}[failing.mode]
    return f"MISMATCH, {mode} order {failing.order}: {report.failing_spans(failing)}"


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


def rows():
    """One row per (case, buggy or fixed): the case, the version, and each tool's answer."""
    import jax
    import torch
    out = []
    for name, source, framework, make, options in CASES:
        for fixed in (False, True):
            args = (torch if framework == "torch" else jax, fixed)
            fn = make(*args)
            row = [name, source, "fix" if fixed else "bug", finegrad_says(fn, options)]
            if framework == "torch":
                row += [torch_says(torch.autograd.gradcheck, fn, torch),
                        torch_says(torch.autograd.gradgradcheck, fn, torch), "n/a (torch)"]
            else:
                row += ["n/a (jax)", "n/a (jax)", jax_says(fn, jax)]
            out.append(row)
    return out


HEAD = ["bug", "reported in", "version", "finegrad check --order 2", "gradcheck",
        "gradgradcheck", "check_grads (order 2)"]


def table():
    """The markdown table of docs/custom_gradients.md section 13.3."""
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    np.seterr(all="ignore")
    print(table(), end="")

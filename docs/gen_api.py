"""Writes docs/api.md: every public name of finegrad with its TensorFlow counterpart, the
first line of its docstring and its signature.

Run from the repository root: ``python3 docs/gen_api.py > docs/api.md``. A test regenerates
the page and fails when the committed one differs, so the page follows the package.

A name ``finegrad.<module>.<name>`` has the counterpart ``tf.<module>.<name>`` unless
``COUNTERPARTS`` says otherwise; modules in ``FINEGRAD_ONLY_MODULES`` have none.
"""
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

REGENERATE = "python3 docs/gen_api.py > docs/api.md"

FINEGRAD_ONLY_MODULES = {"finegrad.ops", "finegrad.stable", "finegrad.testing"}

# Where finegrad's name is not TensorFlow 2's: the TensorFlow name, or why there is none.
COUNTERPARTS = {
    "finegrad.grad": "finegrad only (like `jax.grad`)",
    "finegrad.value_and_grad": "finegrad only (like `jax.value_and_grad`)",
    "finegrad.vjp": "finegrad only (like `jax.vjp`)",
    "finegrad.jvp": "finegrad only (like `jax.jvp`; TensorFlow: `tf.autodiff.ForwardAccumulator`)",
    "finegrad.jacfwd": "finegrad only (like `jax.jacfwd`)",
    "finegrad.jacrev": "finegrad only (like `jax.jacrev`; TensorFlow: `GradientTape.jacobian`)",
    "finegrad.hessian_vector_product": "finegrad only (TensorFlow: a tape over a "
                                       "`ForwardAccumulator`)",
    "finegrad.gradients": "`tf.gradients` (inside `tf.function` only, as in TensorFlow 2)",
    "finegrad.math.sigmoid_grad": "`tf.raw_ops.SigmoidGrad`",
    "finegrad.math.tanh_grad": "`tf.raw_ops.TanhGrad`",
    "finegrad.linalg.transpose": "`tf.transpose` (TensorFlow 2 has no `tf.linalg.transpose`)",
    "finegrad.keras.ops": "`keras.ops` (Keras 3; the names of `finegrad.ops`)",
}


def public_modules(package):
    """``package`` and its public submodules (not ``_src``, not ``__main__``), sorted."""
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__)
                   if not info.name.startswith("_"))
    return [package] + [importlib.import_module(f"{package.__name__}.{n}") for n in names]


def counterpart(qualname):
    """The TensorFlow counterpart of the public name ``qualname`` (``finegrad.x.y``)."""
    if qualname in COUNTERPARTS:
        return COUNTERPARTS[qualname]
    if qualname.startswith("finegrad.keras.saving"):   # Keras 3's, absent from tf.keras
        return f"`keras{qualname[len('finegrad.keras'):]}` (Keras 3)"
    if qualname in FINEGRAD_ONLY_MODULES or qualname.rpartition(".")[0] in FINEGRAD_ONLY_MODULES:
        return "finegrad only"
    return f"`tf{qualname[len('finegrad'):]}`"


def summary(value):
    """The first paragraph of ``value``'s docstring as one line (a dtype: its name)."""
    if type(value).__name__ == "DType":
        return f"the `{value.name}` dtype"
    if value is None:   # newaxis, as in NumPy and TensorFlow
        return "`None`: indexing with it adds an axis of length 1"
    doc = inspect.getdoc(value) or ""
    first = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return first.replace("|", "\\|") or "(no docstring)"


def signature(value):
    """``value``'s call signature without annotations, ``(x, y, name=None)``, as a table cell;
    a class's is its constructor's; empty for what is not called (modules, dtypes, None)."""
    if inspect.ismodule(value) or not callable(value) or type(value).__name__ == "DType":
        return ""
    try:
        sig = inspect.signature(value)
    except (TypeError, ValueError):   # a builtin without a signature
        return ""
    bare = sig.replace(parameters=[p.replace(annotation=p.empty) for p in
                                   sig.parameters.values()],
                       return_annotation=sig.empty)
    text = re.sub(r"<function (\S+) at 0x[0-9a-f]+>", r"\1", str(bare))   # default: a name
    text = re.sub(r" at 0x[0-9a-f]+", "", text)                           # no addresses
    return "`" + text.replace("|", "\\|") + "`"


def _table(module):
    rows = ["| finegrad | TensorFlow | summary | signature |", "|---|---|---|---|"]
    for name in sorted(n for n in dir(module) if not n.startswith("_")):
        qualname = f"{module.__name__}.{name}"
        value = getattr(module, name)
        rows.append(f"| `{qualname}` | {counterpart(qualname)} | {summary(value)} | "
                    f"{signature(value)} |")
    return rows


def render(package=None):
    """The text of docs/api.md for ``package`` (default: finegrad)."""
    if package is None:
        package = importlib.import_module("finegrad")
    lines = ["# API reference", "",
             "Every public name of finegrad and of its public modules, with its TensorFlow 2",
             "counterpart, the first line of its docstring and its signature (without type",
             "annotations; the package's own carry them). Generated from the package by",
             f"`{REGENERATE}`; a test fails when this page and the package differ.", ""]
    for module in public_modules(package):
        lines += [f"## `{module.__name__}`", "", summary(module), "",
                  f"TensorFlow: {counterpart(module.__name__)}.", ""]
        lines += _table(module) + [""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # document this checkout
    sys.stdout.write(render())

"""Running a rule written in another framework through that framework's own autodiff, for
`finegrad.testing.sweep` and ``finegrad check``: one module per framework (`torch_rules`,
`jax_rules`, `tensorflow_rules`, `numpy_rules`; `ops_rules` for `keras.ops` and
`finegrad.ops` functions, which run on one of these), each importing its framework lazily, and
`detect`, which finds the framework a callable is written for."""
import sys

import numpy as np

from finegrad._src.testing.frameworks import ops_rules
from finegrad._src.tensor import Tensor

FRAMEWORKS = ("finegrad", "torch", "jax", "tensorflow", "keras", "numpy")


def detect(fn, framework=None, n_inputs=1):
    """The framework ``fn`` is written for: ``framework`` when given, else found from the
    callable (a torch ``autograd.Function.apply``, a jax ``custom_vjp``/``custom_jvp`` or
    jitted function), else by calling it on one point of each imported framework's tensors
    and looking at what comes back."""
    if framework is not None:
        if framework not in FRAMEWORKS:
            raise ValueError(f"finegrad.testing.sweep: framework must be one of {FRAMEWORKS}, "
                             f"got {framework!r}")
        return ops_rules.keras_backend() if framework == "keras" else framework
    if ops_rules.is_keras_rule(fn):
        return ops_rules.keras_backend()
    owner = getattr(fn, "__self__", None)
    kind = type(owner if isinstance(owner, type) else fn).__module__ or ""
    if isinstance(owner, type):
        kind = owner.__mro__[-2].__module__ if len(owner.__mro__) > 1 else kind
    for prefix, name in (("torch", "torch"), ("jax", "jax"), ("tensorflow", "tensorflow")):
        if kind.startswith(prefix):
            return name
    return _probe(fn, n_inputs)


def _probe(fn, n):
    for name, make, is_out in _candidates(Tensor):
        try:
            out = fn(*[make(np.float64(0.618)) for _ in range(n)])
        except Exception:   # written for another framework
            continue
        first = out if name == "numpy" else out[0] if isinstance(out, (tuple, list)) else out
        if is_out(first):
            return name
    return "finegrad"


def _candidates(tensor_type):
    yield "finegrad", lambda v: tensor_type(np.float32(v)), lambda o: isinstance(o, tensor_type)
    if sys.modules.get("torch") is not None:     # imported (None: blocked)
        torch = sys.modules["torch"]
        # recorded by torch's autograd: NumPy functions also return tensors on tensors
        yield "torch", lambda v: torch.tensor(v, requires_grad=True), \
            lambda o: isinstance(o, torch.Tensor) and o.requires_grad
    if sys.modules.get("jax") is not None:
        jnp = sys.modules["jax"].numpy
        yield "jax", lambda v: jnp.asarray(v), lambda o: type(o).__module__.startswith("jax")
    if sys.modules.get("tensorflow") is not None:
        tf = sys.modules["tensorflow"]
        yield "tensorflow", lambda v: tf.constant(v), tf.is_tensor
    # a NumPy black box returns (value, grad) as a custom_gradient function does; a plain
    # NumPy function (no rule) is left to the finegrad path, whose error says what to write
    yield "numpy", np.asarray, lambda o: (isinstance(o, tuple) and len(o) == 2 and
                                          callable(o[1]))



def evaluator(fn, cols, dtype, framework, progress=None):
    """An evaluator (see `finegrad._src.testing.sweep.Evaluator`) of ``fn`` written for
    ``framework`` (not finegrad)."""
    if framework == "torch":
        from finegrad._src.testing.frameworks.torch_rules import TorchEvaluator as cls
    elif framework == "jax":
        from finegrad._src.testing.frameworks.jax_rules import JaxEvaluator as cls
    elif framework == "tensorflow":
        from finegrad._src.testing.frameworks.tensorflow_rules import (
            TensorFlowEvaluator as cls)
    else:
        from finegrad._src.testing.frameworks.numpy_rules import NumpyEvaluator as cls
    return cls(fn, cols, dtype, progress)

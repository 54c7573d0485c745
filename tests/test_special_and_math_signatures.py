"""The special functions, sorting, segment and counting functions take TensorFlow's parameters
(names and order), read from the installed TensorFlow."""
import inspect

import pytest

import finegrad as fg

NAMES = (
    "math.erf", "math.erfc", "math.erfinv", "math.lgamma", "math.digamma", "math.polygamma",
    "math.xlogy", "math.xlog1py", "truncatediv", "math.argmax", "math.argmin", "argmax",
    "argmin", "sort", "argsort", "math.top_k", "nn.top_k", "unique", "math.bincount",
    "math.polyval", "math.confusion_matrix", "cosh", "sinh", "asinh", "acosh", "atanh",
    *(f"math.{p}segment_{k}" for p in ("", "unsorted_")
      for k in ("sum", "mean", "max", "min", "prod")))


def _resolve(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("dotted", NAMES)
def test_parameters_are_tensorflows(dotted):
    tf = pytest.importorskip("tensorflow")
    want = tuple(inspect.signature(_resolve(tf, dotted)).parameters)
    got = tuple(inspect.signature(_resolve(fg, dotted)).parameters)
    assert got[:len(want)] == want, f"finegrad.{dotted}{got} vs TensorFlow's {want}"

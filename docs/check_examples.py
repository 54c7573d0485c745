"""The rules checked in docs/custom_gradients.md section 13.1, each with its deliberate bug,
for ``finegrad check`` on the command line (the pictures of that section are drawn from
them; the command is written in the section)."""
import numpy as np


def softplus_np(x):
    """A NumPy black box: log(1 + e^x) and its rule, twice too large for x > 3 (the bug)."""
    def grad(dy):
        return dy * np.where(x > 3, 2.0, 1.0) / (1 + np.exp(-x))
    return np.log1p(np.exp(x)), grad


def softplus_np_one_point(x):
    """The same rule, wrong at a single point of the sweep (x = 2), which the picture must
    still show."""
    def grad(dy):
        return dy * np.where(x == 2, 2.0, 1.0) / (1 + np.exp(-x))
    return np.log1p(np.exp(x)), grad

"""A chain of custom_gradient calls under one tape is linear (issue 22, cause 14): each call's
check for a captured watched tensor looks at the call's own ops, never at everything the tape
watches (it once did, making the forward pass quadratic: 58 s for 50,000 calls). bench row k
times 10^4 against 10^5 calls."""
import numpy as np
import pytest

import finegrad as fg


class _CountingDict(dict):
    """A dict that counts the walks over its keys."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


RATE = np.float32(1.0001).item()   # the float32 factor, exactly


@fg.custom_gradient
def _scale(x):
    return x * 1.0001, lambda dy: dy * 1.0001


@pytest.mark.parametrize("n", [200, 2000])
def test_chain_never_walks_what_the_tape_watches(n):
    x = fg.constant(1.)
    with fg.GradientTape() as tape:
        tape.watch(x)
        tape._watched = _CountingDict(tape._watched)
        _CountingDict.walks = 0
        y = x
        for _ in range(n):
            y = _scale(y) * 1.
    assert _CountingDict.walks <= 2   # (the first call: it watched only that input)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), RATE ** n, rtol=1e-3)


def test_captured_watched_tensor_still_warns_in_a_long_chain():
    w = fg.constant(2.)
    x = fg.constant(1.)

    @fg.custom_gradient
    def uses_w(x):
        return x * w, lambda dy: dy * w

    with fg.GradientTape() as tape:
        tape.watch([x, w])
        y = x
        for _ in range(300):
            y = _scale(y) * 1.
        with pytest.warns(UserWarning, match="uses_w"):
            y = uses_w(y)
    assert tape.gradient(y, x) is not None


def test_nested_tapes_and_a_persistent_tape():
    x = fg.constant(1.)
    with fg.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with fg.GradientTape() as inner:
            inner.watch(x)
            y = x
            for _ in range(100):
                y = _scale(y)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), RATE ** 100, rtol=1e-4)
    np.testing.assert_allclose(outer.gradient(y, x).numpy(), RATE ** 100, rtol=1e-4)

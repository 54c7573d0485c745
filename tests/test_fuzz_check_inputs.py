"""Property-based tests of ``finegrad check`` / `finegrad.testing.sweep` fed hostile inputs.

Hypothesis (profiles in `fuzz_settings`) draws ranges with nan and inf, empty and reversed
ranges, odd point counts, tolerances, dtypes and shapes, and rules that are broken in many
ways (raising, returning the wrong structure, the wrong shape, non-tensors, nan values).
What is checked: every call either gives a report, and an "ok" report compared something,
or raises a TypeError/ValueError that names ``finegrad.`` (the user's own exception from a
rule that raises goes through unchanged); a broken rule is never "ok"; the command line
answers a usage error with exit status 2 and a message, never a traceback.
"""
import contextlib
import io

import numpy as np
from hypothesis import given, settings, strategies as st

import fuzz_settings  # noqa: F401 - registers and loads the hypothesis profile
import finegrad as fg
from finegrad.__main__ import main

numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 1e308, -1e-308, float("nan"), float("inf")]))
# each argument is sane half of the time, so that hostile ones also meet whole sweeps
intervals = st.one_of(st.tuples(st.floats(-20, 0), st.floats(0.5, 20)),
                      st.one_of(st.tuples(numbers, numbers), st.lists(numbers, max_size=3),
                                st.text(max_size=5), st.none()))
point_counts = st.one_of(st.integers(3, 25), st.one_of(
    st.integers(-3, 2), st.floats(0, 30), st.booleans(), st.text(max_size=3)))
tolerances = st.one_of(st.none(), st.floats(1e-4, 0.1), numbers)
dtypes = st.one_of(st.sampled_from(["float32", "float64"]), st.one_of(
    st.sampled_from(["int32", "float16", "complex64"]), st.text(max_size=4)))
shape_args = st.one_of(st.none(), st.sampled_from([(), (2,), (2, 2)]), st.one_of(
    st.integers(-1, 3), st.lists(st.integers(-1, 3), max_size=2).map(tuple),
    st.text(max_size=3)))

# a few examples per property: each valid one runs a whole sweep
_FEW = settings(max_examples=max(10, settings().max_examples // 2))


def _clear(e):
    """An exception of the documented kinds whose message names finegrad (its function)."""
    return isinstance(e, (TypeError, ValueError)) and "finegrad" in str(e)


@_FEW
@given(interval=intervals, points=point_counts, rtol=tolerances, dtype=dtypes,
       shape=shape_args)
def test_hostile_arguments_give_a_report_or_a_clear_error(interval, points, rtol, dtype,
                                                         shape):
    try:
        report = fg.testing.sweep(fg.stable.log1pexp, interval=interval, points=points,
                                  rtol=rtol, dtype=dtype, shape=shape)
    except Exception as e:     # any other kind is the defect looked for
        assert _clear(e), f"{type(e).__name__}: {e}"
        return
    # what was accepted is a finite range, a float dtype and a real tolerance
    lo, hi = interval
    assert np.isfinite(lo) and np.isfinite(hi) and lo < hi
    assert rtol is None or (np.isfinite(rtol) and rtol > 0)
    if report.ok:
        assert report.compared > 0


def _custom(grad, value=lambda x: x * x):
    @fg.custom_gradient
    def rule(x):
        return value(x), grad(x)
    return rule


def _raise(dy):
    raise RuntimeError("the user's own grad failed")


@fg.custom_gradient
def _second_not_callable(x):
    return x * x, 3.0


# rules broken in every way a user's can be: none of them may come out "ok"
BROKEN = {
    "grad raises": _custom(lambda x: _raise),
    "grad returns None": _custom(lambda x: lambda dy: None),
    "grad returns a string": _custom(lambda x: lambda dy: "abc"),
    "grad returns two for one input": _custom(lambda x: lambda dy: (dy, dy)),
    "grad of the wrong shape": _custom(lambda x: lambda dy: fg.ones([3]) * dy),
    "grad off by a factor": _custom(lambda x: lambda dy: dy * 3 * x),
    "grad ignores dy": _custom(lambda x: lambda dy: 2 * x),
    "grad is nan": _custom(lambda x: lambda dy: dy * np.nan),
    "value is nan": _custom(lambda x: lambda dy: dy * 2 * x, value=lambda x: x * np.nan),
    "value is inf": _custom(lambda x: lambda dy: dy * 2 * x, value=lambda x: x / 0.0),
    "returns NumPy": lambda x: np.ones(3),
    "returns a string": lambda x: "s",
    "second element not callable": _second_not_callable,
}


@_FEW
@given(name=st.sampled_from(sorted(BROKEN)), lo=st.floats(-50, 49), width=st.floats(0.5, 50),
       order=st.sampled_from([1, 2]), dtype=st.sampled_from(["float32", "float64"]),
       shape=st.sampled_from([None, (), (2,)]))
def test_broken_rules_are_never_ok(name, lo, width, order, dtype, shape):
    try:
        report = fg.testing.sweep(BROKEN[name], interval=(lo, lo + width), points=15,
                                  order=order, dtype=dtype, shape=shape)
    except RuntimeError as e:       # the user's own exception, unchanged
        assert "the user's own grad failed" in str(e)
        return
    except Exception as e:      # any other kind is the defect looked for
        assert _clear(e), f"{name}: {type(e).__name__}: {e}"
        return
    assert not report.ok, f"{name} passed: {report.verdict()}"


@_FEW
@given(lo=numbers, hi=numbers, points=st.integers(-2, 30), rtol=numbers)
def test_cli_hostile_options_exit_2_with_a_message(lo, hi, points, rtol):
    out, err = io.StringIO(), io.StringIO()
    args = ["check", "finegrad.stable:log1pexp", "--range", f"{lo!r}:{hi!r}", "--points",
            str(points), "--rtol", repr(rtol), "-q"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as e:      # argparse's own usage errors
            status = e.code
    valid = np.isfinite(lo) and np.isfinite(hi) and lo < hi and points >= 3 and \
        np.isfinite(rtol) and rtol > 0
    if not valid:
        assert status == 2 and err.getvalue().strip(), (args, out.getvalue())
        assert "Traceback" not in err.getvalue()
    elif status == 2:   # a valid range that overflows the dtype: nothing to compare
        assert "nothing was compared" in err.getvalue() + out.getvalue(), args
        assert max(abs(lo), abs(hi)) > np.finfo(np.float32).max / 2
    else:
        assert status in (0, 1), (args, err.getvalue())
        assert ("ok:" in out.getvalue()) == (status == 0)

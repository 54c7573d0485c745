"""`finegrad check` and `finegrad.testing.sweep` say "ok" only when something was compared
and agreed (issue 22, cause 9): rtol nan or negative, an infinite range, a function that is
nan everywhere, a target that calls sys.exit on import are exit 2 with a message saying why;
bad sweep() arguments are errors naming finegrad.testing.sweep."""
import numpy as np
import pytest

import finegrad as fg
from finegrad import testing
from finegrad.__main__ import main

NAN_EVERYWHERE = '''
import finegrad as tf

@tf.custom_gradient
def nowhere(x):
    return tf.math.log(-tf.abs(x) - 1.), lambda dy: dy

def square(x):
    return x * x
'''

EXITS = '''
import sys
sys.exit(0)

def square(x):
    return x * x
'''


@pytest.fixture
def rules(tmp_path):
    (tmp_path / "nan_rules.py").write_text(NAN_EVERYWHERE)
    (tmp_path / "exits.py").write_text(EXITS)
    return tmp_path


def _check(capsys, *argv):
    status = main(["check", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("argv, message", [
    (["--rtol", "nan"], "--rtol must be a finite number > 0"),
    (["--rtol", "-0.1"], "--rtol must be a finite number > 0"),
    (["--rtol", "inf"], "--rtol must be a finite number > 0"),
    (["--range", "-inf:inf"], "--range must be LO:HI with finite LO < HI"),
    (["--range", "0:inf"], "--range must be LO:HI with finite LO < HI"),
    (["--range", "nan:1"], "--range must be LO:HI with finite LO < HI"),
    (["--points", "100000000000"], "--points must be at most"),
])
def test_arguments_that_compare_nothing_are_usage_errors(capsys, rules, argv, message):
    status, out, err = _check(capsys, f"{rules / 'nan_rules.py'}:square", *argv)
    assert status == 2 and message in err and "ok" not in out


def test_nan_everywhere_is_exit_2_not_ok(capsys, rules):
    status, out, err = _check(capsys, f"{rules / 'nan_rules.py'}:nowhere", "--points", "21")
    assert status == 2
    assert "NOTHING COMPARED" in out and "ok:" not in out
    assert "nothing was compared" in err


def test_target_calling_sys_exit_on_import_is_a_usage_error(capsys, rules):
    status, out, err = _check(capsys, f"{rules / 'exits.py'}:square")
    assert status == 2 and "importing" in err and "SystemExit" in err


def test_a_real_check_still_says_ok(capsys, rules):
    status, out, err = _check(capsys, f"{rules / 'nan_rules.py'}:square", "--points", "21")
    assert status == 0 and "ok:" in out


def test_sweep_report_of_nothing_is_not_ok():
    @fg.custom_gradient
    def nowhere(x):
        return fg.math.log(-fg.abs(x) - 1.), lambda dy: dy

    r = testing.sweep(nowhere, points=11)
    assert r.compared == 0 and not r.ok and not r
    assert "NOTHING COMPARED" in str(r) and "NOTHING COMPARED" in repr(r)
    assert r.to_dict()["compared"] == 0 and r.to_dict()["ok"] is False
    assert testing.sweep(lambda x: x * x, points=11).compared > 0


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(points=0), ValueError, "points must be an int >= 3, got 0"),
    (dict(points=2.5), ValueError, "points must be an int >= 3"),
    (dict(points=10 ** 9), ValueError, "points must be at most"),
    (dict(interval="-1:1"), TypeError, "interval must be a pair of numbers"),
    (dict(interval=(1., -1.)), ValueError, "interval must be finite with lo < hi"),
    (dict(interval=(-np.inf, 1.)), ValueError, "interval must be finite with lo < hi"),
    (dict(dtype="int32"), ValueError, "dtype must be float32 or float64, got 'int32'"),
    (dict(rtol=float("nan")), ValueError, "rtol must be a finite number > 0"),
    (dict(rtol=-1.), ValueError, "rtol must be a finite number > 0"),
])
def test_sweep_argument_errors_name_the_function(kwargs, error, message):
    with pytest.raises(error, match="finegrad.testing.sweep: " + message.replace("(", r"\(")):
        testing.sweep(lambda x: x * x, **kwargs)


def test_sweep_of_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="finegrad.testing.sweep: f must be a function, got "
                                        "float"):
        testing.sweep(3.)


def test_reverse_mode_hint_only_where_forward_mode_failed(capsys, tmp_path):
    (tmp_path / "r.py").write_text('''
import finegrad as tf

@tf.custom_gradient
def not_linear(x):
    return x * x, lambda dy: dy * dy * x
''')
    # forward mode cannot transpose a rule that is not linear in dy: "not available" there,
    # and reverse mode, checked alone, finds the rule wrong
    status, out, _ = _check(capsys, f"{tmp_path / 'r.py'}:not_linear", "--points", "11")
    assert status == 1 and "MISMATCH" in out
    assert "not available in finegrad: the rule is not linear in the upstream gradient" in out
    status, out, err = _check(capsys, f"{tmp_path / 'r.py'}:not_linear", "--points", "11",
                              "--modes", "rev")
    assert status == 1 and "MISMATCH" in out   # the rule itself is wrong in reverse mode

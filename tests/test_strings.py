"""``tf.strings``: values and errors as TensorFlow 2.21 gives them (recorded here; compared
live where TensorFlow is installed), eagerly and inside `finegrad.function`."""
import numpy as np
import pytest

import finegrad as fg
from finegrad.errors import InvalidArgumentError

CASES = {
    "as_string": (lambda T: T.strings.as_string(T.constant([1.5, 2.0])),
                  [b"1.500000", b"2.000000"]),
    "as_string_int": (lambda T: T.as_string(T.constant([3, 4])), [b"3", b"4"]),
    "as_string_bool": (lambda T: T.as_string(T.constant([True, False])), [b"true", b"false"]),
    "as_string_precision": (lambda T: T.strings.as_string(T.constant(1.5), precision=2),
                            b"1.50"),
    "as_string_scientific": (lambda T: T.strings.as_string(T.constant(1.5e10),
                                                           scientific=True), b"1.500000e+10"),
    "as_string_shortest": (lambda T: T.strings.as_string(T.constant([0.1, 100.0, 1e-7]),
                                                         shortest=True),
                           [b"0.1", b"100", b"1e-07"]),
    "as_string_zero_fill": (lambda T: T.strings.as_string(T.constant([7, 42]), width=4,
                                                          fill="0"), [b"0007", b"0042"]),
    "as_string_width": (lambda T: T.strings.as_string(T.constant([7, 42]), width=4),
                        [b"   7", b"  42"]),
    "length": (lambda T: T.strings.length(["héllo", ""]), [6, 0]),
    "length_chars": (lambda T: T.strings.length(["héllo"], unit="UTF8_CHAR"), [5]),
    "upper": (lambda T: T.strings.upper(["abc é"]), ["ABC é".encode()]),
    "lower_scalar": (lambda T: T.strings.lower("ABC"), b"abc"),
    "strip": (lambda T: T.strings.strip([" a b ", "\tx\n"]), [b"a b", b"x"]),
    "join": (lambda T: T.strings.join([["a", "b"], ["c", "d"]], separator="-"),
             [b"a-c", b"b-d"]),
    "join_broadcast": (lambda T: T.strings.join(["a", ["x", "y"]]), [b"ax", b"ay"]),
    "reduce_join_rows": (lambda T: T.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1,
                                                         separator=","), [b"a,b", b"c,d"]),
    "reduce_join_cols": (lambda T: T.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0),
                         [b"ac", b"bd"]),
    "reduce_join_all": (lambda T: T.strings.reduce_join([["a", "b"], ["c", "d"]]), b"abcd"),
    "reduce_join_keepdims": (lambda T: T.strings.reduce_join(
        [["a", "b"], ["c", "d"]], axis=1, keepdims=True), [[b"ab"], [b"cd"]]),
    "to_number": (lambda T: T.strings.to_number(["1.5", "-2", "1e3"]), [1.5, -2., 1000.]),
    "to_number_int": (lambda T: T.strings.to_number(["7", "-3"], T.int32), [7, -3]),
    "regex_replace": (lambda T: T.strings.regex_replace(["a1b22"], r"\d+", "N"), [b"aNbN"]),
    "regex_replace_first": (lambda T: T.strings.regex_replace(["a1b22"], r"\d", "N",
                                                              replace_global=False),
                            [b"aNb22"]),
    "regex_replace_groups": (lambda T: T.strings.regex_replace(["ab"], r"(a)(b)", r"\2\1"),
                             [b"ba"]),
    "regex_full_match": (lambda T: T.strings.regex_full_match(["abc", "ab"], "a.c"),
                         [True, False]),
    "substr": (lambda T: T.strings.substr(["hello", "world"], 1, 3), [b"ell", b"orl"]),
    "substr_from_end": (lambda T: T.strings.substr("hello", -3, 2), b"ll"),
    "substr_past_end": (lambda T: T.strings.substr("hello", 3, 10), b"lo"),
    "in_a_function": (lambda T: T.function(lambda s: T.strings.upper(T.strings.strip(s)))(
        T.constant([" ab ", "c"])), [b"AB", b"C"]),
    "join_in_a_function": (lambda T: T.function(lambda a, b: T.strings.join(
        [a, b], separator="+"))(T.constant(["x", "y"]), T.constant(["1", "2"])),
        [b"x+1", b"y+2"]),
    "to_number_in_a_function": (lambda T: T.function(lambda s: T.strings.to_number(s) * 2.)(
        T.constant(["1.5", "2"])), [3., 4.]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_as_tensorflow(name):
    make, want = CASES[name]
    assert np.asarray(make(fg).numpy()).tolist() == want


def test_recorded_values_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    for name, (make, want) in CASES.items():
        assert np.asarray(make(tf).numpy()).tolist() == want, name


@pytest.mark.parametrize("make, match", [
    (lambda: fg.strings.to_number(["abc"]), "could not correctly convert string: abc"),
    (lambda: fg.strings.to_number(["1.5"], fg.int64), "convert string: 1.5"),
    (lambda: fg.strings.substr("hello", 7, 1), "pos 7 out of range")])
def test_errors_are_tensorflows(make, match):
    with pytest.raises(InvalidArgumentError, match=match):
        make()


def test_non_string_input_is_a_type_error_naming_the_function():
    with pytest.raises(TypeError, match="finegrad.strings.upper: input must be a string"):
        fg.strings.upper(fg.constant([1.]))


def test_a_tf1_graph_of_a_fed_string_placeholder():
    """The graph is built on a made-up empty string, which is no number: the node's result
    stands in while building (its dtype and shape), and each run parses what is fed."""
    v1 = fg.compat.v1
    with fg.Graph().as_default():
        s = v1.placeholder(fg.string, [None])
        n = v1.string_to_number(s) * 2.
        up = fg.strings.upper(s)
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(n, {s: ["1.5", "2"]}), [3., 4.])
            assert sess.run(up, {s: ["ab"]}).tolist() == [b"AB"]
            with pytest.raises(InvalidArgumentError, match="convert string: x"):
                sess.run(n, {s: ["x"]})

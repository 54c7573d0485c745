"""A tensor kept from a trace that raised is out of scope, as one kept from a trace that
finished (issue 22, cause 7)."""
import pytest

import finegrad as fg


# --- a tensor kept from a trace that raised (issue 22, cause 7) --------------------------------

OUT_OF_SCOPE = r"made while '.*' was traced and is out of scope"


def _raising_traces():
    """(name, run(kept)): each run keeps a tensor of a trace, then the trace raises."""
    def plain(kept):
        @fg.function
        def f(x):
            kept.append(x * 2.)
            raise ValueError("boom")
        f(fg.constant(1.))

    def with_signature(kept):
        @fg.function(input_signature=[fg.TensorSpec([None])])
        def f(x):
            kept.append(fg.reduce_sum(x))
            raise ValueError("boom")
        f.get_concrete_function()

    def in_cond_branch(kept):
        def branch(x):
            kept.append(x * 3.)
            raise ValueError("boom")
        fg.function(lambda x: fg.cond(x > 0, lambda: branch(x), lambda: x))(fg.constant(1.))

    def in_while_body(kept):
        def body(i):
            kept.append(i + 1.)
            raise ValueError("boom")
        fg.function(lambda x: fg.while_loop(lambda i: i < 3., body, [x]))(fg.constant(0.))

    def nested_function(kept):
        @fg.function
        def inner(x):
            kept.append(x * 4.)
            raise ValueError("boom")
        fg.function(lambda x: inner(x) + 1.)(fg.constant(1.))

    def python_branch_on_tensor(kept):
        @fg.function
        def f(x):
            kept.append(x * 5.)
            return x if kept[-1] > 0 else -x    # a TypeError: no value while tracing
        f(fg.constant(1.))

    def vectorized_map(kept):
        def fn(r):
            kept.append(r * 2.)
            raise ValueError("boom")
        fg.vectorized_map(fn, fg.constant([1., 2.]))

    def variable_created_again(kept):
        @fg.function
        def f(x):
            kept.append(x + fg.Variable(1.))
            return kept[-1]
        f(fg.constant(1.))

    return {f.__name__: f for f in (plain, with_signature, in_cond_branch, in_while_body,
                                    nested_function, python_branch_on_tensor, vectorized_map,
                                    variable_created_again)}


@pytest.mark.parametrize("name", sorted(_raising_traces()))
def test_tensor_kept_from_a_trace_that_raised_is_out_of_scope(name):
    kept = []
    with pytest.raises(Exception) as info:
        _raising_traces()[name](kept)
    assert not isinstance(info.value, AssertionError)
    assert kept
    for t in kept:
        with pytest.raises(TypeError, match=OUT_OF_SCOPE):
            t + 1.
        with pytest.raises(TypeError, match=OUT_OF_SCOPE):
            t.numpy()

"""Guard tests: every primitive declares, on itself, what the engine needs to know about it.

A primitive's kernel (for compiled graphs), whether it is elementwise, whether its outputs
are always new arrays, and how its outputs' (possibly symbolic) shapes follow from its inputs' are
arguments or decorators of `Primitive`, beside its impl and rules. These tests find a
primitive that lacks a declaration it needs, and a module that keeps primitive names in a
list of its own instead.
"""
import ast
import inspect
import pathlib

import numpy as np
import pytest

import finegrad  # registers every primitive
from finegrad._src import core
from finegrad._src.dims import Dim
from finegrad._src.graph.compile.pipeline import compiled as compiled_form

PRIMS = sorted(core.primitives().items())
KERNELS = [(n, p) for n, p in PRIMS if p.kernel is not None]
PACKAGE = pathlib.Path(finegrad.__file__).parent


def _nin(kernel):
    """How many inputs a kernel takes (a ufunc's nin, or the positional parameters)."""
    if isinstance(kernel, np.ufunc):
        return kernel.nin
    params = inspect.signature(kernel).parameters.values()
    return sum(1 for p in params if p.name != "out" and p.default is p.empty)


def _small_inputs(k):
    rng = np.random.default_rng(0)
    return [rng.uniform(0.1, 0.9, size=(2, 3)) for _ in range(k)]


@pytest.mark.parametrize("name, prim", PRIMS, ids=[n for n, _ in PRIMS])
def test_differentiable_or_declared_not(name, prim):
    """Every primitive is either `def_nondiff` or has both a VJP and a JVP rule."""
    assert prim.impl is not None, f"primitive {name!r} has no impl"
    if not prim.nondiff:
        assert prim.vjp is not None, f"primitive {name!r}: no VJP rule and not def_nondiff"
        assert prim.jvp is not None, f"primitive {name!r}: no JVP rule and not def_nondiff"


@pytest.mark.parametrize("name, prim", PRIMS, ids=[n for n, _ in PRIMS])
def test_plain_ufunc_impl_declares_its_kernel(name, prim):
    """A primitive whose impl is an elementwise NumPy ufunc runs as that ufunc in compiled
    graphs: it must say so with ``kernel=`` (gufuncs such as matmul are not elementwise)."""
    impl = prim.impl
    if isinstance(impl, np.ufunc) and impl.signature is None:
        assert prim.kernel is impl, (f"primitive {name!r}: its impl is the ufunc "
                                     f"{impl.__name__}; declare kernel={impl.__name__}")


@pytest.mark.parametrize("name, prim", KERNELS, ids=[n for n, _ in KERNELS])
def test_kernel_declarations_agree(name, prim):
    """A kernel implies elementwise, fresh and the broadcasting shape rule."""
    assert prim.elementwise, f"primitive {name!r} has a kernel but is not elementwise"
    assert prim.fresh, f"primitive {name!r} has a kernel but is not fresh"
    assert prim.shape_rule is core.broadcast_shape_rule, \
        f"primitive {name!r} has a kernel but not the broadcasting shape rule"
    assert not prim.multiple_results, f"primitive {name!r}: a kernel has one output"


@pytest.mark.parametrize("name, prim", KERNELS, ids=[n for n, _ in KERNELS])
def test_kernel_computes_the_impl(name, prim):
    """The kernel gives the impl's values, returns a new array, and writes into ``out=``."""
    ins = _small_inputs(_nin(prim.kernel))
    want = np.asarray(prim.impl(*ins))
    got = prim.kernel(*ins)
    np.testing.assert_array_equal(got, want, err_msg=f"kernel of {name!r} disagrees with impl")
    assert not any(np.shares_memory(got, x) for x in ins), \
        f"kernel of {name!r} returned (a view of) an input"
    buf = np.empty(want.shape, want.dtype)
    got = prim.kernel(*ins, out=buf)
    assert got is buf, f"kernel of {name!r} did not write into out="
    np.testing.assert_array_equal(buf, want, err_msg=f"kernel of {name!r} with out=")
    # a fused chain passes broadcast scalars beside block arrays: each input a scalar in turn
    for k in range(len(ins)):
        mixed = [x[0, 0] if i == k else x for i, x in enumerate(ins)]
        want = np.asarray(prim.impl(*mixed))
        buf = np.empty(want.shape, want.dtype)
        got = prim.kernel(*mixed, out=buf)
        assert got is buf, f"kernel of {name!r} with a scalar input {k} ignored out="
        np.testing.assert_array_equal(buf, want, err_msg=f"kernel of {name!r}, scalar {k}")


@pytest.mark.parametrize("name, prim", PRIMS, ids=[n for n, _ in PRIMS])
def test_elementwise_follows_broadcasting(name, prim):
    """An elementwise primitive has a shape rule, and it follows NumPy broadcasting of
    symbolic shapes."""
    if not prim.elementwise:
        return
    assert prim.shape_rule is not None, f"elementwise primitive {name!r} has no shape rule"
    if prim.kernel is None:
        return
    n, m = Dim.symbol("n", 2), Dim.symbol("m", 3)
    shapes = [(n, 3), (3,)][:_nin(prim.kernel)]
    assert prim.shape_rule(*shapes) == (n, 3)
    if len(shapes) == 2:   # y's axis 0 is the output's axis 1
        assert prim.shape_rule((2, 1), (m,)) == (2, m)


def _positional_only(fn):
    """The number of inputs of ``fn`` when it takes nothing but positional inputs, else None."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):   # some ufuncs and builtins have no signature
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty for p in params):
        return None
    return len(params)


@pytest.mark.parametrize("name, prim", PRIMS, ids=[n for n, _ in PRIMS])
def test_fresh_elementwise_impl_returns_new_arrays(name, prim):
    """A fresh elementwise primitive run by its impl never returns one of its inputs (checked
    where the impl needs no params; a kernel is checked above)."""
    if not (prim.fresh and prim.elementwise) or prim.kernel is not None:
        return
    k = _positional_only(prim.impl)
    if k is None:
        return
    ins = _small_inputs(k)
    out = prim.impl(*ins)
    assert not any(np.shares_memory(out, x) for x in ins), \
        f"fresh primitive {name!r} returned (a view of) an input"


def test_compiled_steps_have_named_kinds():
    """The executor's steps: kernels into pooled buffers or in place, fused chains, calls."""
    from finegrad._src.graph.compile import fuse

    @finegrad.function
    def f(x, w):
        big = finegrad.math.log(1. + finegrad.exp(x))   # a fused chain (large, elementwise)
        small = finegrad.tanh(w) * 2. + 1.                # kernels on small arrays
        return finegrad.reduce_sum(big) + finegrad.reduce_sum(small)

    x = finegrad.constant(np.zeros(fuse.FUSE_MIN, np.float32))
    w = finegrad.constant(np.ones((4,), np.float32))
    compiled = compiled_form(f.get_concrete_function(x, w).graph)
    kinds = {step.kind for step in compiled.step_records()}
    assert {"fused", "call", "call_into_pool", "inplace", "scalar"} <= kinds, kinds
    assert kinds <= {"call", "scalar", "inplace", "call_into_pool", "multi", "fused"}, kinds
    want = np.log1p(np.exp(np.float32(0))) * fuse.FUSE_MIN + (np.tanh(1.) * 2 + 1) * 4
    for _ in range(3):   # later runs use recycled buffers
        np.testing.assert_allclose(f(x, w).numpy(), want, rtol=1e-5)


def test_undeclared_shape_rule_keeps_the_traced_sizes():
    """A symbolic input of a primitive with no shape rule pins its sizes (a guard): a call
    with another size traces again, and the warning names the primitive."""
    prim = core.get_primitive("random_shuffle")
    assert prim.shape_rule is None

    @finegrad.function(input_signature=[finegrad.TensorSpec([None], finegrad.float32)])
    def f(x):
        return finegrad.sort(finegrad.random.shuffle(x)) * 2.

    np.testing.assert_array_equal(f(finegrad.ones(2)).numpy(), [2., 2.])
    with pytest.warns(UserWarning, match="random_shuffle has no rule for dynamic axes"):
        np.testing.assert_array_equal(f(finegrad.ones(3)).numpy(), [2., 2., 2.])
    assert f.experimental_get_tracing_count() == 2


def test_cond_follows_the_open_sizes_of_its_branches():
    """A cond whose branches were traced in the same polymorphic trace declares their output
    shapes (graph/control.py): one graph serves every size."""
    @finegrad.function(input_signature=[finegrad.TensorSpec([None], finegrad.float32)])
    def f(x):
        return finegrad.cond(finegrad.reduce_sum(x) > 0, lambda: x * 2., lambda: x)

    np.testing.assert_array_equal(f(finegrad.ones(2)).numpy(), [2., 2.])
    np.testing.assert_array_equal(f(finegrad.ones(3)).numpy(), [2., 2., 2.])
    np.testing.assert_array_equal(f(-finegrad.ones(4)).numpy(), [-1., -1., -1., -1.])
    assert f.experimental_get_tracing_count() == 1


def test_while_loop_follows_the_open_sizes_of_its_variables():
    """A while_loop whose condition and body were traced in the same polymorphic trace keeps
    its loop variables' open sizes (graph/control.py): one graph serves every size."""
    @finegrad.function(input_signature=[finegrad.TensorSpec([None], finegrad.float32)])
    def f(x):
        return finegrad.while_loop(lambda v: finegrad.reduce_sum(v) < 10., lambda v: v * 2.,
                                   [x])[0]

    np.testing.assert_array_equal(f(finegrad.ones(2)).numpy(), [8., 8.])
    np.testing.assert_array_equal(f(finegrad.ones(3)).numpy(), [4., 4., 4.])
    assert f.experimental_get_tracing_count() == 1


def test_declarations_count():
    """Sanity: the declarations are there (a guard that finds nothing guards nothing)."""
    assert len(KERNELS) >= 18
    assert sum(p.shape_rule is not None for _, p in PRIMS) >= 85
    assert sum(p.fresh for _, p in PRIMS) >= 33


# --- no module keeps its own list of primitive names -----------------------------------------

def _strings(node):
    """String constants inside a literal collection (and words of ``"a b c".split()``)."""
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.extend(sub.value.split())
    return out


def _collections(tree):
    """Module-level assigned values that are (or build) sets, lists, tuples or dicts."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            value = stmt.value
            if isinstance(value, (ast.Set, ast.List, ast.Tuple, ast.Dict, ast.Call,
                                  ast.Attribute)):
                yield stmt.lineno, value
        elif isinstance(stmt, ast.For):
            yield stmt.lineno, stmt.iter


def _primitive_name_lists(source):
    names = set(core.primitives())
    found = []
    for lineno, value in _collections(ast.parse(source)):
        hits = sorted({s for s in _strings(value) if s in names})
        if len(hits) >= 3:
            found.append((lineno, hits))
    return found


# keras.ops's name tables (which Keras function takes which calling convention) name Keras's
# functions, not finegrad's primitives, though many of the names coincide
# tables of Keras's own names (keras.ops functions, the Python operators Keras 3 saves as op
# classes), not of finegrad's primitives
_KERAS_OPS_TABLES = {"_src/backends/elementwise.py", "_src/backends/keras_names.py",
                     "_src/backends/keras_signatures.py", "_src/keras/model_config.py",
                     # (TensorFlow 1's public names and their TF2 paths)
                     "_src/v1/aliases.py"}


def test_no_module_keeps_a_list_of_primitive_names():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() in _KERAS_OPS_TABLES:
            continue
        for lineno, hits in _primitive_name_lists(path.read_text()):
            bad.append(f"{path.relative_to(PACKAGE.parent)}:{lineno}: {', '.join(hits[:6])}")
    assert not bad, "module-level collections of primitive names (declare on the " \
                    "primitive instead):\n" + "\n".join(bad)


def test_name_list_detector_finds_one():
    """The detector above does find the kinds of lists it forbids."""
    assert _primitive_name_lists('FRESH = {"matmul", "divide", "softmax"}\n')
    assert _primitive_name_lists('_EW = ("exp log sin cos").split()\n')
    assert _primitive_name_lists('for _n in ("reduce_sum", "reduce_max", "reduce_min"):\n'
                                 '    pass\n')
    assert not _primitive_name_lists('__all__ = ["exp", "log", "sin"]\n')

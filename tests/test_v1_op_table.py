"""Graph mode as one more mode of the op table: every row of tests/op_specs.py built in a TF1
graph on placeholders and run by a Session gives the eager values, and `gradients` in the
graph gives the eager tape's gradients (the same rules, now as graph nodes)."""
import zlib

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest

from op_specs import SPECS

v1 = fg.compat.v1


def _case(spec):
    shapes = spec.cases()[-1]          # the largest (broadcasting) case of the row
    label = f"{spec.label}-" + "&".join(str(tuple(s)) for s in shapes)
    return spec.make_args(shapes, seed=zlib.crc32(label.encode())), label


def _eager(spec, args):
    xs = [fg.constant(a) for a in args]
    with fg.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        out = spec(*xs)
        leaves = [o for o in nest.flatten(out) if o.dtype.is_floating]
        total = fg.add_n([fg.reduce_sum(o) for o in leaves]) if leaves else None
    grads = tape.gradient(total, xs) if total is not None else [None] * len(xs)
    return [o.numpy() for o in nest.flatten(out)], grads


def _dense(value):
    """A fetched gradient as an array: a gather's is TF1's IndexedSlicesValue."""
    if isinstance(value, v1.IndexedSlicesValue):
        dense = np.zeros(value.dense_shape, value.values.dtype)
        np.add.at(dense, value.indices, value.values)
        return dense
    return value


@pytest.mark.parametrize("spec", SPECS, ids=[s.label for s in SPECS])
def test_op_table_row_in_a_session(spec):
    args, label = _case(spec)
    want, want_grads = _eager(spec, args)
    g = fg.Graph()
    with g.as_default():
        phs = [v1.placeholder(fg.float64, np.shape(a)) for a in args]
        out = spec(*phs)
        leaves = nest.flatten(out)
        floats = [o for o in leaves if o.dtype.is_floating]
        grads = v1.gradients(fg.add_n([fg.reduce_sum(o) for o in floats]), phs) if floats \
            else [None] * len(phs)
    fetch = leaves + [x for x in grads if x is not None]
    with v1.Session(graph=g) as sess:
        got = sess.run(fetch, dict(zip(phs, args, strict=True)))
    for w, v in zip(want, got[:len(leaves)], strict=True):
        np.testing.assert_allclose(v, w, rtol=1e-12, atol=1e-12, err_msg=label)
    it = iter(got[len(leaves):])
    for wg, gg in zip(want_grads, grads, strict=True):
        assert (wg is None) == (gg is None), label
        if wg is not None:
            np.testing.assert_allclose(_dense(next(it)), fg.convert_to_tensor(wg).numpy(),
                                       rtol=1e-10, atol=1e-12, err_msg=label)

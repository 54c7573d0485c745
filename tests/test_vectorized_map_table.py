"""Every row of the op table (tests/op_specs.py) through `vectorized_map`: over a batch of
three examples, with every input batched and with only the first one batched (the others
shared by every slice), the values and the reverse-mode gradients must equal those of the
per-slice loop (`map_fn`). This checks each primitive's batching rule (`def_vmap`) on the
shapes and params the table gives, and the per-slice fallback of those without one."""
import warnings
import zlib

import numpy as np
import pytest

import finegrad as fg
from finegrad._src import nest

from op_specs import SPECS

CASES = [(spec, shapes) for spec in SPECS for shapes in spec.cases()]


def _id(spec, shapes):
    return f"{spec.label}-{','.join(str(s) for s in shapes)}"


def _stacked(spec, shapes, seed):
    """One stacked batch of three examples per argument."""
    rows = [spec.make_args(shapes, seed=seed + k) for k in range(3)]
    return [np.stack([r[i] for r in rows]) for i in range(len(shapes))]


def _run(mapper, spec, batched, shared):
    xs = [fg.constant(x) for x in batched]
    ys = [fg.constant(y) for y in shared]
    with fg.GradientTape() as tape:
        tape.watch(xs + ys)
        out = mapper(lambda a: spec(*a, *ys), tuple(xs))
        flat = [o for o in nest.flatten(out) if o.dtype.is_floating or o.dtype.is_complex]
        total = sum(fg.reduce_sum(fg.math.real(o) * np.cos(np.arange(o.shape.num_elements())
                                                           .reshape(o.shape)))
                    for o in flat) if flat else None
    grads = tape.gradient(total, xs + ys) if total is not None else []
    return nest.flatten(out), grads


@pytest.mark.parametrize("spec, shapes", CASES, ids=[_id(s, sh) for s, sh in CASES])
def test_vectorized_map_equals_the_loop(spec, shapes):
    seed = zlib.crc32(_id(spec, shapes).encode())
    full = _stacked(spec, shapes, seed)
    firsts = spec.make_args(shapes, seed=seed)
    variants = [(full, [])]
    if len(shapes) > 1:
        variants.append((full[:1], firsts[1:]))
    for batched, shared in variants:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _run(fg.vectorized_map, spec, batched, shared)
        want = _run(fg.map_fn, spec, batched, shared)
        for a, b in zip(nest.flatten(got), nest.flatten(want), strict=True):
            if a is None or b is None:
                assert a is None and b is None
                continue
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-9)

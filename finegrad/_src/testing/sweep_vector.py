"""Sweeping functions of vector and matrix inputs (`finegrad.testing.sweep` with ``shape=``).

Each input is an array, and the sweep goes along lines of the input space: random segments of
the box (``x = a + (t - lo) / (hi - lo) (b - a)`` with ``a``, ``b`` random points of
[lo, hi]^n and ``t`` over [lo, hi]) and, for the chosen ``elements``, coordinate lines (that
element over [lo, hi], the others at a random base point). Along a line the function is a
function of ``t``, ``g(t) = <w, f(p + t d)>`` (``w`` a fixed random weighting of a non-scalar
output), written with the rule's own framework's tensors (`frameworks.arrays`), so the scalar
sweep checks the rule's derivative along ``d`` (reverse: ``<grad, d>``; forward: the JVP
along ``d``; order 2: ``d'Hd``) through that framework's autodiff. Where a line fails at
order 1, the rule's whole gradient at its worst point is compared element by element with
float64 finite differences: the report names the wrong elements.
"""
import numpy as np

from finegrad._src.testing.frameworks import arrays

# a function that is not elementwise on vectors, checked without a shape, gets this one
DEFAULT_SHAPE = (3,)


def input_shapes(shape, n, where="finegrad.testing.sweep"):
    """One shape per input: ``shape`` is one shape for every input or a list of shapes, one
    per input (``()`` for a scalar); None stays None (scalar inputs)."""
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(shape)
        if all(isinstance(s, (int, np.integer)) for s in shape):
            shapes = [tuple(int(s) for s in shape)] * n
        else:
            shapes = [(int(s),) if isinstance(s, (int, np.integer)) else
                      tuple(int(v) for v in s) for s in shape]
    except (TypeError, ValueError):
        raise TypeError(f"{where}: shape must be a shape such as (3, 4), or one per input, "
                        f"got {shape!r:.60}") from None
    if len(shapes) != n or any(d < 1 for s in shapes for d in s):
        raise ValueError(f"{where}: shape must be one shape with dimensions >= 1, or one per "
                         f"input ({n}), got {shape!r:.60}")
    return shapes


def element_indices(elements, shapes, where="finegrad.testing.sweep"):
    """The flat indices of ``elements``: None (none), "all", or a list of flat indices and
    index tuples (of the largest input)."""
    if elements is None:
        return []
    largest = max(shapes, key=lambda s: int(np.prod(s)))
    size = int(np.prod(largest))
    if isinstance(elements, str):
        if elements != "all":
            raise ValueError(f"{where}: elements must be 'all' or a list of indices, got "
                             f"{elements!r:.40}")
        return list(range(size))
    out = []
    for e in elements:
        try:
            j = int(e) if np.ndim(e) == 0 else int(np.ravel_multi_index(tuple(e), largest))
        except (TypeError, ValueError):
            j = -1
        if not 0 <= j < size:
            raise ValueError(f"{where}: element {e!r} is not an index of shape {largest}")
        out.append(j)
    return out


def lines(shapes, interval, elements, n_random, dtype, seed=0, base=None):
    """``[(label, ps, ds)]``: the lines of the sweep, ``x_k = ps[k] + t ds[k]``, with ``ps``
    and ``ds`` rounded to ``dtype`` (so the points the rule sees are on the line). The
    coordinate lines go through ``base`` (one array per input; default: random)."""
    lo, hi = interval
    rng = np.random.default_rng(seed)

    def exact(a):
        return np.asarray(np.asarray(a, dtype), np.float64)
    base = [exact(rng.uniform(lo, hi, s)) for s in shapes] if base is None else \
        [exact(b) for b in base]
    out = []
    for i in range(n_random):
        a = [exact(rng.uniform(lo, hi, s)) for s in shapes]
        b = [exact(rng.uniform(lo, hi, s)) for s in shapes]
        ds = [exact((bk - ak) / (hi - lo)) for ak, bk in zip(a, b, strict=True)]
        out.append((f"random line {i + 1}",
                    [exact(ak - lo * dk) for ak, dk in zip(a, ds, strict=True)], ds))
    for j in elements:
        ps, ds = [], []
        for s, bk in zip(shapes, base, strict=True):
            dk, pk = np.zeros(s), bk.copy()
            if j < dk.size:
                dk.flat[j], pk.flat[j] = 1.0, 0.0
            ps.append(pk)
            ds.append(dk)
        out.append((f"element {_index(j, max(shapes, key=lambda s: int(np.prod(s))))}", ps,
                    ds))
    return out


def base_arrays(base, shapes, where="finegrad.testing.sweep"):
    """``base`` as one array per input of ``shapes`` (None stays None): a number, one array
    for every input, or a list of them."""
    if base is None:
        return None
    items = list(base) if isinstance(base, (list, tuple)) and len(base) == len(shapes) and \
        all(np.shape(b) == s for b, s in zip(base, shapes, strict=True)) else [base] * len(shapes)
    out = [np.full(s, float(b)) if np.ndim(b) == 0 else np.asarray(b, np.float64)
           for b, s in zip(items, shapes, strict=True)]     # a number: every element
    if any(b.shape != s for b, s in zip(out, shapes, strict=True)):
        raise ValueError(f"{where}: base must be an array of the inputs' shape {shapes[0]} (or "
                         f"one per input), got shape {[b.shape for b in out]}")
    return out


def _index(j, shape):
    idx = np.unravel_index(j, shape) if shape else ()
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def probe_shape(fn, framework, n, interval, dtype):
    """None when ``fn`` takes scalars (it fails on vectors, or acts on each element alone),
    else `DEFAULT_SHAPE`: a function that reduces or mixes a vector's elements, which a sweep
    of scalars would check vacuously."""
    lo, hi = interval
    xs = [np.linspace(lo + 0.21 * (hi - lo), hi - 0.33 * (hi - lo), DEFAULT_SHAPE[0]) + 0.1 * k
          for k in range(n)]
    try:
        y = arrays.value_at(fn, framework, xs, dtype)
    except Exception:   # written for scalars
        return None
    if isinstance(y, list) or np.shape(y) != DEFAULT_SHAPE:
        return DEFAULT_SHAPE
    try:
        each = [arrays.value_at(fn, framework, [x[i] for x in xs], dtype)
                for i in range(DEFAULT_SHAPE[0])]
        same = np.allclose(y, np.asarray(each, np.float64).reshape(y.shape), rtol=1e-5,
                           atol=0.0, equal_nan=True)
    except Exception:   # a function of vectors only
        return DEFAULT_SHAPE
    return None if same else DEFAULT_SHAPE


def wrong_elements(fn, framework, xs, dtype, rtol, floor):
    """Per input, ``[(index, rule, expected)]`` of the elements whose gradient (of the
    weighted scalar ``fn``, see `arrays.weighted`) is off by more than ``rtol`` at ``xs``,
    against float64 central differences."""
    got = arrays.gradient_at(fn, framework, xs, dtype)
    eps = np.finfo(np.float64).eps
    out = []
    for k, x in enumerate(xs):
        expected = np.zeros(x.shape)
        noise = np.zeros(x.shape)
        for j in range(x.size):
            d1, r1 = _difference(fn, framework, xs, k, j, 6e-6)
            d2, _ = _difference(fn, framework, xs, k, j, 1.2e-5)
            expected.flat[j], noise.flat[j] = d1, max(r1 * eps, abs(d1 - d2))
        scale = max(float(np.max(np.abs(expected), initial=0.0)), 1e-300)
        denom = np.maximum(np.abs(expected), floor * scale)
        rel = np.maximum(np.abs(got[k] - expected) - noise, 0.0) / denom
        bad = np.flatnonzero((rel > rtol) | (~np.isfinite(got[k]) & np.isfinite(expected)))
        out.append([(_index(j, x.shape), float(got[k].flat[j]), float(expected.flat[j]))
                    for j in bad])
    return out


def wrong_shapes(fn, framework, shapes, names, interval, dtype, seed=0):
    """``["d/dbeta has shape () where beta has shape (2,)", ...]``: the inputs whose
    gradient (of the weighted scalar ``fn``, at a random point of the box) does not have the
    input's shape, as a rule that forgets to reduce over broadcast dimensions gives. Empty
    when every shape is right, or when the gradient cannot be taken there (the sweep says
    why)."""
    rng = np.random.default_rng([seed, 7])
    xs = [rng.uniform(interval[0], interval[1], s) for s in shapes]
    try:
        got = arrays.gradient_at(fn, framework, xs, dtype, keep_shape=True)
    except Exception:   # the lines' sweep reports it
        return []
    return [f"d/d{n} has shape {_shape_text(np.shape(g))} where {n} has shape "
            f"{_shape_text(s)}" for n, g, s in zip(names, got, shapes, strict=True)
            if np.shape(g) != tuple(s)]


def _shape_text(s):
    return "(" + ", ".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def _difference(fn, framework, xs, k, j, step):
    h = step * max(1.0, abs(float(xs[k].flat[j])))

    def at(s):
        moved = [x.copy() for x in xs]
        moved[k].flat[j] += s
        return float(arrays.value_at(fn, framework, moved))
    fp, fm = at(h), at(-h)
    return (fp - fm) / (2 * h), 4 * (abs(fp) + abs(fm)) / (2 * h)

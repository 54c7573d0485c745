"""Calls of `keras.ops`'s function transformations (``jvp``, ``vectorize``, ``vectorized_map``,
``map``, ``associative_scan``), each a function of the ops module (``keras.ops`` or
``finegrad.ops``), for tests/test_ops_functional.py. Run as a script under
``KERAS_BACKEND=...`` it pickles Keras's values of every call (one process per backend)."""
import pickle
import sys

import numpy as np

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]], np.float32)
Y = np.array([[1.1, 0.5, -0.7], [-0.2, 0.9, 2.0]], np.float32)
T = np.array([[1.0, 0.5, -1.0], [0.25, 2.0, 1.0]], np.float32)
V = np.array([0.5, 2.0, 1.5, 3.0, 0.25], np.float32)
B = np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 4.0


def _t(m, *arrays):
    """The arrays as the backend's tensors (Keras's torch and tensorflow jvp and torch
    vectorized_map refuse NumPy arrays)."""
    return tuple(m.convert_to_tensor(a) for a in arrays)


def _jvp_two(m):
    return m.jvp(lambda a, b: m.sin(a) * b + a, _t(m, X, Y), _t(m, T, T * 2.0))


def _jvp_aux(m):
    return m.jvp(lambda a: (m.sum(a * a), a * 3.0), _t(m, X), _t(m, T), has_aux=True)


CASES = {
    "jvp": lambda m: m.jvp(lambda a: m.tanh(a) * a, _t(m, X), _t(m, T)),
    "jvp two inputs": _jvp_two,
    "jvp tuple output": lambda m: m.jvp(lambda a: (m.exp(a), m.sum(a, axis=0)), _t(m, X),
                                      _t(m, T)),
    "jvp has_aux": _jvp_aux,
    "vectorize": lambda m: m.vectorize(lambda a, b: a * b + 1.0)(X, Y),
    "vectorize signature": lambda m: m.vectorize(lambda v: m.sum(v * v),
                                                 signature="(n)->()")(X),
    "vectorize matrix signature": lambda m: m.vectorize(lambda a: m.matmul(a, a),
                                                        signature="(n,n)->(n,n)")(B),
    "vectorized_map": lambda m: m.vectorized_map(lambda r: m.matmul(r, r), _t(m, B)[0]),
    "vectorized_map tuple": lambda m: m.vectorized_map(lambda e: e[0] * e[1], _t(m, X, Y)),
    "map": lambda m: m.map(lambda r: m.sum(r * r), X),
    "map tuple": lambda m: m.map(lambda e: e[0] - e[1], (X, Y)),
    "associative_scan add": lambda m: m.associative_scan(m.add, V),
    "associative_scan reverse": lambda m: m.associative_scan(m.add, V, reverse=True),
    "associative_scan max axis 1": lambda m: m.associative_scan(m.maximum, X, axis=1),
    "associative_scan multiply": lambda m: m.associative_scan(lambda a, b: a * b, V),
    "associative_scan pair": lambda m: m.associative_scan(
        lambda a, b: (a[0] + b[0], a[1] * b[1]), (V, V)),
}


def _numpy(x, convert):
    if isinstance(x, (list, tuple)):
        return tuple(_numpy(v, convert) for v in x)
    return np.asarray(convert(x))


def main(path):
    import keras
    out = {}
    for name, call in CASES.items():
        try:
            out[name] = _numpy(call(keras.ops), keras.ops.convert_to_numpy)
        except Exception as e:      # recorded: where Keras fails, the test says so
            out[name] = ("raises", f"{type(e).__name__}: {e}"[:300])
    with open(path, "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])

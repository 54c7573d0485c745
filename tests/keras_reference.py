"""Keras's own values for the calls of tests/ops_cases.py: run as a script under a
``KERAS_BACKEND``, it pickles ``{(name, i): value}`` to the path given (values as NumPy
arrays, nested as Keras returned them; ``("raises", exception type name)`` where Keras
raised). Keras fixes its backend at import, hence a subprocess per backend."""
import pickle
import sys


def _numpy(x, keras):
    if isinstance(x, (list, tuple)):
        return type(x)(_numpy(v, keras) for v in x)
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    import numpy as np
    return np.asarray(keras.ops.convert_to_numpy(x))


def main(path):
    import keras
    import ops_cases
    out = {}
    for name, calls in ops_cases.CASES.items():
        fn = keras.ops
        for part in name.split("."):
            fn = getattr(fn, part)
        for i, (args, kwargs) in enumerate(calls):
            try:
                out[name, i] = _numpy(fn(*args, **kwargs), keras)
            except Exception as e:  # (recorded, compared by type)
                out[name, i] = ("raises", type(e).__name__)
    with open(path, "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])

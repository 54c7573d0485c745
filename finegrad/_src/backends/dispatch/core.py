"""Keras 3's `keras.ops` core group: control flow, scatter, slicing, dtypes (and `rearrange`).

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on


def associative_scan(f: Any, elems: TensorLike, reverse: Any = False, axis: Any = 0) -> Any:
    """Keras 3's `keras.ops.associative_scan` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 3.0, 4.0], 'float32')
    >>> ops.convert_to_numpy(ops.associative_scan(ops.add, x))
    array([ 1.,  3.,  6., 10.], dtype=float32)
    """
    return _on(elems).associative_scan(f, elems, reverse, axis)


def cast(x: TensorLike, dtype: Any) -> Any:
    """``x`` converted to ``dtype`` (a name such as ``"float32"``).

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.cast([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 'int32'))
    array([[ 1, -1,  0],
           [-1,  1,  0]], dtype=int32)
    """
    return _on(x).cast(x, dtype)


def cond(pred: TensorLike, true_fn: Any, false_fn: Any) -> Any:
    """Keras 3's `keras.ops.cond` on the active backend.

    >>> from finegrad import ops
    >>> ops.cond(True, lambda: 1.0, lambda: 0.0)
    1.0
    """
    return _on(pred).cond(pred, true_fn, false_fn)


def fori_loop(lower: TensorLike, upper: TensorLike, body_fun: Any, init_val: Any) -> Any:
    """Keras 3's `keras.ops.fori_loop` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.fori_loop(0, 4, lambda i, s: s + i, 0))
    array(6, dtype=int32)
    """
    return _on(lower, upper, body_fun, init_val).fori_loop(lower, upper, body_fun, init_val)


def map(f: Any, xs: TensorLike) -> Any:
    """Keras 3's `keras.ops.map` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 3.0], 'float32')
    >>> ops.convert_to_numpy(ops.map(lambda v: v * 2.0, x))
    array([2., 4., 6.], dtype=float32)
    """
    return _on(xs).map(f, xs)


def rearrange(tensor: TensorLike, pattern: Any, **axes_lengths: Any) -> Any:
    """Keras 3's `keras.ops.rearrange` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 30, dtype='float32').reshape((2, 5, 3))
    >>> ops.rearrange(x, 'b w c -> b (w c)').shape
    TensorShape([2, 15])
    """
    return _on(tensor).rearrange(tensor, pattern, **axes_lengths)


def saturate_cast(x: TensorLike, dtype: Any) -> Any:
    """Keras 3's `keras.ops.saturate_cast` on the active backend.

    >>> from finegrad import ops
    >>> x = [[286.0, -373.2, 183.8], [-259.40002, 290.59998, 33.199997]]
    >>> ops.convert_to_numpy(ops.saturate_cast(x, 'int8'))
    array([[ 127, -128,  127],
           [-128,  127,   33]], dtype=int8)
    """
    return _on(x).saturate_cast(x, dtype)


def scan(
    f: Any,
    init: TensorLike,
    xs: TensorLike | None = None,
    length: Any = None,
    reverse: Any = False,
    unroll: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.scan` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 3.0], 'float32')
    >>> [tuple(t.shape) for t in ops.scan(lambda c, v: (c + v, c * v), 0.0, x)]
    [(), (3,)]
    """
    return _on(init, xs, length).scan(f, init, xs, length, reverse, unroll)


def scatter(indices: TensorLike, values: TensorLike, shape: Any) -> Any:
    """Keras 3's `keras.ops.scatter` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.scatter([[0, 1], [1, 2]], [0.3, 0.1], (2, 3)))
    array([[0. , 0.3, 0. ],
           [0. , 0. , 0.1]], dtype=float32)
    """
    return _on(indices, values).scatter(indices, values, shape)


def scatter_update(
    inputs: TensorLike,
    indices: TensorLike,
    updates: TensorLike,
    reduction: Any = None,
) -> Any:
    """Keras 3's `keras.ops.scatter_update` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[0, 1]]
    >>> z = [0.3]
    >>> ops.convert_to_numpy(ops.scatter_update(x, y, z))
    array([[ 1.43 ,  0.3  ,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(inputs, indices, updates, reduction).scatter_update(
        inputs, indices, updates, reduction
    )


def slice(inputs: TensorLike, start_indices: TensorLike, shape: Any) -> Any:
    """Keras 3's `keras.ops.slice` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.slice(x, (0, 1), (2, 2)))
    array([[-1.866,  0.919],
           [ 1.453,  0.166]], dtype=float32)
    """
    return _on(inputs, start_indices).slice(inputs, start_indices, shape)


def slice_update(inputs: TensorLike, start_indices: TensorLike, updates: TensorLike) -> Any:
    """Keras 3's `keras.ops.slice_update` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[0.61, 0.316]]
    >>> ops.convert_to_numpy(ops.slice_update(x, (1, 1), y))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  0.61 ,  0.316]], dtype=float32)
    """
    return _on(inputs, start_indices, updates).slice_update(inputs, start_indices, updates)


def stop_gradient(variable: Any) -> Any:
    """``x``, through which no gradient flows.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.stop_gradient([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 1.43 , -1.866,  0.919],
           [-1.297,  1.453,  0.166]], dtype=float32)
    """
    return _on(variable).stop_gradient(variable)


def switch(index: Any, branches: Any, *operands: Any) -> Any:
    """Keras 3's `keras.ops.switch` on the active backend.

    >>> from finegrad import ops
    >>> ops.switch(1, [lambda v: v + 1.0, lambda v: v * 10.0], 2.0)
    20.0
    """
    return _on(index, branches, *operands).switch(index, branches, *operands)


def unstack(x: TensorLike, num: Any = None, axis: Any = 0) -> Any:
    """Keras 3's `keras.ops.unstack` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.unstack([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]])]
    [(3,), (3,)]
    """
    return _on(x, num).unstack(x, num, axis)


def vectorized_map(function: Any, elements: TensorLike) -> Any:
    """Keras 3's `keras.ops.vectorized_map` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], 'float32')
    >>> ops.convert_to_numpy(ops.vectorized_map(ops.sum, x))
    array([3., 7.], dtype=float32)
    """
    return _on(function, elements).vectorized_map(function, elements)


def while_loop(cond: Any, body: Any, loop_vars: Any, maximum_iterations: Any = None) -> Any:
    """Keras 3's `keras.ops.while_loop` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.while_loop(lambda i: i < 10, lambda i: i * 2, 1))
    array(16, dtype=int32)
    """
    return _on(loop_vars, maximum_iterations).while_loop(cond, body, loop_vars, maximum_iterations)

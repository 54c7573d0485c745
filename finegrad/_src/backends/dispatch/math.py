"""Keras 3's `keras.ops` math group: FFTs, segment reductions, top_k, special functions.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on


def cdist(x: TensorLike, y: TensorLike) -> Any:
    """Keras 3's `keras.ops.cdist` on the active backend.

    >>> from finegrad import ops
    >>> x = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> y = [[-0.801, -0.309, -1.887], [-1.503, 0.682, 0.589]]
    >>> ops.convert_to_numpy(ops.cdist(x, y))
    array([[3.908356  , 3.8991914 ],
           [2.7505398 , 0.90321976]], dtype=float32)
    """
    return _on(x, y).cdist(x, y)


def erf(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.erf` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.erf([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[ 0.95685726, -0.991683  ,  0.80628324],
           [-0.9333809 ,  0.96010673,  0.18560456]], dtype=float32)
    """
    return _on(x).erf(x)


def erfc(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.erfc` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.erfc([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array([[0.04314274, 1.991683  , 0.19371676],
           [1.9333808 , 0.03989327, 0.8143954 ]], dtype=float32)
    """
    return _on(x).erfc(x)


def erfinv(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.erfinv` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.erfinv([[0.61, 0.316, 0.133], [0.113, 0.751, 0.83]]))
    array([[0.6078413 , 0.28780016, 0.1184194 ],
           [0.10048078, 0.8151397 , 0.9702946 ]], dtype=float32)
    """
    return _on(x).erfinv(x)


def extract_sequences(x: TensorLike, sequence_length: Any, sequence_stride: Any) -> Any:
    """Keras 3's `keras.ops.extract_sequences` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.extract_sequences([0.3, 0.1, 0.7, 0.2], 2, 1))
    array([[0.3, 0.1],
           [0.1, 0.7],
           [0.7, 0.2]], dtype=float32)
    """
    return _on(x, sequence_length, sequence_stride).extract_sequences(
        x, sequence_length, sequence_stride
    )


def fft(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.fft` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.fft(([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]))]
    [(4,), (4,)]
    """
    return _on(x).fft(x)


def fft2(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.fft2` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.fft2(([[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]))]
    [(2, 2), (2, 2)]
    """
    return _on(x).fft2(x)


def ifft2(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.ifft2` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.ifft2(([[4.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]))]
    [(2, 2), (2, 2)]
    """
    return _on(x).ifft2(x)


def in_top_k(targets: TensorLike, predictions: TensorLike, k: Any) -> Any:
    """Keras 3's `keras.ops.in_top_k` on the active backend.

    >>> from finegrad import ops
    >>> x = [0, 2]
    >>> y = [[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]
    >>> ops.convert_to_numpy(ops.in_top_k(x, y, 1))
    array([ True, False])
    """
    return _on(targets, predictions, k).in_top_k(targets, predictions, k)


def irfft(x: TensorLike, fft_length: Any = None) -> Any:
    """Keras 3's `keras.ops.irfft` on the active backend.

    >>> from finegrad import ops
    >>> ops.irfft(([0.3, 0.1, 0.7], [0.0, 0.0, 0.0])).shape
    TensorShape([4])
    """
    return _on(x, fft_length).irfft(x, fft_length)


def istft(
    x: TensorLike,
    sequence_length: Any,
    sequence_stride: Any,
    fft_length: Any,
    length: Any = None,
    window: Any = "hann",
    center: Any = True,
) -> Any:
    """Keras 3's `keras.ops.istft` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> spectrum = ops.stft(np.ones(16, 'float32'), 8, 4, 8)
    >>> ops.istft(spectrum, 8, 4, 8).shape
    TensorShape([16])
    """
    return _on(x, sequence_length, sequence_stride, fft_length, length).istft(
        x, sequence_length, sequence_stride, fft_length, length, window, center
    )


def logdet(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.logdet` on the active backend.

    >>> from finegrad import ops
    >>> ops.logdet([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]]).shape
    TensorShape([])
    """
    return _on(x).logdet(x)


def logsumexp(x: TensorLike, axis: Any = None, keepdims: Any = False) -> Any:
    """log(sum(exp(x))) over ``axis``, computed stably.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.logsumexp([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]]))
    array(2.5313187, dtype=float32)
    """
    return _on(x).logsumexp(x, axis, keepdims)


def rfft(x: TensorLike, fft_length: Any = None) -> Any:
    """Keras 3's `keras.ops.rfft` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.rfft([0.3, 0.1, 0.7, 0.2])]
    [(3,), (3,)]
    """
    return _on(x, fft_length).rfft(x, fft_length)


def rsqrt(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.rsqrt` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.rsqrt([[1.61, 1.316, 1.133], [1.113, 1.7509999, 1.8299999]]))
    array([[0.78811044, 0.87171006, 0.9394746 ],
           [0.94787794, 0.7557131 , 0.73922133]], dtype=float32)
    """
    return _on(x).rsqrt(x)


def segment_max(
    data: TensorLike,
    segment_ids: TensorLike,
    num_segments: Any = None,
    sorted: Any = False,
) -> Any:
    """Keras 3's `keras.ops.segment_max` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.segment_max([0.3, 0.1, 0.7, 0.2], [0, 0, 1, 1], num_segments=2))
    array([0.3, 0.7], dtype=float32)
    """
    return _on(data, segment_ids, num_segments).segment_max(data, segment_ids, num_segments, sorted)


def segment_min(
    data: TensorLike,
    segment_ids: TensorLike,
    num_segments: Any = None,
    sorted: Any = False,
) -> Any:
    """Keras 3's `keras.ops.segment_min` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.segment_min([0.3, 0.1, 0.7, 0.2], [0, 0, 1, 1], num_segments=2))
    array([0.1, 0.2], dtype=float32)
    """
    return _on(data, segment_ids, num_segments).segment_min(data, segment_ids, num_segments, sorted)


def segment_prod(
    data: TensorLike,
    segment_ids: TensorLike,
    num_segments: Any = None,
    sorted: Any = False,
) -> Any:
    """Keras 3's `keras.ops.segment_prod` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.segment_prod([0.3, 0.1, 0.7, 0.2], [0, 0, 1, 1], num_segments=2))
    array([0.03, 0.14], dtype=float32)
    """
    return _on(data, segment_ids, num_segments).segment_prod(
        data, segment_ids, num_segments, sorted
    )


def segment_sum(
    data: TensorLike,
    segment_ids: TensorLike,
    num_segments: Any = None,
    sorted: Any = False,
) -> Any:
    """Keras 3's `keras.ops.segment_sum` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.segment_sum([0.3, 0.1, 0.7, 0.2], [0, 0, 1, 1], num_segments=2))
    array([0.4, 0.9], dtype=float32)
    """
    return _on(data, segment_ids, num_segments).segment_sum(data, segment_ids, num_segments, sorted)


def stft(
    x: TensorLike,
    sequence_length: Any,
    sequence_stride: Any,
    fft_length: Any,
    window: Any = "hann",
    center: Any = True,
) -> Any:
    """Keras 3's `keras.ops.stft` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 16, dtype='float32').reshape((16,))
    >>> [tuple(t.shape) for t in ops.stft(x, 6, 3, 8)]
    [(6, 5), (6, 5)]
    """
    return _on(x, sequence_length, sequence_stride, fft_length).stft(
        x, sequence_length, sequence_stride, fft_length, window, center
    )


def top_k(x: TensorLike, k: Any, sorted: Any = True) -> Any:
    """Keras 3's `keras.ops.top_k` on the active backend.

    >>> from finegrad import ops
    >>> [tuple(t.shape) for t in ops.top_k([[1.43, -1.866, 0.919], [-1.297, 1.453, 0.166]], 2)]
    [(2, 2), (2, 2)]
    """
    return _on(x, k).top_k(x, k, sorted)


def view_as_complex(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.view_as_complex` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 12, dtype='float32').reshape((2, 3, 2))
    >>> ops.convert_to_numpy(ops.view_as_complex(x))
    array([[0.1       +0.17272727j, 0.24545455+0.3181818j ,
            0.3909091 +0.46363637j],
           [0.53636366+0.6090909j , 0.6818182 +0.75454545j,
            0.8272727 +0.9j       ]], dtype=complex64)
    """
    return _on(x).view_as_complex(x)


def view_as_real(x: TensorLike) -> Any:
    """Keras 3's `keras.ops.view_as_real` on the active backend.

    >>> from finegrad import ops
    >>> ops.convert_to_numpy(ops.view_as_real([(1+2j)]))
    array([[1., 2.]])
    """
    return _on(x).view_as_real(x)

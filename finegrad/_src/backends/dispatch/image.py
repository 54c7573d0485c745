"""`keras.ops.image`: resizing, patches, colour spaces, affine transforms.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from typing import Any

from finegrad._src.types import TensorLike

from finegrad._src.backends.dispatch.selection import on as _on


def affine_transform(
    images: TensorLike,
    transform: TensorLike,
    interpolation: Any = "bilinear",
    fill_mode: Any = "constant",
    fill_value: Any = 0,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.affine_transform` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images = np.ones((1, 4, 4, 1), 'float32')
    >>> shift = [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.0, 0.0]
    >>> ops.image.affine_transform(images, shift).shape
    TensorShape([1, 4, 4, 1])
    """
    return _on(images, transform).image_affine_transform(
        images, transform, interpolation, fill_mode, fill_value, data_format
    )


def crop_images(
    images: TensorLike,
    top_cropping: Any = None,
    left_cropping: Any = None,
    bottom_cropping: Any = None,
    right_cropping: Any = None,
    target_height: Any = None,
    target_width: Any = None,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.crop_images` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images = np.ones((1, 4, 4, 3), 'float32')
    >>> ops.image.crop_images(images, 1, 1, target_height=2, target_width=2).shape
    TensorShape([1, 2, 2, 3])
    """
    return _on(
        images,
        top_cropping,
        left_cropping,
        bottom_cropping,
        right_cropping,
        target_height,
        target_width,
    ).image_crop_images(
        images,
        top_cropping,
        left_cropping,
        bottom_cropping,
        right_cropping,
        target_height,
        target_width,
        data_format,
    )


def elastic_transform(
    images: TensorLike,
    alpha: TensorLike = 20.0,
    sigma: Any = 5.0,
    interpolation: Any = "bilinear",
    fill_mode: Any = "reflect",
    fill_value: Any = 0.0,
    seed: Any = None,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.elastic_transform` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images = np.ones((1, 8, 8, 3), 'float32')
    >>> ops.image.elastic_transform(images, seed=0).shape
    TensorShape([1, 8, 8, 3])
    """
    return _on(images, seed).image_elastic_transform(
        images, alpha, sigma, interpolation, fill_mode, fill_value, seed, data_format
    )


def extract_patches(
    images: TensorLike,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: Any = "valid",
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.extract_patches` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.image.extract_patches(x, 2).shape
    TensorShape([1, 2, 3, 12])
    """
    return _on(images, size).image_extract_patches(
        images, size, strides, dilation_rate, padding, data_format
    )


def extract_patches_3d(
    volumes: TensorLike,
    size: Any,
    strides: Any = None,
    dilation_rate: Any = 1,
    padding: Any = "valid",
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.extract_patches_3d` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> volumes = np.ones((1, 4, 4, 4, 1), 'float32')
    >>> ops.image.extract_patches_3d(volumes, 2).shape
    TensorShape([1, 2, 2, 2, 8])
    """
    return _on(volumes, size).image_extract_patches_3d(
        volumes, size, strides, dilation_rate, padding, data_format
    )


def gaussian_blur(
    images: TensorLike,
    kernel_size: Any = (3, 3),
    sigma: Any = (1.0, 1.0),
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.gaussian_blur` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.image.gaussian_blur(np.ones((1, 5, 5, 3), 'float32')).shape
    TensorShape([1, 5, 5, 3])
    """
    return _on(images).image_gaussian_blur(images, kernel_size, sigma, data_format)


def hsv_to_rgb(images: TensorLike, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.image.hsv_to_rgb` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.image.hsv_to_rgb(x).shape
    TensorShape([1, 4, 6, 3])
    """
    return _on(images).image_hsv_to_rgb(images, data_format)


def map_coordinates(
    inputs: TensorLike,
    coordinates: TensorLike,
    order: Any,
    fill_mode: Any = "constant",
    fill_value: Any = 0,
) -> Any:
    """Keras 3's `keras.ops.image.map_coordinates` on the active backend.

    >>> from finegrad import ops
    >>> image = [[0.0, 1.0], [2.0, 3.0]]
    >>> ops.convert_to_numpy(ops.image.map_coordinates(image, [[0.5], [0.5]], 1))
    array([1.5], dtype=float32)
    """
    return _on(inputs, coordinates).image_map_coordinates(
        inputs, coordinates, order, fill_mode, fill_value
    )


def pad_images(
    images: TensorLike,
    top_padding: Any = None,
    left_padding: Any = None,
    bottom_padding: Any = None,
    right_padding: Any = None,
    target_height: Any = None,
    target_width: Any = None,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.pad_images` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images = np.ones((1, 4, 4, 3), 'float32')
    >>> ops.image.pad_images(images, 1, 1, target_height=6, target_width=6).shape
    TensorShape([1, 6, 6, 3])
    """
    return _on(
        images,
        top_padding,
        left_padding,
        bottom_padding,
        right_padding,
        target_height,
        target_width,
    ).image_pad_images(
        images,
        top_padding,
        left_padding,
        bottom_padding,
        right_padding,
        target_height,
        target_width,
        data_format,
    )


def perspective_transform(
    images: TensorLike,
    start_points: TensorLike,
    end_points: TensorLike,
    interpolation: Any = "bilinear",
    fill_value: Any = 0,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.perspective_transform` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images = np.ones((1, 4, 4, 1), 'float32')
    >>> corners = [[0, 0], [3, 0], [3, 3], [0, 3]]
    >>> ops.image.perspective_transform(images, corners, corners).shape
    TensorShape([1, 4, 4, 1])
    """
    return _on(images, start_points, end_points).image_perspective_transform(
        images, start_points, end_points, interpolation, fill_value, data_format
    )


def resize(
    images: TensorLike,
    size: Any,
    interpolation: Any = "bilinear",
    antialias: Any = False,
    crop_to_aspect_ratio: Any = False,
    pad_to_aspect_ratio: Any = False,
    fill_mode: Any = "constant",
    fill_value: Any = 0.0,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.resize` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.image.resize(x, (2, 3)).shape
    TensorShape([1, 2, 3, 3])
    """
    return _on(images, size).image_resize(
        images,
        size,
        interpolation,
        antialias,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        fill_mode,
        fill_value,
        data_format,
    )


def rgb_to_grayscale(images: TensorLike, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.image.rgb_to_grayscale` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.image.rgb_to_grayscale(x).shape
    TensorShape([1, 4, 6, 1])
    """
    return _on(images).image_rgb_to_grayscale(images, data_format)


def rgb_to_hsv(images: TensorLike, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.image.rgb_to_hsv` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> x = np.linspace(0.1, 0.9, 72, dtype='float32').reshape((1, 4, 6, 3))
    >>> ops.image.rgb_to_hsv(x).shape
    TensorShape([1, 4, 6, 3])
    """
    return _on(images).image_rgb_to_hsv(images, data_format)


def scale_and_translate(
    images: TensorLike,
    output_shape: Any,
    scale: TensorLike,
    translation: Any,
    spatial_dims: Any,
    method: Any,
    antialias: Any = True,
) -> Any:
    """Keras 3's `keras.ops.image.scale_and_translate` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> images, size = np.ones((1, 2, 2, 1), 'float32'), (1, 4, 4, 1)
    >>> ops.image.scale_and_translate(images, size, [2, 2], [0, 0], (1, 2), 'bilinear').shape
    TensorShape([1, 4, 4, 1])
    """
    return _on(
        images, output_shape, scale, translation, spatial_dims, method
    ).image_scale_and_translate(
        images, output_shape, scale, translation, spatial_dims, method, antialias
    )


def sobel_edges(images: TensorLike, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.image.sobel_edges` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> ops.image.sobel_edges(np.ones((1, 3, 3, 1), 'float32')).shape
    TensorShape([1, 3, 3, 1, 2])
    """
    return _on(images).image_sobel_edges(images, data_format)


def ssim(
    image1: TensorLike,
    image2: TensorLike,
    max_val: Any = 1.0,
    filter_size: Any = 11,
    filter_sigma: Any = 1.5,
    k1: Any = 0.01,
    k2: Any = 0.03,
    data_format: Any = None,
) -> Any:
    """Keras 3's `keras.ops.image.ssim` on the active backend.

    >>> from finegrad import ops
    >>> import numpy as np
    >>> image = np.ones((16, 16, 1), 'float32')
    >>> ops.convert_to_numpy(ops.image.ssim(image, image))
    array(1., dtype=float32)
    """
    return _on(image1, image2).image_ssim(
        image1, image2, max_val, filter_size, filter_sigma, k1, k2, data_format
    )

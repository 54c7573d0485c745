"""`keras.ops.image`: resizing, patches, colour spaces, affine transforms.

Generated from Keras 3.15's signatures (argument names and defaults); each function
dispatches to the active backend (`finegrad._src.backends`).
"""

from finegrad._src.backends.dispatch.selection import on as _on


def affine_transform(
    images,
    transform,
    interpolation="bilinear",
    fill_mode="constant",
    fill_value=0,
    data_format=None,
):
    """Keras 3's `keras.ops.image.affine_transform` on the active backend."""
    return _on(images, transform).image_affine_transform(
        images, transform, interpolation, fill_mode, fill_value, data_format
    )


def crop_images(
    images,
    top_cropping=None,
    left_cropping=None,
    bottom_cropping=None,
    right_cropping=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """Keras 3's `keras.ops.image.crop_images` on the active backend."""
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
    images,
    alpha=20.0,
    sigma=5.0,
    interpolation="bilinear",
    fill_mode="reflect",
    fill_value=0.0,
    seed=None,
    data_format=None,
):
    """Keras 3's `keras.ops.image.elastic_transform` on the active backend."""
    return _on(images, seed).image_elastic_transform(
        images, alpha, sigma, interpolation, fill_mode, fill_value, seed, data_format
    )


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Keras 3's `keras.ops.image.extract_patches` on the active backend."""
    return _on(images, size).image_extract_patches(
        images, size, strides, dilation_rate, padding, data_format
    )


def extract_patches_3d(
    volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None
):
    """Keras 3's `keras.ops.image.extract_patches_3d` on the active backend."""
    return _on(volumes, size).image_extract_patches_3d(
        volumes, size, strides, dilation_rate, padding, data_format
    )


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Keras 3's `keras.ops.image.gaussian_blur` on the active backend."""
    return _on(images).image_gaussian_blur(images, kernel_size, sigma, data_format)


def hsv_to_rgb(images, data_format=None):
    """Keras 3's `keras.ops.image.hsv_to_rgb` on the active backend."""
    return _on(images).image_hsv_to_rgb(images, data_format)


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Keras 3's `keras.ops.image.map_coordinates` on the active backend."""
    return _on(inputs, coordinates).image_map_coordinates(
        inputs, coordinates, order, fill_mode, fill_value
    )


def pad_images(
    images,
    top_padding=None,
    left_padding=None,
    bottom_padding=None,
    right_padding=None,
    target_height=None,
    target_width=None,
    data_format=None,
):
    """Keras 3's `keras.ops.image.pad_images` on the active backend."""
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
    images, start_points, end_points, interpolation="bilinear", fill_value=0, data_format=None
):
    """Keras 3's `keras.ops.image.perspective_transform` on the active backend."""
    return _on(images, start_points, end_points).image_perspective_transform(
        images, start_points, end_points, interpolation, fill_value, data_format
    )


def resize(
    images,
    size,
    interpolation="bilinear",
    antialias=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    fill_mode="constant",
    fill_value=0.0,
    data_format=None,
):
    """Keras 3's `keras.ops.image.resize` on the active backend."""
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


def rgb_to_grayscale(images, data_format=None):
    """Keras 3's `keras.ops.image.rgb_to_grayscale` on the active backend."""
    return _on(images).image_rgb_to_grayscale(images, data_format)


def rgb_to_hsv(images, data_format=None):
    """Keras 3's `keras.ops.image.rgb_to_hsv` on the active backend."""
    return _on(images).image_rgb_to_hsv(images, data_format)


def scale_and_translate(
    images, output_shape, scale, translation, spatial_dims, method, antialias=True
):
    """Keras 3's `keras.ops.image.scale_and_translate` on the active backend."""
    return _on(
        images, output_shape, scale, translation, spatial_dims, method
    ).image_scale_and_translate(
        images, output_shape, scale, translation, spatial_dims, method, antialias
    )


def sobel_edges(images, data_format=None):
    """Keras 3's `keras.ops.image.sobel_edges` on the active backend."""
    return _on(images).image_sobel_edges(images, data_format)


def ssim(
    image1,
    image2,
    max_val=1.0,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    data_format=None,
):
    """Keras 3's `keras.ops.image.ssim` on the active backend."""
    return _on(image1, image2).image_ssim(
        image1, image2, max_val, filter_size, filter_sigma, k1, k2, data_format
    )

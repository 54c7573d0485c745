"""Keras 3's `keras.ops.image` namespace on the active backend (see `finegrad.ops`)."""
from finegrad._src.backends.dispatch.image import (  # noqa: F401
    affine_transform, crop_images, elastic_transform, extract_patches, extract_patches_3d,
    gaussian_blur, hsv_to_rgb, map_coordinates, pad_images, perspective_transform, resize,
    rgb_to_grayscale, rgb_to_hsv, scale_and_translate, sobel_edges, ssim)

__all__ = """
affine_transform crop_images elastic_transform extract_patches extract_patches_3d
gaussian_blur hsv_to_rgb map_coordinates pad_images perspective_transform resize
rgb_to_grayscale rgb_to_hsv scale_and_translate sobel_edges ssim
""".split()

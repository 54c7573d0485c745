"""TensorFlow's ``tf.image`` namespace: resizing, flips and crops, color adjustments, image
statistics and patches, each written with finegrad ops (so differentiable where TF's are)."""

from finegrad._src.ops.image.resize import ResizeMethod, resize
from finegrad._src.ops.image.geometry import (flip_left_right, flip_up_down, transpose, rot90,
                                              crop_to_bounding_box, pad_to_bounding_box,
                                              central_crop, resize_with_crop_or_pad)
from finegrad._src.ops.image.color import (convert_image_dtype, rgb_to_grayscale,
                                           grayscale_to_rgb, adjust_brightness, adjust_gamma,
                                           rgb_to_hsv, hsv_to_rgb)
from finegrad._src.ops.image.quality import (per_image_standardization, total_variation, psnr,
                                             ssim)
from finegrad._src.ops.image.adjust_hsv import adjust_contrast, adjust_saturation, adjust_hue
from finegrad._src.ops.image.patches import image_gradients, sobel_edges, extract_patches
from finegrad._src.ops.image.augmentation import (
    stateless_random_flip_left_right, stateless_random_flip_up_down, random_flip_left_right,
    random_flip_up_down,
    stateless_random_brightness, random_brightness, stateless_random_contrast, random_contrast,
    stateless_random_saturation, stateless_random_hue, stateless_random_crop,
    random_saturation, random_hue, random_crop)

__all__ = ["ResizeMethod", "resize", "flip_left_right", "flip_up_down", "transpose", "rot90",
           "crop_to_bounding_box", "pad_to_bounding_box", "central_crop",
           "resize_with_crop_or_pad", "convert_image_dtype", "rgb_to_grayscale",
           "grayscale_to_rgb", "adjust_brightness", "adjust_gamma", "per_image_standardization",
           "total_variation", "psnr", "image_gradients", "sobel_edges", "adjust_contrast",
           "adjust_saturation", "adjust_hue", "rgb_to_hsv", "hsv_to_rgb",
           "extract_patches", "ssim",
           "stateless_random_flip_left_right",
           "stateless_random_flip_up_down",
           "random_flip_left_right",
           "random_flip_up_down",
           "stateless_random_brightness",
           "random_brightness",
           "stateless_random_contrast",
           "random_contrast",
           "stateless_random_saturation",
           "stateless_random_hue",
           "stateless_random_crop", "random_saturation", "random_hue", "random_crop"]

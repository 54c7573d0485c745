"""Numerically stable functions with custom gradients (``finegrad.stable``)."""
from finegrad._src.ad.stable import (log1pexp, softplus, log_sigmoid, logsumexp, safe_sqrt,
                                  safe_norm, safe_divide, clip_gradient, scale_gradient,
                                  gradient_reversal, straight_through_round)

__all__ = ["log1pexp", "softplus", "log_sigmoid", "logsumexp", "safe_sqrt", "safe_norm",
           "safe_divide", "clip_gradient", "scale_gradient", "gradient_reversal",
           "straight_through_round"]

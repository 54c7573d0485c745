"""``tf.math``'s special functions (TensorFlow's ``special_math_ops``): the error and gamma
functions, polygamma, xlogy (`error_and_gamma`), ndtri, the modified Bessel functions, the
Hurwitz zeta function and the incomplete beta function (`bessel_zeta_beta`), the incomplete
gamma functions (`igamma`), each primitive beside its float64 NumPy kernels
(`erf_gamma_kernels`, `bessel_zeta_kernels`, `igamma_kernels`: SciPy is not a runtime
dependency).
"""
from finegrad._src.ops.special import (erf_gamma_kernels, bessel_zeta_kernels,  # noqa: F401
                                       igamma_kernels, error_and_gamma, bessel_zeta_beta, igamma)

"""TensorFlow's ``tf.math.special`` namespace (``finegrad.math.special``): the modified Bessel
functions also found in ``tf.math``. TensorFlow's other entries there (bessel_j0/j1/y0/y1,
bessel_k0/k1 and their scaled forms, dawsn, expint, fresnel_cos/sin, spence) are not
implemented yet.

>>> import finegrad as fg
>>> round(float(fg.math.special.bessel_i0(fg.constant(0., fg.float64))), 12)
1.0
"""
from finegrad._src.ops.special.bessel_zeta_beta import (bessel_i0, bessel_i0e,
                                                        bessel_i1, bessel_i1e)

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]

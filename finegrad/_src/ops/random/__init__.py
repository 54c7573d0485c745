"""``tf.random``: where random values come from (`streams`: the streams, the global seed and
the random primitives), TensorFlow's Philox counter-based generator (`philox`), the sampling
functions (`sampling`: normal, uniform, shuffle, categorical and their stateless forms),
``tf.random.Generator`` (`generator`) and the gamma and Poisson samplers (`gamma`).
"""
from finegrad._src.ops.random import philox, streams, sampling, generator, gamma  # noqa: F401

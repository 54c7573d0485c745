"""``tf.initializers``: TensorFlow 2.21's alias of Keras 3's ``keras.initializers``."""
from finegrad.keras.initializers import (
    Initializer, Zeros, Ones, Constant, Identity, IdentityInitializer, RandomNormal,
    RandomUniform, TruncatedNormal, VarianceScaling, GlorotUniform, GlorotNormal, HeUniform,
    HeNormal, LecunUniform, LecunNormal, Orthogonal, OrthogonalInitializer, serialize,
    deserialize, get, zeros, ones, constant, identity, random_normal, random_uniform,
    truncated_normal, variance_scaling, glorot_uniform, glorot_normal, he_uniform, he_normal,
    lecun_uniform, lecun_normal, orthogonal)

__all__ = [
    "Initializer", "Zeros", "Ones", "Constant", "Identity", "IdentityInitializer",
    "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling", "GlorotUniform",
    "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform", "LecunNormal", "Orthogonal",
    "OrthogonalInitializer", "serialize", "deserialize", "get", "zeros", "ones", "constant",
    "identity", "random_normal", "random_uniform", "truncated_normal", "variance_scaling",
    "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "lecun_uniform",
    "lecun_normal", "orthogonal"]

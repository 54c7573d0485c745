"""Op-table entries of the tf.random family (ops/random/): its primitives draw random values
and carry no gradient (finite differences would redraw). The gamma sampler's implicit
gradient is checked through its ``gamma_sample_grad`` row in op_specs_special.py and in
tests/test_random_gamma.py; dropout's mask is a draw, its scaling a multiply.
"""

NONDIFF = ("random", "random_like", "random_poisson", "random_shuffle", "random_categorical",
           "stateless_random", "stateless_categorical", "stateless_poisson")

"""Op-table rows of the random, dropout, convolution and pooling families (kept apart from
op_specs.py, which includes them): `NONDIFF` lists their primitives without a gradient."""

NONDIFF = ("random", "random_shuffle", "random_categorical", "stateless_random",
           "stateless_categorical")

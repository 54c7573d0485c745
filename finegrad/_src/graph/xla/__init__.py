"""XLA through JAX for `function(jit_compile=True)`: a traced graph lowered node by node to
one ``jax.jit`` function (`lower`: each primitive's ``lower_jax``, else a host callback of its
``impl``) and run as one compiled executable per input signature (`executable`)."""

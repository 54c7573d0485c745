"""XLA through JAX for `function(jit_compile=True)`: a traced graph lowered node by node to
one ``jax.jit`` function (`lower`: each primitive's ``lower_jax``, else a host callback of its
``impl``) and run as one compiled executable per input signature (`executable`).

Edge values: nan, inf and signed zeros follow IEEE as in NumPy, but XLA on the CPU flushes
subnormal numbers to zero (inputs and results of arithmetic, float32 and float64: its
runtime sets the processor's flush-to-zero and denormals-are-zero modes, with no switch to
turn them off), as TensorFlow's XLA and JAX do: ``2e-38 * 0.5`` in float32 is 0, where the
uncompiled graph gives 1e-38, and ``log`` of a subnormal is -inf.
"""

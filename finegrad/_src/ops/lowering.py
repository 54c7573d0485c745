"""What the XLA lowerings of primitives (`core.Primitive`'s ``lower_jax``) share: `jnp`, JAX's
NumPy imported on first use, so that op modules import without JAX installed."""


def jnp():
    """``jax.numpy`` (imported when a lowering first runs: JAX is an optional extra)."""
    import jax.numpy
    return jax.numpy

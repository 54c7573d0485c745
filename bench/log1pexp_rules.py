"""The custom log1pexp, log(1 + e^x) with the gradient 1 - 1 / (1 + e^x), written by hand
with each framework's own custom-gradient mechanism, and once with `finegrad.ops`. Benchmark
f (eager.py) times finegrad's against the peers' forms; benchmark h (backends.py) times the
`finegrad.ops` form on each backend against that backend's form here."""


def tf_log1pexp(tf):
    """``tf.custom_gradient`` (finegrad's too: ``tf`` may be finegrad)."""
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    return log1pexp


def torch_log1pexp(torch):
    """A ``torch.autograd.Function`` saving ``e`` for the backward pass (its ``apply``)."""
    class Log1pexp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            e = torch.exp(z)
            ctx.save_for_backward(e)
            return torch.log(1 + e)

        @staticmethod
        def backward(ctx, dy):
            (e,) = ctx.saved_tensors
            return dy * (1 - 1 / (1 + e))
    return Log1pexp.apply


def jax_log1pexp(jax):
    """A ``jax.custom_vjp`` whose residual is ``e``."""
    jnp = jax.numpy

    @jax.custom_vjp
    def log1pexp(z):
        return jnp.log(1 + jnp.exp(z))

    def fwd(z):
        e = jnp.exp(z)
        return jnp.log(1 + e), e

    def bwd(e, dy):
        return (dy * (1 - 1 / (1 + e)),)
    log1pexp.defvjp(fwd, bwd)
    return log1pexp


def ops_log1pexp(ops):
    """Written once with `finegrad.ops`: runs on whichever backend is active at the call."""
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(upstream):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
        return ops.log(1 + e), grad
    return log1pexp

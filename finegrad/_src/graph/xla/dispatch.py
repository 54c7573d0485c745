"""Running compiled programs on the calling thread (JAX's CPU runtime, when finegrad starts it).

JAX's CPU runtime dispatches each program to a thread of its own and returns at once
(asynchronous dispatch), so that Python can go on while the program runs. finegrad reads
every result into NumPy right after the call, so the call waits anyway: it pays two thread
switches (the dispatch and the wake-up) and gains nothing. On the 2-core machine that was
about half of a small program's time: the 200x200 Jacobian of ``tanh(W x)`` took 115 us a
call dispatched and 50 us run inline, against 52 us on finegrad's own executor.

`run_inline` therefore asks JAX for its CPU runtime without asynchronous dispatch
(``jax_cpu_enable_async_dispatch=False``), which JAX reads once, when it starts that runtime:
- only when finegrad is the first to start it (a program that used JAX before keeps the
  runtime it started, and its setting);
- not with ``FINEGRAD_XLA_ASYNC_DISPATCH=1`` in the environment.
Values are the same either way; a program's own JAX code then runs inline too on the CPU
(programs JAX runs in parallel, across CPU devices, are dispatched as before).
"""
import os

_DONE: list[bool] = []


def run_inline():
    """Have JAX start its CPU runtime without asynchronous dispatch, if it has not started
    one yet (once per process; see the module). Returns whether the setting was made."""
    if _DONE:
        return _DONE[0]
    _DONE.append(False)
    if os.environ.get("FINEGRAD_XLA_ASYNC_DISPATCH", "0") == "1":
        return False
    import jax
    try:
        from jax._src import xla_bridge
        started = xla_bridge.backends_are_initialized()
    except (ImportError, AttributeError):   # (a JAX without it: leave its runtime alone)
        return False
    if started:
        return False
    try:
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    except (AttributeError, KeyError, ValueError):   # (a JAX without the option)
        return False
    _DONE[0] = True
    return True

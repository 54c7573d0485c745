"""The ``finegrad`` command: ``python -m finegrad demo`` shows custom gradients at work;
``python -m finegrad check file.py:fn --reference file.py:plain`` checks a custom gradient
over a whole range (``python -m finegrad check --help``); ``finegrad --version`` prints the
version."""
import argparse
import functools
import inspect
import os
import sys
import textwrap

import numpy as np

from finegrad._version import __version__

DEMOS: list = []


BROKEN_PIPE_STATUS = 128 + 13   # 128 + SIGPIPE, as a shell reports a process killed by it


def _quiet_on_broken_pipe(fn):
    """Wraps a command so that a closed stdout ends it quietly with ``BROKEN_PIPE_STATUS``.

    Output piped into a reader that stops early (``python -m finegrad demo | head -3``) ends
    the command with no traceback and exit status 141 (128 + SIGPIPE): the status a shell
    reports for ``cat`` or ``yes`` stopped the same way, so ``set -o pipefail`` still sees it.
    This is the recipe of Python's ``signal`` documentation: flush inside the ``try`` (the
    last write may only happen at the flush), and on ``BrokenPipeError`` point stdout at
    devnull so that the flush at interpreter exit cannot raise again.
    """
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            status = fn(*args, **kwargs)
            sys.stdout.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return BROKEN_PIPE_STATUS
        return status
    return wrapper


def _demo(fn):
    DEMOS.append(fn)
    return fn


@_demo
def plain_log1pexp():
    """The plain composite log(1 + exp(x)) in float32: exp(100) overflows, the gradient is nan."""
    import finegrad as tf

    def log1pexp(x):
        return tf.math.log(1 + tf.exp(x))

    x = tf.constant(100.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    return tape.gradient(y, x).numpy()


@_demo
def custom_log1pexp():
    """The same function with a custom gradient: exactly 1.0."""
    import finegrad as tf

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    return tape.gradient(y, x).numpy()


@_demo
def clip_gradient_by_norm():
    """A custom gradient that clips the upstream gradient's norm to 0.5 (the forward is x)."""
    import finegrad as tf

    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_norm(dy, 0.5)
        return tf.identity(x), grad

    x = tf.constant([3., 4.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clip_gradient(x) * 10.)
    return tape.gradient(y, x).numpy()


@_demo
def variable_in_custom_gradient():
    """A variable read inside a custom-gradient function gets its gradient from grad_fn."""
    import finegrad as tf

    w = tf.Variable(2.)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * w, [dy * x]          # d/dx (w x) = w, d/dw (w x) = x
        return w * x, grad

    x = tf.constant(3.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    dx, dw = tape.gradient(y, [x, w])
    return dx.numpy(), dw.numpy()


def run_demo(out=sys.stdout):
    np.set_printoptions(precision=6)
    for fn in DEMOS:
        src = textwrap.dedent(inspect.getsource(fn)).split("\n", 1)[1]
        body = "\n".join(line for line in src.splitlines() if '"""' not in line)
        print(f"== {fn.__doc__}", file=out)
        print(textwrap.indent(textwrap.dedent(body).strip(), "    "), file=out)
        print(f"-> {fn()!r}\n", file=out)


def run_check(argv):
    """``finegrad check ...``: its own options; returns the exit status (0, 1 or 2)."""
    from finegrad._src.testing.sweep_cli import main as check_main
    return check_main(argv)


@_quiet_on_broken_pipe
def main(argv=None):
    """Runs the ``finegrad`` command on ``argv`` (default ``sys.argv[1:]``); returns the status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check"]:
        return run_check(argv[1:])
    parser = argparse.ArgumentParser(prog="finegrad", description=__doc__)
    parser.add_argument("--version", action="version", version=f"finegrad {__version__}")
    parser.add_argument("command", choices=["demo", "check"], help="what to run")
    args = parser.parse_args(argv)
    if args.command == "demo":
        run_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())

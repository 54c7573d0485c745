"""The ``finegrad`` command: ``python -m finegrad demo`` shows custom gradients at work;
``python -m finegrad check file.py:fn --reference file.py:plain`` checks a custom gradient
over a whole range (``python -m finegrad check --help``). The implementation is
`finegrad._src.testing.command`."""
import sys

from finegrad._src.testing.command import (BROKEN_PIPE_STATUS, DEMOS, clip_gradient_by_norm,
                                           custom_log1pexp, main, plain_log1pexp, run_check,
                                           run_demo, variable_in_custom_gradient)

__all__ = ["BROKEN_PIPE_STATUS", "DEMOS", "clip_gradient_by_norm", "custom_log1pexp", "main",
           "plain_log1pexp", "run_check", "run_demo", "variable_in_custom_gradient"]

if __name__ == "__main__":
    sys.exit(main())

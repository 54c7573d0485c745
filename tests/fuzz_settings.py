"""Hypothesis profiles shared by the fuzz tests (tests/test_fuzz_*.py).

- ``ci`` (the default): 50 examples per property, no deadline, derandomized (the same inputs
  on every run, so CI is reproducible). The 29 properties of tests/test_fuzz_ops.py and
  tests/test_fuzz_tapes.py try 1,436 inputs (28 x 50, and all 36 of the dtype-pair property),
  plus 9 fixed cases, in about 7 s.
- tests/test_fuzz_ops_backends.py (finegrad.ops on the finegrad backend against NumPy/SciPy,
  and on jax/torch/tensorflow against Keras's own) and tests/test_fuzz_check_inputs.py
  (``finegrad check`` fed hostile inputs) use the profile's examples for the finegrad
  properties and a fifth (backends) or a half (check inputs), at least 10, for the
  properties where each example goes through a framework or a whole sweep.
- ``long``: 2,000 examples per property (about 56,000 inputs), random each run, for hand
  runs (several minutes): ``HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz_*.py``.

Count them with ``--hypothesis-show-statistics``.
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True,
                          print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

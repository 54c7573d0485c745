"""Numerical gradient checking, public so users can test their own rules.

`check_gradients` compares finegrad's derivatives with central finite differences (forward
and reverse mode, first and second order); `check_custom_gradient` checks a
`custom_gradient` function's rule against the derivative of its forward computation; `sweep`
compares derivatives over a range of inputs. The implementation is
`finegrad._src.testing.gradient_checks`.
"""
from finegrad._src.testing.assertions import assert_rule, sweep
from finegrad._src.testing.deviations import intended
from finegrad._src.testing.gradient_checks import (CustomGradientReport, InputReport,
                                                   check_custom_gradient, check_gradients,
                                                   numerical_jvp)

__all__ = ["CustomGradientReport", "InputReport", "assert_rule", "check_custom_gradient",
           "check_gradients", "intended", "numerical_jvp", "sweep"]

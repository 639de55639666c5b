"""Test helpers shared by kerasish's own tests and by users' custom layers."""
from kerasish.testing.gradient_check import (check_gradients,
                                             check_second_order,
                                             numerical_gradient)

__all__ = ["check_gradients", "check_second_order", "numerical_gradient"]

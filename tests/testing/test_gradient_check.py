"""kerasish.testing: the finite-difference checkers catch wrong derivatives."""
import numpy as np
import pytest

from kerasish import Variable, ops
from kerasish.autodiff import tape as tape_mod
from kerasish.autodiff.tensor import Tensor
from kerasish.testing import check_gradients, check_second_order, numerical_gradient


def _square_with(backward):
    def op(x):
        out = Tensor(x._value ** 2, x._device)
        if tape_mod._active:
            tape_mod.record("test_square", (x,), (out,), lambda g: (backward(g, x),))
        return out
    return op


def test_correct_gradients_pass_and_return_both_estimates():
    results = check_gradients(lambda a, b: ops.sum(a * b, axis=0), [np.ones((2, 3)), np.arange(3.0)])
    (analytic, numeric), (ga, _) = results
    np.testing.assert_allclose(analytic, numeric, atol=1e-6)
    assert ga.shape == (3,)


def test_wrong_first_order_gradient_is_caught():
    wrong = _square_with(lambda g, x: g * x * 3.0)
    with pytest.raises(AssertionError, match="gradient of input 0 differs"):
        check_gradients(wrong, [np.array([1.0, 2.0])])


def test_raw_backward_is_caught_by_the_second_order_check():
    raw = _square_with(lambda g, x: Tensor(2.0 * x._value * g._value, x._device))
    check_gradients(raw, [np.array([1.0, 2.0])])  # first order is right
    with pytest.raises(AssertionError, match="second-order gradient of input 0 differs"):
        check_second_order(raw, [np.array([1.0, 2.0])])
    check_second_order(_square_with(lambda g, x: g * x * 2.0), [np.array([1.0, 2.0])])


def test_numerical_gradient_and_variables_are_restored():
    v = Variable(np.array([1.0, -2.0]), dtype="float64")
    g = numerical_gradient(lambda v: ops.sum(v ** 3), [v], 0)
    np.testing.assert_allclose(g, 3 * np.array([1.0, 4.0]), rtol=1e-6)
    assert v.numpy().tolist() == [1.0, -2.0]
    check_gradients(lambda v, x: ops.sum(v * x), [v, np.array([3.0, 4.0])], wrt=[0])

"""Python operators on Tensor dispatch to differentiable ops."""
import numpy as np
import pytest

from kerasish import GradientTape, Variable, ops


def test_arithmetic_and_reflected_operators():
    a = ops.convert_to_tensor([1.0, 2.0])
    n = np.array([3.0, 4.0])
    cases = [(a + n, n + 1.0 + 0 * n + 1 - 1 + 0), (n + a, [4, 6]), (a - 1, [0, 1]), (1 - a, [0, -1]),
             (a * 2, [2, 4]), (2 * a, [2, 4]), (a / 2, [0.5, 1]), (2 / a, [2, 1]), (a // 1.5, [0, 1]),
             (a % 1.5, [1, 0.5]), (a ** 2, [1, 4]), (2 ** a, [2, 4]), (-a, [-1, -2]), (+a, [1, 2]),
             (abs(-a), [1, 2]), (n - a, [2, 2]), (n * a, [3, 8]), (n / a, [3, 2])]
    for got, want in cases[1:]:
        np.testing.assert_allclose(got.numpy(), want)
    np.testing.assert_allclose((a + n).numpy(), [4.0, 6.0])
    assert isinstance(n + a, type(a))


def test_comparison_logic_indexing_and_methods():
    a = ops.convert_to_tensor([1.0, 2.0, 3.0])
    assert (a == 2).numpy().tolist() == [False, True, False]
    assert (a != 2).numpy().tolist() == [True, False, True]
    assert ((a > 1) & (a < 3)).numpy().tolist() == [False, True, False]
    assert ((a < 2) | (a > 2)).numpy().tolist() == [True, False, True]
    assert ((a > 1) ^ (a > 2)).numpy().tolist() == [False, True, False]
    assert (~(a > 1)).numpy().tolist() == [True, False, False]
    m = ops.reshape(ops.arange(6.0), (2, 3))
    assert m.T.shape == (3, 2) and m.reshape(3, 2).shape == (3, 2) and m.reshape((6,)).shape == (6,)
    assert m[1, 2].numpy() == 5.0 and len(m) == 2 and [r.shape for r in m] == [(3,), (3,)]
    assert m.astype("int32").dtype == "int32"
    assert hash(a) != hash(ops.convert_to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a > 1)


def test_operators_are_recorded():
    x = ops.convert_to_tensor([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum((x * x + 1 / x) @ ops.ones((2, 2)))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * (2 * x.numpy() - 1 / x.numpy() ** 2))


def test_eager_operators_follow_tensorflows_conversions():
    # Keras 3.15.1 on TensorFlow: a tensor's Python operators are TensorFlow's, which
    # convert a numpy/list operand to the tensor's dtype, and `/` of int32 gives float64.
    t = ops.convert_to_tensor([1.0, 2.0])
    i = ops.convert_to_tensor([1, 2])
    assert (t + np.array([1.0, 2.0])).dtype == "float32"
    assert (np.array([1.0, 2.0]) + t).dtype == "float32" and (t * [2.0, 3.0]).dtype == "float32"
    assert (i + np.array([1, 2])).dtype == "int32" and (t + np.array([1, 2])).dtype == "float32"
    assert (ops.cast(t, "float16") + np.array([1.0, 2.0])).dtype == "float16"
    out = t / np.array([3.0, 3.0])
    assert out.dtype == "float32" and out.numpy().tolist() == [np.float32(1 / 3), np.float32(2 / 3)]
    assert (i / 2).dtype == "float64" and (2 / i).dtype == "float64" and (i / i).dtype == "float64"
    assert (ops.cast(i, "int8") / 2).dtype == "float32" and (t / 2).dtype == "float32"
    assert (i / np.array([2, 2])).numpy().tolist() == [0.5, 1.0]
    # ops functions keep Keras's own promotion
    assert ops.add(t, np.array([1.0, 2.0])).dtype == "float64"
    assert ops.divide(i, 2).dtype == "float32"


def test_round_of_a_variable_is_ops_round_of_its_value():
    # Keras 3.15.1: round(Variable(0.0123456), 3) -> float32 0.012000000104308128,
    # round(v) -> 0.0; a float64 variable [1.26, 2.5] rounds to [1.3, 2.5] and [1., 2.]
    v = Variable(0.0123456)
    assert round(v, 3).dtype == "float32" and float(round(v, 3)) == 0.012000000104308128
    assert float(round(v)) == 0.0
    w = Variable(np.array([1.26, 2.5]))
    assert round(w, 1).numpy().tolist() == [1.3, 2.5] and round(w).numpy().tolist() == [1.0, 2.0]
    assert round(w).dtype == "float64"

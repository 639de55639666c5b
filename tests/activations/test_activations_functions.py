"""Activation values against numpy/scipy references, and their gradients."""
import numpy as np
import pytest
from scipy import special

from kerasish import activations as A, ops
from kerasish.testing import check_gradients

# away from every kink (0, +-3, 6) so finite differences are valid
X = np.array([[-7.5, -3.4, -1.2, -0.4, 0.3], [0.9, 1.7, 2.6, 4.1, 8.2]])

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _np_softplus(x):
    return np.logaddexp(x, 0.0)


REFERENCES = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2))),
    "sigmoid": special.expit,
    "hard_sigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "hard_silu": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "hard_swish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "tanh": np.tanh,
    "softmax": lambda x: special.softmax(x, axis=-1),
    "log_softmax": lambda x: special.log_softmax(x, axis=-1),
    "softplus": _np_softplus,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "silu": lambda x: x * special.expit(x),
    "swish": lambda x: x * special.expit(x),
    "mish": lambda x: x * np.tanh(_np_softplus(x)),
    "exponential": np.exp,
    "linear": lambda x: x,
    "crelu": lambda x: np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis=-1),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_shrink": lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
    "soft_shrink": lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0)),
    "tanh_shrink": lambda x: x - np.tanh(x),
    "squareplus": lambda x: (x + np.sqrt(x ** 2 + 4)) / 2,
    "sparse_plus": lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, 1.0, (x + 1) / 2)),
    "log_sigmoid": lambda x: -np.logaddexp(-x, 0),
    "sparsemax": lambda x: _np_sparsemax(x),
}


def _np_sparsemax(x, axis=-1):
    """Keras 3.15.1's formula (keras/src/backend/numpy/nn.py): unlike Martins & Astudillo
    (2016), tau sums the cumulative sums over the support."""
    z = np.moveaxis(x, axis, -1)
    ordered = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    cumulative = np.cumsum(ordered, axis=-1)
    support = ordered - (cumulative - 1) / k > 0
    size = support.sum(axis=-1, keepdims=True)
    tau = (np.where(support, cumulative, 0.0).sum(axis=-1, keepdims=True) - 1) / size
    return np.moveaxis(np.maximum(z - tau, 0), -1, axis)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_values_match_reference(name):
    got = ops.convert_to_numpy(A.get(name)(ops.convert_to_tensor(X.astype("float32"))))
    np.testing.assert_allclose(got, REFERENCES[name](X), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(set(REFERENCES) - {"linear"}))
def test_gradients_match_finite_differences(name):
    # X's first row puts Keras's sparsemax exactly on a kink (output 0 at -0.4).
    check_gradients(A.get(name), [X if name != "sparsemax" else X + [[0.0, 0, 0, 0.1, 0], [0] * 5]])


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [0.0, 0.0, 0.0, 5.0, 10.0]),
    ({"negative_slope": 0.5}, [-5.0, -2.5, 0.0, 5.0, 10.0]),
    ({"max_value": 5.0}, [0.0, 0.0, 0.0, 5.0, 5.0]),
    ({"threshold": 5.0}, [0.0, 0.0, 0.0, 0.0, 10.0]),
    ({"max_value": 6}, [0.0, 0.0, 0.0, 5.0, 6.0]),
    ({"negative_slope": 0.5, "max_value": 5.0, "threshold": 1.0}, [-5.5, -3.0, -0.5, 5.0, 5.0]),
    ({"negative_slope": 0.1, "threshold": -2.0}, [-0.8, -0.3, 0.0, 5.0, 10.0]),
])
def test_relu_options_follow_keras(kwargs, expected):
    got = A.relu(ops.convert_to_tensor([-10.0, -5.0, 0.0, 5.0, 10.0]), **kwargs)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_relu_threshold_zeros_are_positive_and_nan_is_dropped():
    # Keras 3.15.1 selects (where), so the dropped entries are +0.0 and nan maps to 0:
    # relu([-10, -5, 0, 5, 10, nan], threshold=5) == [0, 0, 0, 0, 10, 0], no sign bits.
    x = ops.convert_to_tensor(np.array([-10.0, -5.0, 0.0, 5.0, 10.0, np.nan], "float32"))
    got = A.relu(x, threshold=5.0).numpy()
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0, 0.0, 10.0, 0.0])
    assert not np.signbit(got).any()


def test_relu_options_gradient():
    x = np.array([-3.3, -0.7, 0.6, 1.8, 4.4, 7.9])
    check_gradients(lambda t: A.relu(t, negative_slope=0.3, max_value=4.0, threshold=1.0), [x])


def test_parameterised_activations():
    x = ops.convert_to_tensor([-2.0, 3.0])
    np.testing.assert_allclose(A.leaky_relu(x, negative_slope=0.5).numpy(), [-1.0, 3.0])
    np.testing.assert_allclose(A.elu(x, alpha=2.0).numpy(), [2 * np.expm1(-2.0), 3.0], rtol=1e-6)
    np.testing.assert_allclose(A.softmax(ops.convert_to_tensor(X), axis=0).numpy(),
                               special.softmax(X, axis=0), rtol=1e-6)
    np.testing.assert_allclose(A.crelu(ops.convert_to_tensor(X), axis=0).numpy(),
                               np.concatenate([np.maximum(X, 0), np.maximum(-X, 0)], axis=0))


def test_gelu_defaults_to_exact_unlike_ops_gelu():
    x = ops.convert_to_tensor([1.5])
    exact = 0.5 * 1.5 * (1 + special.erf(1.5 / np.sqrt(2)))
    tanh_form = 0.5 * 1.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (1.5 + 0.044715 * 1.5 ** 3)))
    np.testing.assert_allclose(A.gelu(x).numpy(), [exact], rtol=1e-6)
    np.testing.assert_allclose(A.gelu(x, approximate=True).numpy(), [tanh_form], rtol=1e-6)
    np.testing.assert_allclose(ops.gelu(x).numpy(), [tanh_form], rtol=1e-6)


def test_softmax_rows_sum_to_one_and_linear_is_identity():
    out = A.softmax(ops.convert_to_tensor(X * 100)).numpy()
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-6)
    t = ops.convert_to_tensor(X)
    assert A.linear(t) is t


def test_new_keras3_parameterised_activations():
    x = ops.convert_to_tensor(X)
    np.testing.assert_allclose(A.celu(x, alpha=2.0).numpy(),
                               np.maximum(X, 0) + 2 * np.expm1(np.minimum(X, 0) / 2), rtol=1e-6)
    np.testing.assert_allclose(A.hard_shrink(x, threshold=2.0).numpy(), np.where(np.abs(X) > 2, X, 0))
    np.testing.assert_allclose(A.soft_shrink(x, threshold=2.0).numpy(),
                               np.sign(X) * np.maximum(np.abs(X) - 2, 0), rtol=1e-6)
    np.testing.assert_allclose(A.squareplus(x, b=1).numpy(), (X + np.sqrt(X ** 2 + 1)) / 2)
    np.testing.assert_allclose(A.threshold(x, 1.0, -5.0).numpy(), np.where(X > 1, X, -5.0))


def test_glu_halves_the_axis_and_checks_its_size():
    x = np.random.RandomState(0).randn(3, 6)
    expected = x[:, :3] * special.expit(x[:, 3:])
    np.testing.assert_allclose(A.glu(ops.convert_to_tensor(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(A.glu(ops.convert_to_tensor(x.T), axis=0).numpy(), expected.T, rtol=1e-6)
    check_gradients(A.glu, [x])
    with pytest.raises(ValueError, match="even size.*Received: x.shape=\\(2, 5\\)"):
        A.glu(ops.ones((2, 5)))


def test_sparsemax_matches_keras_on_ties_and_axis():
    out = A.sparsemax(ops.convert_to_tensor([[2.0, 0.5, 0.0], [1.0, 1.0, 1.0], [0.6, 0.5, -3.0]]))
    # Keras 3.15.1's numbers (its tau: only one-value supports sum to 1).
    np.testing.assert_allclose(out.numpy(), [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.25, 0.15, 0.0]],
                               rtol=1e-6, atol=1e-7)
    x = np.random.RandomState(1).randn(4, 6)
    np.testing.assert_allclose(A.sparsemax(ops.convert_to_tensor(x), axis=0).numpy(),
                               _np_sparsemax(x, axis=0), rtol=1e-6, atol=1e-12)

"""kerasish.ops.nn: activations and softmax against reference formulas and Keras values."""
import math

import numpy as np
import pytest
from scipy import special

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(8)
X = RNG.uniform(-3.0, 3.0, (2, 6))
sig = special.expit

REFS = {
    "relu": lambda x: np.maximum(x, 0), "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": sig, "softplus": lambda x: np.logaddexp(x, 0), "softsign": lambda x: x / (1 + abs(x)),
    "silu": lambda x: x * sig(x), "swish": lambda x: x * sig(x), "log_sigmoid": lambda x: np.log(sig(x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x), "hard_sigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "hard_silu": lambda x: x * np.clip(x / 6 + 0.5, 0, 1), "hard_swish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "celu": lambda x: np.maximum(x, 0) + np.minimum(0, np.expm1(x)), "tanh": np.tanh,
    "mish": lambda x: x * np.tanh(np.logaddexp(x, 0)), "hard_tanh": lambda x: np.clip(x, -1, 1),
    "tanh_shrink": lambda x: x - np.tanh(x), "hard_shrink": lambda x: np.where(abs(x) > 0.5, x, 0),
    "soft_shrink": lambda x: np.sign(x) * np.maximum(abs(x) - 0.5, 0),
    "squareplus": lambda x: (x + np.sqrt(x ** 2 + 4)) / 2,
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "softmax": special.softmax, "log_softmax": special.log_softmax,
}
SMOOTH = ["sigmoid", "softplus", "softsign", "silu", "log_sigmoid", "elu", "selu", "gelu", "celu",
          "mish", "tanh_shrink", "squareplus", "softmax", "log_softmax", "tanh"]


@pytest.mark.parametrize("name", sorted(REFS))
def test_forward_matches_reference(name):
    ref = REFS[name]
    expected = ref(X) if name not in ("softmax", "log_softmax") else ref(X, axis=-1)
    np.testing.assert_allclose(getattr(ops, name)(X).numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFS))
def test_gradient(name):
    x = X + 0.013  # keeps points off the kinks at 0, +-0.5, +-1, +-3, 6
    check_gradients(getattr(ops, name), [x])


@pytest.mark.parametrize("name", SMOOTH)
def test_second_order(name):
    check_second_order(getattr(ops, name), [X[:1, :3]])


def test_keras_defaults_and_arguments():
    x = ops.convert_to_tensor([-1.0, 1.0])
    np.testing.assert_allclose(ops.leaky_relu(x).numpy(), [-0.2, 1.0])
    np.testing.assert_allclose(ops.leaky_relu(x, negative_slope=0.5).numpy(), [-0.5, 1.0])
    np.testing.assert_allclose(ops.gelu(x).numpy(), [-0.158808, 0.841192], rtol=1e-5)  # tanh approx
    np.testing.assert_allclose(ops.gelu(x, approximate=False).numpy(), [-0.158655, 0.841345], rtol=1e-5)
    np.testing.assert_allclose(ops.elu(x, alpha=2.0).numpy(), [2 * np.expm1(-1), 1.0], rtol=1e-6)
    np.testing.assert_allclose(ops.threshold(x, 0.0, -5.0).numpy(), [-5.0, 1.0])
    np.testing.assert_allclose(ops.softmax(X, axis=0).numpy(), special.softmax(X, axis=0))
    np.testing.assert_allclose(ops.softmax(X[None], axis=(1, 2)).numpy(), special.softmax(X[None], axis=(1, 2)))
    assert ops.relu(ops.convert_to_tensor([1, -2])).dtype == "int32"  # as Keras 3.15.1
    assert ops.sigmoid(ops.ones((2,), "float16")).dtype == "float16"


def test_glu_and_sparsemax():
    a, b = X[:, :3], X[:, 3:]
    np.testing.assert_allclose(ops.glu(X).numpy(), a * sig(b))
    check_gradients(ops.glu, [X])
    np.testing.assert_allclose(ops.sparsemax(ops.convert_to_tensor([1.0, 3.0])).numpy(), [0.0, 1.0])
    with pytest.raises(ValueError, match="ops.glu.*even"):
        ops.glu(ops.ones((2, 3)))


def test_sparsemax_matches_keras_threshold():
    # Printed by Keras 3.15.1 (TensorFlow backend; its JAX/numpy backends share the
    # formula): tau sums the cumulative sums over the support, so slices with a support
    # of more than one value do not sum to 1.
    np.testing.assert_allclose(ops.sparsemax(ops.convert_to_tensor([1.0, 1.5])).numpy(), [0, 0])
    x = np.array([[0.5, 0.4, 0.3, -1.0], [2.0, 0.5, 0.0, 0.1]])
    out = ops.sparsemax(x)
    assert out.dtype == "float64"
    np.testing.assert_allclose(out.numpy(), [[0, 0, 0, 0], [1, 0, 0, 0]], atol=1e-12)
    np.testing.assert_allclose(ops.sparsemax(x, axis=0).numpy(),
                               [[0.0, 0.2, 0.5, 0.0], [1.0, 0.3, 0.2, 1.0]], atol=1e-12)
    np.testing.assert_allclose(ops.sparsemax([[0.9, 1.0, 0.0]]).numpy(), [[0.0, 0.05, 0.0]],
                               atol=1e-6)


def test_sigmoid_and_softmax_are_stable_at_extremes():
    big = ops.convert_to_tensor([-1e4, 0.0, 1e4])
    np.testing.assert_allclose(ops.sigmoid(big).numpy(), [0.0, 0.5, 1.0])
    np.testing.assert_allclose(ops.log_sigmoid(big).numpy(), [-1e4, -math.log(2), 0.0])
    np.testing.assert_allclose(ops.softplus(big).numpy(), [0.0, math.log(2), 1e4])
    np.testing.assert_allclose(ops.softmax(big).numpy(), [0.0, 0.0, 1.0])
    np.testing.assert_allclose(ops.log_softmax(big).numpy(), [-2e4, -1e4, 0.0])


@pytest.mark.parametrize("fn, expected", [(ops.relu, [0, 3, 8]), (ops.relu6, [0, 3, 6])])
def test_relu_keeps_int_dtype_as_keras(fn, expected):
    # Keras 3.15.1 (TF): ops.relu / ops.relu6 of an int32 tensor stay int32.
    out = fn(ops.convert_to_tensor([-1, 3, 8]))
    assert out.dtype == "int32" and ops.convert_to_numpy(out).tolist() == expected


def test_hard_sigmoid_is_kerass_relu6_formula():
    # Keras 3.15.1 computes relu6(x + 3) / 6 (values and TensorFlow gradients recorded)
    from kerasish import GradientTape
    x = np.array([1.5669199228286743, 0.7519049644470215, -1.7365437746047974, -0.3, 2.9999,
                  -3.0, 0.1, 1.1], "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.hard_sigmoid(x)), np.array(
        [0.7611532807350159, 0.6253175139427185, 0.21057604253292084, 0.45000001788139343,
         0.9999833106994629, 0.0, 0.5166666507720947, 0.6833333373069763], "float32"))
    xt = ops.convert_to_tensor(x)
    with GradientTape() as tape:
        tape.watch(xt)
        y = ops.multiply(ops.hard_sigmoid(xt),
                         np.array([1.0, 2.0, 3.0, 0.7, 1.3, 1.0, 1.0, 0.3], "float32"))
    np.testing.assert_array_equal(ops.convert_to_numpy(tape.gradient(y, xt)), np.array(
        [0.1666666716337204, 0.3333333432674408, 0.5, 0.11666666716337204,
         0.21666665375232697, 0.0, 0.1666666716337204, 0.05000000074505806], "float32"))

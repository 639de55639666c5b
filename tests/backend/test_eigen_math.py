"""kerasish.backend.kernels.eigen_math: TensorFlow's float32 exp, tanh and sigmoid, bit for bit.

Expected values: TensorFlow 2.21 inside a `tf.function`, recorded by
tests/fixtures/eigen_math/make_eigen_math.py on the same inputs.
"""
import os
import sys

import numpy as np
import pytest

from kerasish import activations, ops
from kerasish.backend.kernels import eigen_math, numpy_kernels

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "eigen_math")
sys.path.insert(0, FIXTURES)
from eigen_math_inputs import SIZES, inputs  # noqa: E402

RECORDED = np.load(os.path.join(FIXTURES, "eigen_math.npz"))
FUNCTIONS = {
    "exp": [lambda x: eigen_math.exp(np, x), lambda x: ops.exp(x).numpy()],
    "tanh": [lambda x: eigen_math.tanh(np, x), lambda x: ops.tanh(x).numpy(),
             lambda x: activations.tanh(ops.convert_to_tensor(x)).numpy()],
    "sigmoid": [numpy_kernels.sigmoid, lambda x: ops.sigmoid(x).numpy(),
                lambda x: activations.sigmoid(ops.convert_to_tensor(x)).numpy()],
}


def _same(got, expected):
    return np.array_equal(got, expected, equal_nan=True) and got.dtype == expected.dtype


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("n", SIZES)
def test_float32_values_are_tensorflows(name, n):
    x = inputs(n)
    for fn in FUNCTIONS[name]:
        got = fn(x)
        assert _same(got, RECORDED[f"{name}_{n}"]), (name, n, np.flatnonzero(got != RECORDED[f"{name}_{n}"])[:5])


def test_numpys_own_functions_differ_so_the_values_are_tested():
    x = inputs(4003)
    with np.errstate(all="ignore"):
        assert not _same(np.exp(x), RECORDED["exp_4003"])
        assert not _same(np.tanh(x), RECORDED["tanh_4003"])


def test_other_dtypes_use_the_array_librarys_functions():
    x = np.linspace(-3, 3, 11)
    np.testing.assert_array_equal(eigen_math.exp(np, x), np.exp(x))
    np.testing.assert_array_equal(eigen_math.tanh(np, x), np.tanh(x))
    assert eigen_math.sigmoid(np, x) is None
    np.testing.assert_allclose(numpy_kernels.sigmoid(x), 1 / (1 + np.exp(-x)), rtol=1e-15)


def test_gradients_still_follow_the_outputs():
    from kerasish import GradientTape
    x = ops.convert_to_tensor(np.array([-2.0, 0.5, 3.0], np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.tanh(x) + ops.exp(x) + ops.sigmoid(x))
    t, e, s = np.tanh(x.numpy()), np.exp(x.numpy()), 1 / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), (1 - t * t) + e + s * (1 - s), rtol=1e-6)

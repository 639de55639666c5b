"""float32 pow as TensorFlow 2.21 computes it: Eigen's generic_pow on packets of 8, libm's
powf after the last full packet and on single values (fixture: tests/fixtures/eigen_pow)."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras

from kerasish import ops
from kerasish.backend.kernels import eigen_math

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "eigen_pow")
sys.path.insert(0, HERE)
from pow_inputs import LAMBDA_EXPONENTS, cases, lambda_input, scalar_cases  # noqa: E402

RECORDED = np.load(os.path.join(HERE, "pow.npz"))
CASES = cases()


def _same(a, b):
    """Bit for bit, NaN equal to NaN (and 0.0 told from -0.0)."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.int32), b.view(np.int32)) or \
        (np.array_equal(np.isnan(a), np.isnan(b)) and
         np.array_equal(a[~np.isnan(a)].view(np.int32), b[~np.isnan(b)].view(np.int32)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_pow_is_tensorflows(name):
    base, exponent = CASES[name]
    assert _same(eigen_math.power(np, base, exponent), RECORDED[name])


@pytest.mark.parametrize("name", ["positive", "near_one"])
def test_numpys_power_differs_so_the_values_are_tested(name):
    base, exponent = CASES[name]
    assert not _same(np.power(base, exponent), RECORDED[name])


def test_single_values_are_libms_powf():
    got = [eigen_math.scalar_pow(b, t) for b, t in scalar_cases()]
    assert _same(got, RECORDED["scalars"])


def test_ops_power_and_the_operator_follow_tensorflow():
    base, exponent = CASES["positive"]
    assert _same(ops.power(base, exponent), RECORDED["positive"])
    assert _same(ops.convert_to_tensor(base) ** ops.convert_to_tensor(exponent),
                 RECORDED["positive"])


def test_other_dtypes_use_numpy():
    assert eigen_math.power(np, np.float64([2.0]), np.float64([0.5])) is None


@pytest.mark.parametrize("c", LAMBDA_EXPONENTS)
def test_constant_exponents_are_rewritten_in_compiled_functions_only(c):
    # Keras 3.15.1: `predict` (a tf.function) turns `v ** 2` into square, `v ** 3` into
    # v * square(v) and `v ** 0.5` into sqrt; the eager call keeps TensorFlow's Pow.
    x = lambda_input()
    model = keras.Sequential([keras.Input((x.shape[1],)), keras.layers.Lambda(lambda v: v ** c)])
    assert _same(model.predict(x, verbose=0), RECORDED[f"predict/{c}"])
    assert _same(model(x), RECORDED[f"eager/{c}"])
    if c != 2.5:
        assert not _same(RECORDED[f"predict/{c}"], RECORDED[f"eager/{c}"])


def test_power_gradient_is_tensorflows_order():
    # TensorFlow's _PowGrad: (g * y) * pow(x, y - 1) and (g * z) * log(x)
    x = keras.Variable(np.float32([0.7, 1.3, 2.9]))
    y = keras.Variable(np.float32([2.5, -1.5, 3.0]))
    with keras.GradientTape() as tape:
        z = ops.power(x, y)
    gx, gy = tape.gradient(z, [x, y], output_gradients=ops.convert_to_tensor(
        np.float32([0.3, 1.1, 0.7])))
    g, xv, yv = np.float32([0.3, 1.1, 0.7]), x.numpy(), y.numpy()
    zv = eigen_math.power(np, xv, yv)
    assert _same(gx, (g * yv) * eigen_math.power(np, xv, yv - np.float32(1)))
    assert _same(gy, (g * zv) * eigen_math.log(np, xv))

"""kerasish.backend.kernels.eigen_trig: TensorFlow's float32 sin and cos, bit for bit.

Expected values: TensorFlow 2.21 through Keras 3.15.1, recorded by
tests/fixtures/eigen_trig/make_eigen_trig.py.
"""
import os

import numpy as np

import kerasish as keras
from kerasish.backend.kernels import eigen_trig

FIXTURE = np.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures",
                               "eigen_trig", "eigen_trig.npz"))


def test_sin_and_cos_equal_tensorflows():
    x = FIXTURE["x"]
    np.testing.assert_array_equal(eigen_trig.sin(np, x), FIXTURE["sin"])
    np.testing.assert_array_equal(eigen_trig.cos(np, x), FIXTURE["cos"])
    np.testing.assert_array_equal(keras.ops.sin(x).numpy(), FIXTURE["sin"])
    np.testing.assert_array_equal(keras.ops.cos(x).numpy(), FIXTURE["cos"])


def test_other_dtypes_and_shapes():
    x = FIXTURE["x"][:24].reshape(2, 3, 4)
    np.testing.assert_array_equal(eigen_trig.sin(np, x), FIXTURE["sin"][:24].reshape(2, 3, 4))
    np.testing.assert_array_equal(eigen_trig.cos(np, x.astype("float64")),
                                  np.cos(x.astype("float64")))
    assert eigen_trig.sin(np, np.zeros((0,), "float32")).shape == (0,)
    out = eigen_trig.sin(np, np.float32([np.inf, np.nan, 3e4, -2e4] * 2))
    assert np.isnan(out[:2]).all() and np.isclose(out[2], np.sin(3e4), atol=1e-6)


def test_random_rotation_equals_keras():
    # the rotation matrices' cos/sin as TensorFlow computes them
    keras.utils.set_random_seed(0)
    rotated = keras.layers.RandomRotation(0.2, seed=1)(FIXTURE["images"], training=True)
    np.testing.assert_array_equal(rotated.numpy(), FIXTURE["rotated"])


def test_scalar_only_functions_are_glibcs():
    # Keras 3.15.1 on TF: tan, sinh, cosh, arcsinh, arccosh of float32 are glibc's float
    # functions value by value (Eigen has no packet version)
    small = FIXTURE["x"][:3000] * np.float32(0.2)
    for op in ("tan", "sinh", "cosh", "arcsinh", "arccosh"):
        values = np.abs(small) + 1 if op == "arccosh" else small
        np.testing.assert_array_equal(getattr(keras.ops, op)(values).numpy(), FIXTURE[op],
                                      err_msg=op)

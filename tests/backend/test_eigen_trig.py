"""float32 sin and cos as TensorFlow 2.21 computes them (Eigen's psincos_float on packets
of 8, libm after the last full packet; `kerasish/backend/kernels/eigen_math.py`), the
cosine learning-rate schedules and RandomRotation built on them, and the scalar-only
functions (tan, sinh, cosh, arcsinh, arccosh: glibc's, `eigen_trig.glibc_float`).
Fixtures: tests/fixtures/eigen_trig (make_trig.py and make_eigen_trig.py, recorded
with Keras 3.15.1)."""
import os
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops, optimizers
from kerasish.backend.kernels import eigen_math

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "eigen_trig")
sys.path.insert(0, HERE)
from trig_inputs import SCHEDULES, STEPS, inputs  # noqa: E402

RECORDED = np.load(os.path.join(HERE, "trig.npz"))
FIXTURE = np.load(os.path.join(HERE, "eigen_trig.npz"))


def _same(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    nan = np.isnan(a)
    return a.shape == b.shape and np.array_equal(nan, np.isnan(b)) and \
        np.array_equal(a[~nan].view(np.int32), b[~nan].view(np.int32))


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_sin_and_cos_are_tensorflows(name):
    x = inputs()
    assert _same(getattr(eigen_math, name)(np, x), RECORDED[name])
    assert _same(getattr(ops, name)(x), RECORDED[name])
    assert not _same(getattr(np, name)(x), RECORDED[name])   # numpy's differ: values tested


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_are_kerass_to_the_bit(name):
    cls, kwargs = SCHEDULES[name]
    schedule = getattr(optimizers.schedules, cls)(**kwargs)
    got = np.array([np.asarray(schedule(step)) for step in STEPS], np.float32)
    assert _same(got, RECORDED[f"schedule/{name}"])


def test_other_dtypes_use_the_array_librarys_functions():
    x = np.array([0.5, 1.0], np.float64)
    np.testing.assert_array_equal(eigen_math.sin(np, x), np.sin(x))


def test_sin_and_cos_equal_tensorflows():
    x = FIXTURE["x"]
    np.testing.assert_array_equal(eigen_math.sin(np, x), FIXTURE["sin"])
    np.testing.assert_array_equal(eigen_math.cos(np, x), FIXTURE["cos"])
    np.testing.assert_array_equal(keras.ops.sin(x).numpy(), FIXTURE["sin"])
    np.testing.assert_array_equal(keras.ops.cos(x).numpy(), FIXTURE["cos"])


def test_other_dtypes_and_shapes():
    x = FIXTURE["x"][:24].reshape(2, 3, 4)
    np.testing.assert_array_equal(eigen_math.sin(np, x), FIXTURE["sin"][:24].reshape(2, 3, 4))
    np.testing.assert_array_equal(eigen_math.cos(np, x.astype("float64")),
                                  np.cos(x.astype("float64")))
    assert eigen_math.sin(np, np.zeros((0,), "float32")).shape == (0,)
    out = eigen_math.sin(np, np.float32([np.inf, np.nan, 3e4, -2e4] * 2))
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

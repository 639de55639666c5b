"""float32 sin and cos as TensorFlow 2.21 computes them (Eigen's psincos_float on packets
of 8, libm after the last full packet), and the cosine learning-rate schedules built on
them (fixture: tests/fixtures/eigen_trig, recorded with Keras 3.15.1)."""
import os
import sys

import numpy as np
import pytest

from kerasish import ops, optimizers
from kerasish.backend.kernels import eigen_math

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "eigen_trig")
sys.path.insert(0, HERE)
from trig_inputs import SCHEDULES, STEPS, inputs  # noqa: E402

RECORDED = np.load(os.path.join(HERE, "trig.npz"))


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

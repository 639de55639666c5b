"""kerasish.ops.creation: constructors and their default dtypes."""
import numpy as np

from kerasish import device, ops


def test_default_dtypes_like_keras():
    assert ops.zeros((2,)).dtype == "float32" and ops.ones(3).shape == (3,)
    assert ops.full((2,), 3).dtype == "float32"
    assert ops.full((2,), 3, dtype="int32").numpy().tolist() == [3, 3]
    assert ops.arange(5).dtype == "int32" and ops.arange(0.5, 3).dtype == "float32"
    assert ops.arange(1, 7, 2).numpy().tolist() == [1, 3, 5]
    assert ops.arange(3, dtype="float64").dtype == "float64"
    assert ops.linspace(0, 1, 5).dtype == "float32"
    assert ops.eye(3).dtype == "float32" and ops.identity(2).numpy().tolist() == [[1, 0], [0, 1]]
    assert ops.tri(3, k=-1).numpy().tolist() == np.tri(3, k=-1).tolist()
    assert ops.array([1, 2]).dtype == "int32" and ops.array([1.0]).dtype == "float32"


def test_like_constructors_keep_shape_dtype_and_device():
    x = ops.ones((2, 3), dtype="int32")
    assert ops.zeros_like(x).dtype == "int32" and ops.ones_like(x, dtype="float16").dtype == "float16"
    assert ops.full_like(x, 7).numpy().tolist() == [[7] * 3] * 2
    assert ops.empty_like(x).shape == (2, 3)
    with device("cpu:1"):
        y = ops.ones((2,))
    assert ops.zeros_like(y).device == "cpu:1"


def test_values():
    np.testing.assert_allclose(ops.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    out, step = ops.linspace(0, 1, 5, retstep=True)
    assert step == 0.25 and out.shape == (5,)
    np.testing.assert_allclose(ops.logspace(0, 2, 3).numpy(), [1, 10, 100])
    np.testing.assert_array_equal(ops.eye(2, 3, k=1).numpy(), np.eye(2, 3, k=1))

"""Zeros, Ones, Constant, Identity and Orthogonal."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import initializers, ops, random


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_zeros_and_ones_take_any_dtype(dtype):
    z = initializers.Zeros()((2, 3), dtype=dtype)
    o = initializers.Ones()((2, 3), dtype=dtype)
    assert z.dtype == dtype and o.dtype == dtype
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), dtype))
    np.testing.assert_array_equal(o.numpy(), np.ones((2, 3), dtype))


def test_default_dtype_is_floatx():
    assert initializers.Zeros()((2,)).dtype == "float32"


def test_constant_fills_and_casts():
    np.testing.assert_array_equal(initializers.Constant(2.5)((2, 2)).numpy(),
                                  np.full((2, 2), 2.5, np.float32))
    c = initializers.Constant(3)((4,), dtype="int32")
    assert c.dtype == "int32" and c.numpy().tolist() == [3, 3, 3, 3]
    assert initializers.Constant(True)((2,), dtype="bool").numpy().tolist() == [True, True]


def test_constant_config_keeps_numpy_scalars_json_friendly():
    config = initializers.Constant(np.float32(0.5)).get_config()
    assert config == {"value": 0.5} and type(config["value"]) is float
    assert initializers.Constant.from_config(config)((1,)).numpy()[0] == 0.5


def test_identity_square_rectangular_and_gain():
    np.testing.assert_array_equal(initializers.Identity()((3, 3)).numpy(), np.eye(3))
    np.testing.assert_array_equal(initializers.Identity(gain=2.0)((2, 4)).numpy(), 2 * np.eye(2, 4))
    assert initializers.IdentityInitializer is initializers.Identity
    with pytest.raises(ValueError, match="shape.*Received: shape=\\(2, 2, 2\\)"):
        initializers.Identity()((2, 2, 2))


@pytest.mark.parametrize("shape", [(5, 5), (8, 3), (12, 4)])
def test_orthogonal_columns_are_orthonormal(shape):
    w = initializers.Orthogonal(seed=1)(shape).numpy()
    assert w.shape == shape and w.dtype == np.float32
    np.testing.assert_allclose(w.T @ w, np.eye(shape[1]), atol=1e-5)


def test_orthogonal_wide_matrix_has_orthonormal_rows_and_gain():
    w = initializers.Orthogonal(gain=2.0, seed=2)((3, 7)).numpy()
    np.testing.assert_allclose(w @ w.T, 4 * np.eye(3), atol=1e-5)


def test_orthogonal_flattens_conv_kernels():
    w = initializers.Orthogonal(seed=3)((3, 3, 4, 8)).numpy().reshape(36, 8)
    np.testing.assert_allclose(w.T @ w, np.eye(8), atol=1e-5)


@pytest.mark.parametrize("shape", [(6, 4), (80, 70)])   # one and several 32-column panels
def test_orthogonal_equals_sign_fixed_qr_of_the_same_draw(shape):
    a = random.normal(shape, dtype="float64", seed=9).numpy()
    q, r = np.linalg.qr(a)
    q *= np.sign(np.diag(r))
    w = initializers.Orthogonal(seed=9)(shape, dtype="float64").numpy()
    np.testing.assert_allclose(w, q, atol=1e-10)


def test_orthogonal_is_reproducible_and_needs_rank_two():
    init = initializers.Orthogonal(seed=4)
    np.testing.assert_array_equal(init((4, 4)).numpy(), init((4, 4)).numpy())
    with pytest.raises(ValueError, match="rank >= 2.*Received: shape=\\(4,\\)"):
        init((4,))


def test_identity_config_is_empty_as_keras():
    # Keras 3.15.1 printed {} for Identity(gain=...).get_config() (no get_config of its own).
    assert initializers.Identity(gain=2.0).get_config() == {}
    assert initializers.IdentityInitializer().get_config() == {}


def test_constant_config_writes_arrays_and_tensors_as_keras():
    # Keras 3.15.1: scalars stay plain; arrays and tensors become `__numpy__` /
    # `__tensor__` entries (an Embedding built from a pretrained matrix saves this way)
    assert keras.initializers.Constant(np.array(3.0)).get_config() == {"value": 3.0}
    matrix = np.array([[1, 2]], dtype="int64")
    config = keras.initializers.Constant(matrix).get_config()
    assert config == {"value": {"class_name": "__numpy__",
                                "config": {"value": [[1, 2]], "dtype": "int64"}}}
    tensor_config = keras.initializers.Constant(ops.convert_to_tensor([1.0, 2.0])).get_config()
    assert tensor_config == {"value": {"class_name": "__tensor__",
                                       "config": {"value": [1.0, 2.0], "dtype": "float32"}}}
    restored = keras.initializers.Constant.from_config(config)
    np.testing.assert_array_equal(np.asarray(restored((1, 2), dtype="int64")), matrix)
    restored = keras.initializers.Constant.from_config(tensor_config)
    np.testing.assert_array_equal(np.asarray(restored((2,))), [1.0, 2.0])

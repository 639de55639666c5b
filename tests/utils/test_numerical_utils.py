"""`keras.utils.to_categorical` and `keras.utils.normalize`."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.utils.numerical_utils import normalize, to_categorical


def test_to_categorical_keras_doc_example():
    out = to_categorical([0, 1, 2, 3], num_classes=4)
    np.testing.assert_array_equal(out, np.eye(4))
    assert out.dtype == np.float64  # as Keras 3 for numpy input


def test_to_categorical_infers_num_classes():
    out = to_categorical(np.array([2, 0, 1, 2]))
    np.testing.assert_array_equal(out, [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]])


def test_to_categorical_squeezes_trailing_axis_of_one():
    out = to_categorical(np.array([[1], [0], [2]], dtype="uint8"), num_classes=3)
    assert out.shape == (3, 3)
    np.testing.assert_array_equal(out, [[0, 1, 0], [1, 0, 0], [0, 0, 1]])


def test_to_categorical_keeps_other_axes():
    out = to_categorical([[0, 1], [1, 1]], num_classes=2)
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out[0], [[1, 0], [0, 1]])
    assert to_categorical([[3]], num_classes=4).shape == (1, 4)
    np.testing.assert_array_equal(to_categorical(2, num_classes=3), [0, 0, 1])


def test_to_categorical_truncates_floats_and_wraps_negative_like_numpy():
    np.testing.assert_array_equal(to_categorical([1.7, 0.2], 2), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(to_categorical([-1], 3), [[0, 0, 1]])


def test_to_categorical_errors():
    with pytest.raises(IndexError, match="^index 3 is out of bounds for axis 1 with size 3$"):
        to_categorical([0, 3], num_classes=3)  # Keras 3.15.1: numpy's message
    with pytest.raises(IndexError, match="^index -5 is out of bounds for axis 1 with size 3$"):
        to_categorical([1, -5, 7], num_classes=3)
    with pytest.raises(ValueError, match="cannot infer `num_classes` from an empty"):
        to_categorical([])
    with pytest.raises(ValueError, match="`num_classes` must be a positive int"):
        to_categorical([0], num_classes=-2)
    assert to_categorical([], num_classes=3).shape == (0, 3)


def test_to_categorical_of_a_tensor_is_keras_one_hot():
    # Keras 3.15.1 (TF): a tensor goes through ops.one_hot -> float32 tensor,
    # a trailing size-1 axis dropped, out-of-range indices all zeros.
    out = to_categorical(ops.convert_to_tensor([0, 2, 1]), 3)
    assert ops.is_tensor(out) and out.dtype == "float32"
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    out = to_categorical(ops.convert_to_tensor([[0], [2]]), num_classes=4)
    np.testing.assert_array_equal(out, [[1, 0, 0, 0], [0, 0, 1, 0]])
    out = to_categorical(ops.convert_to_tensor([0, -1, 5]), num_classes=3)
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="num_classes"):  # Keras: ValueError too
        to_categorical(ops.convert_to_tensor([0, 1]))


def test_normalize_l2_last_axis():
    out = normalize(np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0], [1.0, 0.0]])


def test_normalize_axis_0_and_l1_and_dtypes():
    x = np.array([[3.0, 1.0], [4.0, 1.0]], dtype="float32")
    # Keras 3.15.1 printed these: for a numpy array the column norms go back in
    # along the last axis (`axis or -1`); a list takes the ops path, along axis 0.
    out = normalize(x, axis=0)
    np.testing.assert_allclose(out, [[0.6, 0.2], [2.828427, 0.70710677]], rtol=1e-6)
    assert out.dtype == np.float32
    np.testing.assert_allclose(normalize(x.tolist(), axis=0),
                               [[0.6, 0.70710677], [0.8, 0.70710677]], rtol=1e-6)
    out = normalize([1, 3], order=1)  # Keras: a float32 tensor (ops.nn.normalize)
    assert out.shape == (2,) and out.dtype == "float32" and ops.is_tensor(out)
    np.testing.assert_allclose(out, [0.25, 0.75])
    # Keras 3.15.1: a 1-D numpy array comes back (1, n).
    assert normalize(np.array([1.0, 2.0, 2.0])).shape == (1, 3)
    assert normalize(np.array([1, 3])).dtype == np.float64


def test_normalize_axis_none_and_error():
    np.testing.assert_allclose(normalize(np.array([[3.0], [4.0]]), axis=None), [[0.6], [0.8]])
    with pytest.raises(ValueError, match="`axis` must be None or an int in"):
        normalize(np.ones((2, 2)), axis=2)


def test_normalize_of_tensors_is_keras_ops_normalize_and_differentiable():
    """Keras 3.15.1 (probe12 session, nrm.py): lists and tensors go through
    `ops.nn.normalize` (float lists as float32; `axis=None` a matrix norm for 2-D),
    and a loss built on it has gradients (keras-io supervised contrastive)."""
    x = [[3.0, 4.0], [0.0, 0.0]]
    out = normalize(x, axis=None, order=1)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out, [[0.75, 1.0], [0.0, 0.0]])
    t = ops.convert_to_tensor([[0.1, 0.7], [0.3, 0.0]])
    np.testing.assert_allclose(normalize(t, axis=None, order=1),
                               [[0.1428571492433548, 1.0], [0.4285714626312256, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(normalize(t, axis=None, order=2),
                               [[0.1301889270544052, 0.9113224148750305],
                                [0.39056676626205444, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(normalize([[3, 4], [1, 1]], axis=None, order=1),
                               [[0.6, 0.8], [0.2, 0.2]], rtol=1e-6)
    v = keras.Variable(np.array([[3.0, 4.0]], "float32"))
    with keras.GradientTape() as tape:
        y = ops.sum(normalize(v) * np.array([[1.0, 0.0]], "float32"))
    grad = tape.gradient(y, v)
    # d(x0/|x|)/dx = (|x|^2 e0 - x0 x)/|x|^3 = ([25, 0] - [9, 12]) / 125
    np.testing.assert_allclose(grad.numpy(), [[16 / 125, -12 / 125]], rtol=1e-5)

"""kerasish.ops.stats: moments, normalize, batch/layer/RMS normalisation."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(10)
X = RNG.standard_normal((3, 4)) * 2 + 1


def test_moments_values_dtypes_and_gradients():
    mean, var = ops.moments(X, axes=[0])
    np.testing.assert_allclose(mean.numpy(), X.mean(0))
    np.testing.assert_allclose(var.numpy(), X.var(0))
    mean, var = ops.moments(X, axes=(0, 1), keepdims=True)
    assert mean.shape == (1, 1) and var.shape == (1, 1)
    m16, v16 = ops.moments(X.astype("float16"), axes=0)
    assert m16.dtype == v16.dtype == "float16"
    np.testing.assert_allclose(v16.numpy(), X.var(0), rtol=1e-2)
    check_gradients(lambda x: ops.moments(x, axes=[1])[1], [X])
    check_gradients(lambda x: ops.moments(x, axes=[0])[0], [X])
    check_second_order(lambda x: ops.moments(x, axes=[1])[1], [X[:2, :3]])



def test_synchronized_moments_use_tensorflow_sums():
    # Keras 3.15.1 on TensorFlow (default replica context) printed these: E[x^2] - E[x]^2,
    # visibly off the two-pass variance [4.51629, 5.43196, 8.05779] at mean ~100.
    x = (np.random.RandomState(0).randn(4, 3) * 3 + 100).astype("float32")
    mean, var = ops.moments(x, axes=[0], synchronized=True)
    np.testing.assert_allclose(mean.numpy(), [104.02423, 101.695297, 101.014389], rtol=1e-7)
    np.testing.assert_array_equal(var.numpy(), [4.513671875, 5.4326171875, 8.056640625])
    mean, var = ops.moments(X, axes=[1], keepdims=True, synchronized=True)
    np.testing.assert_allclose(var.numpy(), X.var(1, keepdims=True), rtol=1e-10)
    check_gradients(lambda x: ops.moments(x, axes=[0], synchronized=True)[1], [X])


def test_normalize():
    np.testing.assert_allclose(ops.normalize(X).numpy(), X / np.linalg.norm(X, axis=-1, keepdims=True))
    np.testing.assert_allclose(ops.normalize(X, axis=0, order=1).numpy(),
                               X / np.abs(X).sum(0, keepdims=True))
    np.testing.assert_allclose(ops.normalize(ops.convert_to_tensor([3.0, 4.0])).numpy(), [0.6, 0.8])
    check_gradients(ops.normalize, [X])


def test_batch_layer_rms_normalization():
    mean, var, beta, gamma = RNG.standard_normal(4), RNG.uniform(0.5, 2, 4), RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)
    ref = (X - mean) / np.sqrt(var + 1e-3) * gamma + beta
    out = ops.batch_normalization(X, mean, var, axis=-1, offset=beta, scale=gamma)
    np.testing.assert_allclose(out.numpy(), ref)
    np.testing.assert_allclose(ops.batch_normalization(X.T, mean, var, axis=0).numpy(),
                               ((X - mean) / np.sqrt(var + 1e-3)).T)
    check_gradients(lambda x, m, v, b, g: ops.batch_normalization(x, m, v, -1, b, g),
                    [X, mean, var, beta, gamma])
    ln = (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(ops.layer_normalization(X, epsilon=1e-3).numpy(), ln)
    np.testing.assert_allclose(ops.layer_normalization(X, gamma, beta, epsilon=1e-3).numpy(), ln * gamma + beta)
    check_gradients(lambda x: ops.layer_normalization(x), [X])
    check_second_order(lambda x: ops.layer_normalization(x), [X[:1, :3]])
    rms = X / np.sqrt((X ** 2).mean(-1, keepdims=True) + 1e-7) * 2.0
    np.testing.assert_allclose(ops.rms_normalization(X, scale=2.0).numpy(), rms)
    check_gradients(lambda x: ops.rms_normalization(x), [X])


def test_normalize_order_must_be_an_int_of_at_least_one():
    for order in ("a", -1, 0, 2.5):
        with pytest.raises(ValueError, match="Argument `order` must be an int >= 1"):
            ops.normalize(np.array([1.0, 2.0, 3.0]), order=order)
    np.testing.assert_allclose(ops.normalize(np.array([3.0, -4.0]), order=1).numpy(),
                               [3 / 7, -4 / 7])


@pytest.mark.parametrize("x_dtype,w_dtype", [("bfloat16", "float32"), ("float16", "float32"),
                                             ("bfloat16", "float16"), ("float32", "float16")])
def test_layer_and_rms_normalization_keep_the_input_dtype(x_dtype, w_dtype):
    x = ops.cast(ops.convert_to_tensor([[1.0, 2.0, 4.0, 5.0]]), x_dtype)
    w = ops.cast(ops.ones((4,)), w_dtype)
    assert ops.layer_normalization(x, w, w).dtype == x_dtype
    assert ops.rms_normalization(x, w).dtype == x_dtype


def test_layer_normalization_lays_gamma_along_a_non_last_axis():
    # Keras reshapes a 1-D gamma/beta to broadcast along `axis`
    x = np.random.default_rng(3).standard_normal((2, 3, 4))
    gamma, beta = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, -0.5])
    out = ops.layer_normalization(x, gamma, beta, axis=1, epsilon=1e-3).numpy()
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-3) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(out, expected, rtol=1e-10)


def test_layer_normalization_rms_scaling_warns_and_scales_by_the_variance():
    x = np.arange(5, dtype="float64")
    with pytest.warns(UserWarning, match=r"You passed `rms_scaling=True`, which is deprecated"):
        out = ops.layer_normalization(x, np.ones(5), rms_scaling=True, epsilon=1e-3)
    np.testing.assert_allclose(out.numpy(), x / np.sqrt(x.var() + 1e-3), rtol=1e-10)


def test_moments_of_float16_saturate_instead_of_overflowing():
    # Keras clips float32 statistics to float16's range before casting back
    x = ops.cast(ops.convert_to_tensor([0.0, 60000.0]), "float16")
    mean, variance = ops.moments(x, axes=[0])
    assert mean.dtype == variance.dtype == "float16"
    assert float(mean.numpy()) == 30000.0
    assert float(variance.numpy()) == float(np.finfo(np.float16).max)


def test_batch_normalization_checks_offset_and_scale_length():
    x, stats = np.ones((2, 3, 5)), np.ones(5)
    with pytest.raises(ValueError, match="`offset` must be a vector of length 5"):
        ops.batch_normalization(x, stats, stats, axis=-1, offset=np.ones(3), scale=stats)
    with pytest.raises(ValueError, match="`scale` must be a vector of length 5"):
        ops.batch_normalization(x, stats, stats, axis=-1, offset=stats, scale=np.ones(3))


def test_softmax_over_a_size_one_axis_warns():
    with pytest.warns(UserWarning, match=r"You are using a softmax over axis 1 of a tensor of "
                                         r"shape \(1, 1\)\. This axis has size 1\."):
        out = ops.softmax(np.array([[1.0]]), axis=1)
    np.testing.assert_array_equal(out.numpy(), [[1.0]])


def test_batch_normalization_keeps_x_dtype_as_tensorflow():
    # Keras 3.15.1 (tf.nn.batch_normalization casts the statistics' terms to x's dtype):
    # float64 numpy statistics leave a float32 x float32.
    x = np.array([[0.5, 1.0], [2.0, -1.0]], "float32")
    out = ops.batch_normalization(x, np.zeros(2), np.ones(2) * 2, axis=-1, offset=np.ones(2),
                                  scale=np.ones(2) * 3, epsilon=0.1)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [[2.0350983, 3.0701966], [5.1403933, -1.0701966]],
                               rtol=1e-6)


def test_integer_moments_as_tensorflow():
    # Keras 3.15.1 passes int32/int64 to tf.nn.moments: integer statistics, truncated.
    x = np.array([[1, 2, 4], [-1, -2, -4], [5, -6, 0]], "int32")
    mean, var = ops.moments(x, axes=[1])
    assert mean.dtype == var.dtype == "int32"
    assert mean.numpy().tolist() == [2, -2, 0] and var.numpy().tolist() == [1, 1, 20]
    mean, var = ops.moments(x.astype("int64"), axes=[0], keepdims=True)
    assert mean.dtype == "int64"
    assert mean.numpy().tolist() == [[1, -2, 0]] and var.numpy().tolist() == [[6, 10, 10]]

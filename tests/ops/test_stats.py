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
    with pytest.raises(NotImplementedError, match="synchronized"):
        ops.moments(X, axes=0, synchronized=True)


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

"""kerasish.ops.normalize_moments (the fused BN/LN/GN op): values, gradients, errors."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.ops.normalization import normalize_moments
from kerasish.testing import check_gradients, check_second_order


def test_values_and_statistics():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5))
    scale, offset = rng.standard_normal((1, 1, 5)), rng.standard_normal((1, 1, 5))
    y, mean, var = normalize_moments(x, (0, 1), scale, offset, epsilon=1e-3)
    mu, sigma2 = x.mean((0, 1), keepdims=True), x.var((0, 1), keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mu) / np.sqrt(sigma2 + 1e-3) * scale + offset,
                               atol=1e-12)
    np.testing.assert_allclose(mean.numpy(), mu.reshape(5))
    np.testing.assert_allclose(var.numpy(), sigma2.reshape(5))     # biased variance
    y2 = normalize_moments(x.astype("float32"), -1)[0]
    assert y2.dtype == "float32" and y2.shape == (3, 4, 5)


def test_gradients_for_inputs_scale_offset_and_statistics():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 5))
    scale, offset = rng.standard_normal((1, 1, 5)), rng.standard_normal((1, 1, 5))
    check_gradients(lambda x, s, o: normalize_moments(x, (0, 1), s, o)[0], [x, scale, offset])
    check_gradients(lambda x: normalize_moments(x, (1, 2))[0], [x])
    check_gradients(lambda x: ops.add(ops.multiply(normalize_moments(x, (0, 1))[1], 3.0),
                                      normalize_moments(x, (0, 1))[2]), [x])
    for stat in (1, 2):  # one statistic differentiated, the other's gradient zeros
        check_gradients(lambda x: ops.add(normalize_moments(x, 0)[0],
                                          normalize_moments(x, 0)[stat]), [x[0]])


def test_second_order():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 3))
    scale, offset = rng.standard_normal((1, 1, 3)), rng.standard_normal((1, 1, 3))
    check_second_order(lambda x, s, o: normalize_moments(x, (0, 1), s, o)[0], [x, scale, offset])


def test_errors():
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        normalize_moments(np.zeros((2, 3, 4)), 3)
    with pytest.raises(ValueError, match=r"`scale` of shape \(3,\) does not broadcast"):
        normalize_moments(np.zeros((2, 3, 4)), 0, scale=np.ones(3))

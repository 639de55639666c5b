"""GroupNormalization: per-example statistics over groups of channels."""
import numpy as np
import pytest

from kerasish import layers
from kerasish.testing import check_gradients


def reference(x, groups, gamma, beta, eps=1e-3):
    n, h, w, c = x.shape
    g = x.reshape(n, h, w, groups, c // groups)
    mean = g.mean(axis=(1, 2, 4), keepdims=True)
    var = g.var(axis=(1, 2, 4), keepdims=True)
    return ((g - mean) / np.sqrt(var + eps)).reshape(x.shape) * gamma + beta


@pytest.mark.parametrize("groups", [1, 2, -1])
def test_matches_reference_and_gradients(groups):
    x = np.random.default_rng(0).standard_normal((2, 3, 3, 4))
    gn = layers.GroupNormalization(groups=groups, dtype="float64",
                                   gamma_initializer="random_normal",
                                   beta_initializer="random_normal")
    y = gn(x).numpy()
    np.testing.assert_allclose(y, reference(x, gn.groups, gn.gamma.numpy(), gn.beta.numpy()),
                               atol=1e-10)
    assert [w.name for w in gn.weights] == ["gamma", "beta"] and gn.gamma.shape == (4,)
    check_gradients(lambda x, g, b: gn(x), [x[:1], gn.gamma, gn.beta])


def test_channels_first_axis():
    x = np.random.default_rng(1).standard_normal((2, 4, 3, 3))
    gn = layers.GroupNormalization(groups=2, axis=1, dtype="float64")
    expected = reference(x.transpose(0, 2, 3, 1), 2, 1.0, 0.0).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(gn(x).numpy(), expected, atol=1e-10)


def test_config_and_errors():
    config = layers.GroupNormalization(groups=4).get_config()
    assert config["groups"] == 4 and config["epsilon"] == 1e-3
    with pytest.raises(ValueError, match=r"number of groups \(32\) cannot be more than the "
                                         r"number of channels \(4\)"):
        layers.GroupNormalization()(np.zeros((1, 2, 2, 4)))
    with pytest.raises(ValueError, match=r"channels \(6\) must be a multiple of the number "
                                         r"of groups \(4\)"):
        layers.GroupNormalization(groups=4)(np.zeros((1, 2, 2, 6)))

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
    # Keras 3.15.1's messages (its words for the second one), /tmp/probe15/lay1.py
    with pytest.raises(ValueError, match=r"^Number of groups \(32\) cannot be more than the "
                                         r"number of channels \(4\)\.$"):
        layers.GroupNormalization()(np.zeros((1, 2, 2, 4)))
    with pytest.raises(ValueError, match=r"^Number of groups \(4\) must be a multiple of the "
                                         r"number of channels \(6\)\.$"):
        layers.GroupNormalization(groups=4)(np.zeros((1, 2, 2, 6)))
    with pytest.raises(ValueError, match=r"^Received an invalid value for argument `groups`, "
                                         r"expected a positive integer \(or `-1` for instance "
                                         r"normalization\)\. Received: groups=0$"):
        layers.GroupNormalization(groups=0)


def test_input_dtype_round_trip_as_keras():
    # Keras 3.15.1: GroupNormalization does not autocast its inputs; statistics in float32,
    # the result cast back to the input dtype, then to the layer's compute dtype.
    x = np.array([[[0.3, -1.7, 2.9, 0.45], [1.1, 0.2, -0.6, 3.3]]], "float32")
    out = layers.GroupNormalization(groups=2)(x.astype("float16"))
    assert out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), [[[0.316162109375, -1.62890625, 0.84765625,
                                                  -0.6494140625],
                                                 [1.09375, 0.2188720703125, -1.291015625,
                                                  1.091796875]]])
    half = layers.GroupNormalization(groups=2, dtype="float16")(x)
    assert half.dtype == "float16"
    np.testing.assert_array_equal(half.numpy().astype("float64"),
                                  [[[0.31591796875, -1.62890625, 0.84765625, -0.64892578125],
                                    [1.09375, 0.21875, -1.291015625, 1.091796875]]])

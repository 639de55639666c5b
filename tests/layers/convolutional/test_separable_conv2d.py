"""SeparableConv2D: depthwise then pointwise, Keras's weights."""
import numpy as np
import pytest
from conv_layer_reference import conv_nd

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


def test_forward_matches_depthwise_then_pointwise():
    x = np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype("float32")
    layer = layers.SeparableConv2D(5, 3, strides=2, padding="same", depth_multiplier=2,
                                   bias_initializer="random_normal")
    y = layer(x).numpy()
    assert [w.name for w in layer.weights] == ["depthwise_kernel", "pointwise_kernel", "bias"]
    dk, pk = layer.depthwise_kernel.numpy(), layer.pointwise_kernel.numpy()
    assert dk.shape == (3, 3, 3, 2) and pk.shape == (1, 1, 6, 5)
    depthwise = np.concatenate(
        [conv_nd(x[..., c:c + 1], dk[:, :, c:c + 1, m:m + 1], (2, 2), "same", (1, 1))
         for c in range(3) for m in range(2)], axis=-1)
    expected = depthwise @ pk[0, 0] + layer.bias.numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    assert y.shape == layer.compute_output_shape(x.shape)


def test_gradients_and_config():
    layer = layers.SeparableConv2D(2, 3, activation="relu", dtype="float64",
                                   bias_initializer="random_normal")
    x = np.random.default_rng(1).standard_normal((1, 5, 5, 2))
    layer.build(x.shape)
    check_gradients(lambda x, d, p, b: layer(x),
                    [x, layer.depthwise_kernel, layer.pointwise_kernel, layer.bias])
    config = layer.get_config()
    for key in ("depth_multiplier", "filters", "pointwise_initializer", "depthwise_regularizer"):
        assert key in config
    assert layers.SeparableConv2D.from_config(config).filters == 2
    with pytest.raises(ValueError, match=r"SeparableConv2D layer .*larger than the input"):
        layers.SeparableConv2D(2, 4)(keras.Input((3, 3, 1)))

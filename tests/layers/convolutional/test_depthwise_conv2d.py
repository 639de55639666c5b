"""DepthwiseConv2D: per-channel convolutions in Keras's channel order."""
import numpy as np
import pytest
from conv_layer_reference import conv_nd

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


@pytest.mark.parametrize("kwargs", [dict(), dict(strides=2, padding="same"),
                                    dict(dilation_rate=2, padding="same")])
def test_forward_matches_per_channel_reference(kwargs):
    x = np.random.default_rng(0).standard_normal((2, 7, 7, 3)).astype("float32")
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, bias_initializer="random_normal",
                                   **kwargs)
    y = layer(x).numpy()
    kernel = layer.kernel.numpy()
    assert kernel.shape == (3, 3, 3, 2) and layer.bias.shape == (6,)
    for c in range(3):
        for m in range(2):
            ref = conv_nd(x[..., c:c + 1], kernel[:, :, c:c + 1, m:m + 1], layer.strides,
                          layer.padding, layer.dilation_rate)[..., 0]
            np.testing.assert_allclose(y[..., 2 * c + m], ref + layer.bias.numpy()[2 * c + m],
                                       rtol=1e-4, atol=1e-5)
    assert y.shape == layer.compute_output_shape(x.shape)


def test_gradients_config_and_errors():
    layer = layers.DepthwiseConv2D(2, padding="same", activation="relu", dtype="float64",
                                   data_format="channels_first",
                                   bias_initializer="random_normal")
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4))
    layer.build(x.shape)
    check_gradients(lambda x, k, b: layer(x), [x, layer.kernel, layer.bias])
    config = layer.get_config()
    assert config["depth_multiplier"] == 1 and "depthwise_initializer" in config
    with pytest.raises(ValueError, match="depth_multiplier"):
        layers.DepthwiseConv2D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match=r"DepthwiseConv2D layer .*larger than the input"):
        layers.DepthwiseConv2D(5)(keras.Input((3, 3, 2)))

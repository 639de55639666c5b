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


def test_strides_with_dilation_are_computed_as_keras():
    # Keras 3.15.1 computes depthwise/separable convolutions with strides and dilation
    # above 1 together (only Conv/ConvTranspose refuse); values printed by Keras for this
    # program (probe /tmp/probe5/t/dw.py, probe5 session). kerasish refused them.
    x = (np.arange(2 * 9 * 9 * 2, dtype="float32").reshape(2, 9, 9, 2) % 7) / 7
    depthwise = layers.DepthwiseConv2D(3, strides=2, dilation_rate=2,
                                       depthwise_initializer="ones")
    out = np.asarray(depthwise(x))
    assert out.shape == (2, 3, 3, 2)
    np.testing.assert_allclose(out[0, :, :, 0], [[3.42857, 4.57143, 3.71429],
                                                 [3.71429, 3.85714, 4.0],
                                                 [4.0, 3.14286, 4.28571]], atol=1e-5)
    np.testing.assert_allclose(out.sum(), 141.1429, atol=1e-3)
    separable = layers.SeparableConv1D(2, 2, strides=3, dilation_rate=2, padding="same",
                                       depthwise_initializer="ones",
                                       pointwise_initializer="ones")
    np.testing.assert_allclose(np.asarray(separable(x[:, 0]))[0],
                               [[1.42857] * 2, [1.85714] * 2, [2.28571] * 2], atol=1e-5)
    with pytest.raises(ValueError, match="not supported in conjunction"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)

"""Conv1D: valid/same/causal padding, dilation, groups, gradients, errors."""
import numpy as np
import pytest
from conv_layer_reference import conv_nd

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


@pytest.mark.parametrize("kwargs", [
    dict(padding="valid"), dict(padding="same", strides=2), dict(padding="causal"),
    dict(padding="causal", dilation_rate=2), dict(padding="same", groups=2, dilation_rate=3),
])
def test_forward_matches_reference(kwargs):
    x = np.random.default_rng(0).standard_normal((2, 11, 4)).astype("float32")
    layer = layers.Conv1D(6, 3, bias_initializer="random_normal", **kwargs)
    y = layer(x).numpy()
    expected = conv_nd(x, layer.kernel.numpy(), layer.strides, layer.padding,
                       layer.dilation_rate, layer.groups) + layer.bias.numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    assert y.shape == layer.compute_output_shape(x.shape)


def test_causal_output_only_sees_the_past():
    layer = layers.Conv1D(1, 3, padding="causal", dilation_rate=2, use_bias=False,
                          kernel_initializer="ones")
    x = np.zeros((1, 10, 1), "float32")
    x[0, 6, 0] = 1.0
    y = layer(x).numpy()[0, :, 0]
    np.testing.assert_array_equal(np.nonzero(y)[0], [6, 8])   # t sees t, t-2, t-4
    assert y.shape == (10,)


def test_channels_first_and_gradients():
    x = np.random.default_rng(1).standard_normal((2, 3, 7))
    layer = layers.Conv1D(2, 3, padding="causal", data_format="channels_first",
                          activation="relu", dtype="float64", bias_initializer="random_normal")
    y = layer(x).numpy()
    expected = conv_nd(x.transpose(0, 2, 1), layer.kernel.numpy(), (1,), "causal", (1,))
    np.testing.assert_allclose(y, np.maximum(expected + layer.bias.numpy(), 0)
                               .transpose(0, 2, 1), atol=1e-10)
    check_gradients(lambda x, k, b: layer(x), [x, layer.kernel, layer.bias])


def test_weights_config_and_errors():
    layer = layers.Conv1D(8, 5, padding="causal")
    layer.build((None, 20, 3))
    assert layer.kernel.shape == (5, 3, 8) and layer.name == "conv1d"
    config = layer.get_config()
    assert config["padding"] == "causal" and config["kernel_size"] == (5,)
    assert layers.Conv1D.from_config(config).padding == "causal"
    with pytest.raises(ValueError, match=r"Conv1D layer 'conv1d_1'.*larger than the input"):
        layers.Conv1D(2, 5)(keras.Input((3, 2)))
    with pytest.raises(ValueError, match=r"^The `kernel_size` argument must be a tuple of 1 "
                                         r"integers\. Received kernel_size=\(3, 3\)$"):
        layers.Conv1D(2, (3, 3))

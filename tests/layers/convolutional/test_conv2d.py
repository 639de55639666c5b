"""Conv2D: forward against scipy correlate, weights, gradients, config, errors."""
import numpy as np
import pytest
from conv_layer_reference import conv_nd

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


@pytest.mark.parametrize("kwargs", [
    dict(filters=4, kernel_size=3),
    dict(filters=4, kernel_size=(3, 2), strides=2, padding="same"),
    dict(filters=2, kernel_size=3, padding="same", dilation_rate=2),
    dict(filters=6, kernel_size=3, strides=(1, 2), groups=3, use_bias=False),
    dict(filters=4, kernel_size=1, strides=2),
])
def test_forward_matches_scipy_reference(kwargs):
    x = np.random.default_rng(0).standard_normal((2, 9, 8, 3)).astype("float32")
    layer = layers.Conv2D(**kwargs, bias_initializer="random_normal")
    y = layer(x).numpy()
    strides = layer.strides
    expected = conv_nd(x, layer.kernel.numpy(), strides, layer.padding, layer.dilation_rate,
                       layer.groups)
    if layer.use_bias:
        expected = expected + layer.bias.numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    assert y.shape == layer.compute_output_shape((2, 9, 8, 3))


def test_channels_first_relu_and_auto_names():
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 7)).astype("float32")
    layer = layers.Conv2D(5, 3, activation="relu", data_format="channels_first")
    y = layer(x).numpy()
    assert layer.name == "conv2d" and layers.Conv2D(1, 1).name == "conv2d_1"
    expected = conv_nd(x.transpose(0, 2, 3, 1), layer.kernel.numpy(), (1, 1), "valid", (1, 1))
    np.testing.assert_allclose(y, np.maximum(expected.transpose(0, 3, 1, 2), 0), rtol=1e-4,
                               atol=1e-5)
    assert layer.compute_output_shape((None, 3, 7, 7)) == (None, 5, 5, 5)


def test_weights_layout_initializer_and_keras_loading():
    layer = layers.Conv2D(8, (3, 5), groups=2)
    layer.build((None, 10, 10, 4))
    assert [w.name for w in layer.weights] == ["kernel", "bias"]
    assert layer.kernel.shape == (3, 5, 2, 8) and layer.bias.shape == (8,)
    limit = np.sqrt(6 / (3 * 5 * 2 + 3 * 5 * 8))     # glorot: fan_in = kh*kw*in
    assert np.abs(layer.kernel.numpy()).max() <= limit
    assert np.abs(layer.kernel.numpy()).max() > 0.8 * limit
    weights = [np.random.rand(3, 5, 2, 8).astype("float32"), np.arange(8, dtype="float32")]
    layer.set_weights(weights)
    np.testing.assert_array_equal(layer.get_weights()[0], weights[0])


@pytest.mark.parametrize("kwargs", [
    dict(padding="same", strides=2, activation="relu"),
    dict(dilation_rate=2, activation="tanh"),
    dict(groups=2, data_format="channels_first"),
])
def test_gradients_wrt_inputs_kernel_and_bias(kwargs):
    layer = layers.Conv2D(2, 3, dtype="float64", bias_initializer="random_normal", **kwargs)
    shape = (1, 2, 6, 6) if kwargs.get("data_format") == "channels_first" else (1, 6, 6, 2)
    layer.build(shape)
    x = np.random.default_rng(2).standard_normal(shape)
    check_gradients(lambda x, kernel, bias: layer(x), [x, layer.kernel, layer.bias])


def test_config_round_trip_and_keys():
    layer = layers.Conv2D(4, 3, strides=2, padding="same", activation="relu", name="c",
                          kernel_regularizer=keras.regularizers.L2(0.1))
    config = layer.get_config()
    for key in ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                "groups", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                "kernel_constraint", "bias_constraint"):
        assert key in config
    assert config["kernel_size"] == (3, 3) and config["strides"] == (2, 2)
    assert config["activation"] == "relu" and config["padding"] == "same"
    clone = layers.Conv2D.from_config(config)
    assert clone.kernel_size == (3, 3) and clone.padding == "same" and clone.name == "c"


def test_regularizers_add_losses():
    layer = layers.Conv2D(2, 3, kernel_regularizer=keras.regularizers.L2(0.1),
                          activity_regularizer=keras.regularizers.L1(0.01))
    y = layer(np.ones((2, 4, 4, 1), "float32"))
    penalties = [float(p) for p in layer.losses]
    assert len(penalties) == 2
    assert any(np.isclose(p, 0.1 * np.sum(layer.kernel.numpy() ** 2), rtol=1e-5)
               for p in penalties)
    assert any(np.isclose(p, 0.01 * np.abs(y.numpy()).sum() / 2, rtol=1e-5) for p in penalties)


def test_errors_name_layer_and_shapes():
    with pytest.raises(ValueError, match=r"Conv2D layer 'conv2d'.*kernel.*larger than the input"
                                         r".*\(None, 3, 3, 1\)"):
        layers.Conv2D(1, 5)(keras.Input((3, 3, 1)))
    # Keras 3.15.1's input-spec text, checked before `build` as in Keras
    with pytest.raises(ValueError, match=r"layer 'conv2d_1' is incompatible with the layer: "
                                         r"expected min_ndim=4, found ndim=3. Full shape "
                                         r"received: \(2, 8, 8\)"):
        layers.Conv2D(1, 3)(np.zeros((2, 8, 8)))
    with pytest.raises(ValueError, match=r"^The number of input channels must be evenly "
                                         r"divisible by the number of groups\. Received groups=2, "
                                         r"but the input has 3 channels \(full input shape is "
                                         r"\(1, 5, 5, 3\)\)\.$"):
        layers.Conv2D(4, 3, groups=2)(np.zeros((1, 5, 5, 3)))
    with pytest.raises(ValueError, match="filters must be evenly divisible.*groups=4, filters=6"):
        layers.Conv2D(6, 3, groups=4)
    # Keras's words (a set: either order)
    with pytest.raises(ValueError, match=r"The `padding` argument must be a list/tuple or "
                       r"one of \{'(valid|same)', '(valid|same)'\}. Received: causal"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="unknown data_format 'nchw'"):
        layers.Conv2D(2, 3, data_format="nchw")
    with pytest.raises(ValueError, match="`filters`.*filters=0"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match="strides > 1` not supported"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    layer = layers.Conv2D(2, 3)
    layer(np.zeros((1, 5, 5, 1)))
    with pytest.raises(ValueError, match=r"Conv2D layer 'conv2d_\d+'.*larger than the input"):
        layer(np.zeros((1, 2, 2, 1)))


def test_in_a_functional_model_with_unknown_batch():
    inputs = keras.Input((8, 8, 3))
    outputs = layers.Conv2D(4, 3, padding="same")(inputs)
    assert tuple(outputs.shape) == (None, 8, 8, 4)
    model = keras.Model(inputs, outputs)
    assert model.predict(np.zeros((3, 8, 8, 3), "float32"), verbose=0).shape == (3, 8, 8, 4)


# Issue 13 regression: channels_first with groups ----------------------------------
def _keras_replay(case_id):
    import importlib
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "differential"))
    importlib.import_module("test_differential").replay(case_id)


@pytest.mark.parametrize("case_id", [
    "layer/Conv2D[channels_first,width==filters,groups=2,activation=None]",
    "layer/Conv2D[channels_first,width==filters,groups=2,activation=relu]",
    "layer/Conv2D[data_format=channels_first,groups=2,strides=1,padding=valid,dilation=1]",
    "layer/Conv2D[data_format=channels_first,groups=2,strides=2,padding=same,dilation=1]",
])
def test_grouped_channels_first_matches_keras(case_id):
    """Outputs and kernel/bias/input gradients against Keras 3.15.1 on TensorFlow."""
    _keras_replay(case_id)


def test_channels_first_bias_follows_keras_tensorflow_when_width_equals_filters():
    """Keras-TF adds the bias on the last axis when it has `filters` entries (fidelity.md)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 4, 6, 6)).astype("float32")
    conv = layers.Conv2D(4, 3, groups=2, data_format="channels_first")
    conv.build(x.shape)
    kernel = rng.normal(size=(3, 3, 2, 4)).astype("float32")
    bias = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    conv.set_weights([kernel, bias])
    no_bias = keras.ops.conv(x, kernel, data_format="channels_first").numpy()
    np.testing.assert_allclose(conv(x).numpy() - no_bias,
                               np.broadcast_to(bias, no_bias.shape), atol=1e-5)

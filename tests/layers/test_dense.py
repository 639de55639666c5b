import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops
from kerasish.testing import check_gradients, check_second_order


def test_forward_matches_numpy():
    layer = layers.Dense(3, activation="relu")
    x = np.random.randn(4, 5).astype("float32")
    y = layer(x)
    expected = np.maximum(x @ layer.kernel.numpy() + layer.bias.numpy(), 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    assert layer.kernel.shape == (5, 3) and layer.bias.shape == (3,)
    assert [w.name for w in layer.weights] == ["kernel", "bias"]


def test_higher_rank_inputs_apply_to_last_axis():
    layer = layers.Dense(2)
    x = np.random.randn(3, 4, 5).astype("float32")
    y = layer(x)
    assert y.shape == (3, 4, 2)
    np.testing.assert_allclose(y.numpy(), x @ layer.kernel.numpy() + layer.bias.numpy(), rtol=1e-5)


@pytest.mark.parametrize("activation", [None, "relu", "tanh", "softmax"])
def test_gradients_match_finite_differences(activation):
    layer = layers.Dense(3, activation=activation, dtype="float64")
    layer.build((4, 5))
    x = np.random.randn(4, 5)
    check_gradients(lambda x, k, b: ops.dense(x, k, b, activation=layer.activation),
                    [x, layer.kernel.numpy(), layer.bias.numpy()])


def test_second_order_through_fused_dense():
    x = np.random.randn(3, 4)
    w = np.random.randn(4, 2)
    b = np.random.randn(2)
    check_second_order(lambda x, w, b: ops.dense(x, w, b, activation="relu"), [x, w, b])


def test_use_bias_false_and_config_round_trip():
    layer = layers.Dense(7, use_bias=False, name="d")
    layer.build((None, 3))
    assert len(layer.weights) == 1
    config = layer.get_config()
    assert config["units"] == 7 and config["use_bias"] is False and config["name"] == "d"
    assert config["kernel_initializer"]["class_name"] == "GlorotUniform"
    clone = layers.Dense.from_config(config)
    assert clone.units == 7 and clone.use_bias is False


def test_invalid_units_and_wrong_input_shape():
    with pytest.raises(ValueError, match="units"):
        layers.Dense(0)
    layer = layers.Dense(2)
    layer(np.zeros((1, 4)))
    # Keras 3.15.1's exact words (the refused Dense(0) took no name: this is 'dense')
    with pytest.raises(ValueError, match=re.escape(
            "Input 0 with name 'None' of layer 'dense' is incompatible with the layer: "
            "expected axis -1 of input shape to have value 4, but received input with "
            "shape (1, 5)")):
        layer(np.zeros((1, 5)))


def test_unknown_kwarg_is_a_value_error():
    # Keras 3 raises ValueError("Unrecognized keyword arguments passed to Dense: {...}").
    with pytest.raises(ValueError, match="Unrecognized keyword arguments.*colour"):
        layers.Dense(2, colour="red")


def test_kernel_regularizer_adds_loss():
    layer = layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.1))
    layer(np.ones((1, 3)))
    (penalty,) = layer.losses
    np.testing.assert_allclose(float(penalty), 0.1 * np.sum(layer.kernel.numpy() ** 2), rtol=1e-5)


@pytest.mark.parametrize("make", [lambda: layers.Dense(3), lambda: layers.Embedding(4, 2),
                                  lambda: layers.EinsumDense("ab,bc->ac", 3),
                                  lambda: layers.Conv2D(2, 3)])
def test_enable_lora_says_it_is_not_supported(make):
    # Keras's Dense/Embedding/EinsumDense/BaseConv have `enable_lora` and a
    # `lora_enabled` attribute (False); kerasish raised AttributeError instead of
    # saying LoRA is missing (keras-io parameter-efficient fine-tuning).
    layer = make()
    assert layer.lora_enabled is False
    with pytest.raises(NotImplementedError, match=r"enable_lora\(rank=2\): LoRA"):
        layer.enable_lora(2)

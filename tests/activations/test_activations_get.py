"""get / serialize / deserialize of activations."""
import pytest

import kerasish as keras
from kerasish import activations as A

NAMES = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "sigmoid", "hard_sigmoid",
         "hard_silu", "tanh", "softmax", "log_softmax", "softplus", "softsign", "silu",
         "mish", "exponential", "linear", "crelu", "celu", "glu", "hard_tanh", "hard_shrink",
         "soft_shrink", "tanh_shrink", "threshold", "squareplus", "sparse_plus",
         "sparse_sigmoid", "log_sigmoid", "sparsemax"]


@pytest.mark.parametrize("name", NAMES)
def test_get_and_serialize_round_trip_by_name(name):
    fn = A.get(name)
    assert fn is getattr(A, name)
    assert fn.__name__ == name
    assert A.serialize(fn) == name
    assert A.deserialize(name) is fn


def test_aliases_serialize_to_the_canonical_name():
    assert A.get("swish") is A.silu and A.swish is A.silu
    assert A.get("hard_swish") is A.hard_silu and A.hard_swish is A.hard_silu
    assert A.serialize(A.swish) == "silu"
    assert A.serialize(A.hard_swish) == "hard_silu"


def test_get_none_and_callables():
    assert A.get(None) is A.linear

    def double(x):
        return x * 2
    assert A.get(double) is double


def test_get_rejects_unknown_names_and_non_callables():
    # Keras 3.15.1's words
    with pytest.raises(ValueError, match="^Could not interpret activation function identifier: Relu$"):
        A.get("Relu")
    with pytest.raises(ValueError, match="^Could not interpret activation function identifier: 3$"):
        A.get(3)


def test_custom_functions_serialize_by_registered_name():
    @keras.saving.register_keras_serializable(package="ActTests")
    def scaled_tanh(x):
        return 2.0 * keras.ops.tanh(x)

    def plain(x):
        return x

    # Keras 3.15.1: a function outside keras.activations gives the function dict form,
    # named by its registered name (or its own); a user function named like a built-in
    # ("relu") gives just the name, as Keras checks only the name.
    def form(name):
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}

    def relu(x):
        return x

    assert A.serialize(scaled_tanh) == form("ActTests>scaled_tanh")
    assert A.get("ActTests>scaled_tanh") is scaled_tanh
    assert A.serialize(plain) == form("plain")
    assert A.serialize(relu) == "relu"
    assert keras.layers.Dense(2, activation=plain).get_config()["activation"] == form("plain")
    assert A.deserialize("plain", custom_objects={"plain": plain}) is plain


def test_keras_function_dict_form_and_layer_activations():
    assert A.deserialize({"module": "builtins", "class_name": "function", "config": "tanh",
                          "registered_name": "function"}) is A.tanh
    layer = keras.layers.ReLU(max_value=2.0)
    config = A.serialize(layer)
    assert config["class_name"] == "ReLU" and config["module"] == "keras.layers"
    restored = A.get(config)
    assert isinstance(restored, keras.layers.ReLU) and restored.max_value == 2.0


def test_dense_layer_stores_activation_by_name():
    layer = keras.layers.Dense(2, activation="gelu")
    assert layer.activation is A.gelu
    assert layer.get_config()["activation"] == "gelu"

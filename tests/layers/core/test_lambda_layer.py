"""Lambda's Keras 3 options: output_shape (tuple or callable), mask, arguments, and the
config Keras 3.15.1 writes (keys and function encodings checked with the oracle)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


def add_one(x):
    return x + 1


def test_output_shape_tuple_callable_and_inferred():
    assert layers.Lambda(lambda x: x[:, :2], output_shape=(2,)).compute_output_shape((None, 5)) \
        == (None, 2)
    assert layers.Lambda(lambda x: x, output_shape=lambda s: (s[0], 7)).compute_output_shape(
        (4, 5)) == (4, 7)
    assert layers.Lambda(lambda x: x[:, :3]).compute_output_shape((4, 5)) == (4, 3)


def test_output_shape_tuple_with_several_inputs_or_outputs():
    # Expected shapes printed by Keras 3.15.1: the batch size comes from the first input,
    # and a list of shapes gives one output shape per output (the keras-io Siamese
    # network's `Lambda(euclidean_distance, output_shape=(1,))([a, b])` raised here).
    from kerasish import Input
    distance = layers.Lambda(lambda t: ops.sum(t[0] - t[1], axis=1, keepdims=True),
                             output_shape=(1,))
    assert distance([Input((10,)), Input((10,))]).shape == (None, 1)
    assert distance.compute_output_shape([(4, 10), (4, 10)]) == (4, 1)
    split = layers.Lambda(lambda t: [t[:, :2], t[:, 2:]], output_shape=[(2,), (3,)])
    assert [o.shape for o in split(Input((5,)))] == [(None, 2), (None, 3)]
    assert split.compute_output_shape((7, 5)) == [(7, 2), (7, 3)]
    double = layers.Lambda(lambda d: d["x"] * 2, output_shape=(3,))
    assert double.compute_output_shape({"x": (6, 3), "y": (2, 3)}) == (6, 3)


def test_mask_and_arguments():
    layer = layers.Lambda(lambda x, scale: x * scale, arguments={"scale": 3.0},
                          mask=lambda inputs, mask: ops.greater(inputs, 0))
    out = layer(np.array([[1.0, -1.0]], "float32"))
    np.testing.assert_array_equal(out.numpy(), [[3.0, -3.0]])
    np.testing.assert_array_equal(ops.convert_to_numpy(out._keras_mask), [[True, False]])


def test_config_matches_keras_and_round_trips():
    config = layers.Lambda(lambda x: x * 2, output_shape=(3,)).get_config()
    assert sorted(config) == ["arguments", "dtype", "function", "name", "output_shape",
                              "trainable"]
    assert config["function"]["class_name"] == "__lambda__" and config["output_shape"] == (3,)
    named = layers.Lambda(add_one, output_shape=lambda s: s).get_config()
    assert named["function"] == {"module": "builtins", "class_name": "function",
                                 "config": "add_one", "registered_name": "function"}
    clone = layers.Lambda.from_config(named, custom_objects={"add_one": add_one},
                                      safe_mode=False)
    np.testing.assert_array_equal(clone(np.zeros(2, "float32")).numpy(), [1.0, 1.0])
    assert clone.compute_output_shape((2, 3)) == (2, 3)
    with pytest.raises(ValueError, match="safe_mode=False"):
        layers.Lambda.from_config(config, safe_mode=True)
    with pytest.raises(TypeError, match="Could not locate function 'add_one'"):   # as Keras
        layers.Lambda.from_config(named, safe_mode=True)


@keras.saving.register_keras_serializable()
def _registered_double(x):
    return x * 2


@keras.saving.register_keras_serializable(package="pk", name="ff")
def _registered_plus_one(x):
    return x + 1


def test_registered_and_builtin_functions_round_trip_as_keras():
    """Keras 3.15.1 (probe12 session, lam.py; keras-io DDIM's registered
    `sinusoidal_embedding` in a Lambda, cloned with `clone_model`): a Lambda's named
    function is serialized by `serialize_keras_object` (registered name) and found
    again by `deserialize_keras_object`, Keras's own functions by name."""
    config = layers.Lambda(_registered_double).get_config()["function"]
    assert config == {"module": "builtins", "class_name": "function",
                      "config": "Custom>_registered_double", "registered_name": "function"}
    assert layers.Lambda.from_config(layers.Lambda(_registered_double).get_config()) \
        .function is _registered_double
    config = layers.Lambda(_registered_plus_one).get_config()
    assert config["function"]["config"] == "pk>ff"
    assert layers.Lambda.from_config(config).function is _registered_plus_one
    relu = layers.Lambda.from_config(layers.Lambda(keras.ops.relu).get_config())
    np.testing.assert_array_equal(relu(np.array([[-1.0, 2.0]], "float32")).numpy(),
                                  [[0.0, 2.0]])
    model = keras.Sequential([keras.Input((2,)), layers.Lambda(_registered_double)])
    np.testing.assert_array_equal(keras.models.clone_model(model)(np.ones((1, 2))).numpy(),
                                  [[2.0, 2.0]])


def test_lambda_closure_and_defaults_survive_a_round_trip():
    width = 3
    layer = layers.Lambda(lambda x, k=2: x[:, -width:] * k)
    config = layer.get_config()
    assert config["function"]["config"]["closure"] == (3,)
    assert config["function"]["config"]["defaults"] == (2,)
    assert "\n" in config["function"]["config"]["code"]   # base64 in lines, as Keras
    clone = layers.Lambda.from_config(config, safe_mode=False)
    x = np.arange(10, dtype="float32").reshape(2, 5)
    np.testing.assert_array_equal(clone(x).numpy(), x[:, -3:] * 2)

"""Errors whose wording Keras's own tests pin (models and functional configs)."""
import copy

import pytest

import kerasish as keras


def _functional():
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, name="node_a")(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name="node_b")(hidden))


def test_layers_attribute_is_read_only():
    with pytest.raises(AttributeError, match="`Model.layers` attribute is reserved"):
        _functional().layers = []
    with pytest.raises(AttributeError, match=r"Use `add\(\)` and `pop\(\)`"):
        keras.Sequential().layers = []


def test_functional_config_missing_node_and_loop():
    config = _functional().get_config()
    missing = copy.deepcopy(config)
    missing["layers"] = [entry for entry in missing["layers"] if entry["name"] != "node_a"]
    with pytest.raises(ValueError, match="Missing node: node_a"):
        keras.Model.from_config(missing)
    loop = copy.deepcopy(config)
    node_a = next(entry for entry in loop["layers"] if entry["name"] == "node_a")
    node_b = next(entry for entry in loop["layers"] if entry["name"] == "node_b")
    node_a["inbound_nodes"] = copy.deepcopy(node_b["inbound_nodes"])  # a <- a's output
    with pytest.raises(ValueError, match="loop"):
        keras.Model.from_config(loop)


def test_model_from_json_lives_in_models_model_as_keras():
    from kerasish.models.model import model_from_json
    model = _functional()
    assert model_from_json(model.to_json()).to_json() == model.to_json()
    assert keras.models.model_from_json is model_from_json


def test_sequential_build_errors():
    model = keras.Sequential([keras.Input(shape=(2,), batch_size=3), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="already been configured"):
        model.build((3, 4))
    model.build((3, 2))

    class TwoPositional(keras.layers.Layer):
        def call(self, inputs, training):
            return inputs

    model = keras.Sequential([TwoPositional()])
    with pytest.raises(ValueError, match="can only have a single positional argument"):
        model.build((None, 2))

"""keras.models helpers and Model methods guide code uses (vs Keras 3.15.1)."""
import json

import numpy as np

import kerasish as keras
from kerasish import layers


def test_clone_model_rebuilds_layers_with_new_weights():
    seq = keras.Sequential([keras.Input((3,)), layers.Dense(2, name="a"), layers.Dense(1, name="b")],
                           name="seq")
    clone = keras.models.clone_model(seq)
    assert type(clone).__name__ == "Sequential" and clone.name == "seq" and clone.built
    assert [l.name for l in clone.layers] == ["a", "b"] and clone.layers[0] is not seq.layers[0]
    same = keras.models.clone_model(seq, clone_function=lambda layer: layer)
    assert same.layers[0] is seq.layers[0]
    x = keras.Input((3,), name="x")
    h = layers.Dense(2, name="d")(x)
    fun = keras.Model(x, [h, h * 2.0], name="fun")
    twin = keras.models.clone_model(fun)
    assert [l.name for l in twin.layers] == ["x", "d"] and twin.layers[1] is not fun.layers[1]
    assert [tuple(t.shape) for t in twin(np.ones((2, 3), "float32"))] == [(2, 2), (2, 2)]


def test_to_json_and_model_from_json():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2, name="a")], name="seq")
    text = model.to_json()
    assert sorted(json.loads(text)) == ["build_config", "class_name", "compile_config", "config",
                                        "module", "registered_name"]
    rebuilt = keras.models.model_from_json(text)
    assert rebuilt.name == "seq" and len(rebuilt.weights) == 2
    assert model.get_compile_config() == {}  # Keras 3.15.1: {} before compile
    model.compile("adam", "mse", metrics=["mae"])
    config = model.get_compile_config()
    assert config["loss"] == "mse" and config["metrics"] == ["mae"]


def test_save_model_function(tmp_path):
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    keras.models.save_model(model, tmp_path / "m.keras")
    assert len(keras.models.load_model(tmp_path / "m.keras").weights) == 2


def test_clone_names_inputs_as_keras():
    # Keras 3.15.1 (program /tmp/probe5/clone2.py of the probe5 session): a functional clone's
    # Input is named after the input *tensor* ("keras_tensor" for an unnamed keras.Input),
    # a Sequential clone's after the original InputLayer.
    keras.backend.clear_session()
    inp = keras.Input((4,))
    hidden = keras.layers.Dense(3)(inp)
    model = keras.Model(inp, keras.layers.Dense(1)(hidden))
    clone = keras.models.clone_model(model)
    assert [layer.name for layer in clone.layers] == ["keras_tensor", "dense", "dense_1"]
    named = keras.Input((2,), name="a")
    other = keras.Input((3,))
    two = keras.Model([named, other],
                      keras.layers.Dense(2)(keras.layers.Concatenate()([named, other])))
    assert [t.name for t in keras.models.clone_model(two).inputs] == ["a", "keras_tensor_5"]
    seq = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert [t.name for t in keras.models.clone_model(seq).inputs] == ["input_layer_2"]

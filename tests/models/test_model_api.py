"""keras.models helpers and Model methods guide code uses (vs Keras 3.15.1)."""
import json

import numpy as np
import pytest

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


def _keys(tree):
    return {k: _keys(v) if isinstance(v, dict) else np.shape(v) for k, v in tree.items()}


def test_state_tree_has_keras_layout_and_sets_values():
    # The layout Keras 3.15.1 prints for this model after one fit step.
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input(shape=(1,)), keras.layers.Dense(1, name="my_dense"),
                              keras.layers.BatchNormalization(name="bn"),
                              keras.layers.Dropout(0.2)], name="my_sequential")
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    model.fit(np.array([[1.0]]), np.array([[1.0]]), verbose=0)
    tree = model.get_state_tree(value_format="numpy_array")
    slots = {f"my_sequential_{layer}_{weight}_{slot}": shape
             for layer, weights in (("my_dense", (("kernel", (1, 1)), ("bias", (1,)))),
                                    ("bn", (("gamma", (1,)), ("beta", (1,)))))
             for weight, shape in weights for slot in ("momentum", "velocity")}
    assert _keys(tree) == {
        "trainable_variables": {"my_sequential": {
            "my_dense": {"kernel": (1, 1), "bias": (1,)}, "bn": {"gamma": (1,), "beta": (1,)}}},
        "non_trainable_variables": {
            "my_sequential": {"bn": {"moving_mean": (1,), "moving_variance": (1,)}},
            "seed_generator": {"seed_generator_state": (2,)}},
        "optimizer_variables": {"adam": {"iteration": (), "learning_rate": (), **slots}},
        "metrics_variables": {"loss": {"total": (), "count": ()},
                              "mean_absolute_error": {"total": (), "count": ()}}}
    assert list(tree["optimizer_variables"]["adam"])[:3] == [
        "iteration", "learning_rate", "my_sequential_my_dense_kernel_momentum"]
    tree["trainable_variables"]["my_sequential"]["my_dense"]["bias"] = np.array([5.0], "float32")
    model.set_state_tree({"trainable_variables": tree["trainable_variables"]})
    np.testing.assert_array_equal(model.layers[0].bias.numpy(), [5.0])
    with pytest.raises(ValueError, match="Unknown variable name: foo"):
        model.set_state_tree({"foo": {}})


def test_export_and_quantize_raise_not_implemented_naming_the_alternative():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    with pytest.raises(NotImplementedError, match=r"Model.export.*model.save\('model.keras'\)"):
        model.export("artifact")
    with pytest.raises(NotImplementedError, match="Dense.quantize\\(mode='int8'\\)"):
        model.layers[0].quantize("int8")

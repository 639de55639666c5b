import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def test_built_from_input_and_output_shapes():
    model = keras.Sequential([keras.Input((784,)), layers.Dense(512, activation="relu"),
                              layers.Dropout(0.2), layers.Dense(10, activation="softmax")])
    assert model.built and model.name == "sequential"
    assert [l.name for l in model.layers] == ["dense", "dropout", "dense_1"]
    assert model.output_shape == (None, 10)
    assert model.count_params() == 784 * 512 + 512 + 5130


def test_input_shape_kwarg_builds_immediately():
    model = keras.Sequential([layers.Dense(4, input_shape=(3,)), layers.Dense(2)])
    assert model.built and model.output_shape == (None, 2)


def test_lazy_build_on_first_call_and_add_pop():
    model = keras.Sequential()
    model.add(layers.Dense(4))
    model.add(layers.Dense(2))
    assert not model.built
    assert model(np.ones((3, 5))).shape == (3, 2)
    assert model.built
    popped = model.pop()
    assert popped.name == "dense_1" and [l.name for l in model.layers] == ["dense"]


def test_duplicate_names_and_non_layers_rejected():
    model = keras.Sequential([layers.Dense(1, name="x")])
    with pytest.raises(ValueError, match="unique names"):
        model.add(layers.Dense(1, name="x"))
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        model.add("dense")


def test_integer_inputs_keep_int_input_layer():
    class Lookup(layers.Layer):
        def call(self, x):
            return keras.ops.cast(x, "float32") * 2

    model = keras.Sequential([Lookup()])
    out = model(np.array([[1, 2]], dtype="int32"))
    np.testing.assert_array_equal(out.numpy(), [[2.0, 4.0]])


# --- Keras-3 behaviours checked against Keras 3.15.1 (guide code) -----------------------------

def test_each_build_takes_a_functional_name_as_keras():
    keras.Sequential([keras.Input((3,)), layers.Dense(2)])      # built once
    model = keras.Sequential()
    model.add(keras.Input((3,)))
    model.add(layers.Dense(2))                                  # built again
    inputs = keras.Input((3,))
    assert keras.Model(inputs, layers.Dense(1)(inputs)).name == "functional_2"


def test_a_built_model_as_first_layer_builds_the_stack():
    base = keras.Sequential([keras.Input((8,)), layers.Dense(4)], name="base")
    base.trainable = False
    model = keras.Sequential([base, layers.Dense(3)])
    assert model.built and model.output_shape == (None, 3)
    assert len(model.trainable_weights) == 2 and len(model.non_trainable_weights) == 2


def test_unbuilt_inputs_raise_attribute_errors_as_keras():
    model = keras.Sequential([layers.Dense(2)])
    for attr in ("inputs", "outputs", "input_shape", "output_shape"):
        with pytest.raises(AttributeError, match="has no defined"):
            getattr(model, attr)
        assert not hasattr(model, attr)


def test_config_keeps_tuples_like_keras():
    config = keras.Sequential([keras.Input((3,)), layers.Dense(2)]).get_config()
    assert config["build_input_shape"] == (None, 3)
    assert config["layers"][0]["config"]["batch_shape"] == (None, 3)
    assert config["layers"][1]["build_config"] == {"input_shape": (None, 3)}
    assert len(keras.Sequential.from_config(config).weights) == 2


def test_duplicate_name_message_matches_keras():
    with pytest.raises(ValueError, match="Update the `name` argument to pass a unique name"):
        keras.Sequential([layers.Dense(2, name="a"), layers.Dense(2, name="a")])


# --- the traced stack (Keras's inner functional model) ----------------------------------------

def test_dict_and_list_inputs_run_the_layers_in_turn():
    class PassStructure(layers.Layer):
        def call(self, inputs):
            return inputs

    x = {"a": np.ones((3, 2), "float32"), "b": np.zeros((3, 2), "float32")}
    out = keras.Sequential([PassStructure()])(x)
    assert isinstance(out, dict) and sorted(out) == ["a", "b"]
    out = keras.Sequential([PassStructure()])([x["a"], x["b"]])
    assert isinstance(out, list) and len(out) == 2


def test_layer_without_symbolic_shape_inference_runs_eagerly():
    class Dynamic(layers.Layer):
        def call(self, inputs):
            return inputs + 1.0

        def compute_output_spec(self, *args, **kwargs):
            raise NotImplementedError

    model = keras.Sequential([Dynamic()])
    x = np.random.random((3, 2)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), x + 1)
    assert model.built and not hasattr(model, "inputs")


def test_built_stack_runs_as_a_functional_model():
    model = keras.Sequential([keras.Input((3, 1)), layers.Dense(2)])
    assert model.inputs[0].shape == (None, 3, 1) and model.outputs[0].shape == (None, 3, 2)
    # As Keras's functional models: a missing trailing unit axis is added.
    assert model(np.ones((4, 3), "float32")).shape == (4, 3, 2)


def test_unbuilt_stack_config_has_no_build_shape():
    model = keras.Sequential([layers.Dense(2)])
    assert "build_input_shape" not in model.get_config()
    model.build((None, 3))
    assert model.get_config()["build_input_shape"] == (None, 3)


def test_deferred_input_takes_the_first_layer_compute_dtype():
    model = keras.Sequential([layers.Dense(1, dtype="float64")])
    assert model(np.ones((2, 3))).dtype == "float64"
    assert model.inputs[0].dtype == "float64"                  # as Keras's InputLayer


def test_lazy_sequential_built_by_fit_has_keras_variable_paths():
    """Keras 3.15.1 prints these paths for a Sequential without Input built by
    `fit` (its name scopes skip a layer already innermost); kerasish gave
    'sequential/sequential/dense/kernel'."""
    import kerasish as keras

    class Block(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.out = keras.layers.Dense(1)

        def call(self, x):
            return self.out(x)

    x = np.ones((2, 3), "float32")
    model = keras.Sequential([keras.layers.Dense(2, name="d"), Block(name="blk")], name="seq")
    model.compile("sgd", "mse")
    model.fit(x, x[:, :1], verbose=0)
    paths = [w.path for w in model.weights]
    assert paths[:2] == ["seq/d/kernel", "seq/d/bias"]
    assert all(p.startswith("seq/blk/dense") for p in paths[2:]) and len(paths) == 4


def test_input_and_output_are_the_nodes_ones_as_keras():
    # Keras 3.15.1 (TensorFlow), /tmp/probe4/seqio.py: Sequential keeps
    # Operation.input/output, which read the model's own call nodes, so even a
    # built stack has none until it is called on a KerasTensor (`inputs` and
    # `outputs` are the traced stack's).
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)], name="seq")
    for attr in ("input", "output"):
        with pytest.raises(AttributeError, match=f"^The layer seq has never been called and "
                                                 f"thus has no defined {attr}.$"):
            getattr(model, attr)
    assert model.inputs[0].shape == (None, 3)
    x = keras.Input((3,))
    y = model(x)
    assert model.input is x and model.output is y


def test_pop_down_to_nothing_matches_keras():
    # Keras 3.15.1: pop() removes an InputLayer like any layer, and a pop that
    # empties the model raises IndexError('list index out of range') (the
    # layer is removed first); an empty model raises the same.
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    model.pop()
    assert model.layers == []
    with pytest.raises(IndexError, match="list index out of range"):
        model.pop()
    with pytest.raises(IndexError, match="list index out of range"):
        model.pop()
    model = keras.Sequential([layers.Dense(2)])
    with pytest.raises(IndexError, match="list index out of range"):
        model.pop()
    assert model.layers == []
    model = keras.Sequential([layers.Dense(2)])
    assert model.pop(rebuild=False).name.startswith("dense") and model.layers == []

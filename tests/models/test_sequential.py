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

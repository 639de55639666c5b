import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


def two_input_model():
    a = keras.Input((16,), name="a")
    b = keras.Input((8,), name="b")
    x = layers.Dense(32, activation="relu")(a)
    y = layers.Dense(32, activation="relu")(b)
    out = layers.Dense(1)(layers.Concatenate()([x, y]))
    return keras.Model([a, b], out)


def test_model_call_returns_functional_with_keras_layer_order():
    model = two_input_model()
    assert type(model).__name__ == "Functional" and isinstance(model, keras.Model)
    assert model.name == "functional"
    assert [l.name for l in model.layers] == ["a", "b", "dense", "dense_1", "concatenate",
                                               "dense_2"]


def test_forward_matches_manual_composition():
    model = two_input_model()
    xa, xb = np.random.randn(4, 16).astype("float32"), np.random.randn(4, 8).astype("float32")
    dense, dense_1, _, dense_2 = model.layers[2:]
    expected = dense_2(ops.concatenate([dense(xa), dense_1(xb)], axis=-1)).numpy()
    np.testing.assert_allclose(model([xa, xb]).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(model({"a": xa, "b": xb}).numpy(), expected, rtol=1e-6)


def test_dict_inputs_and_outputs():
    inp = {"x": keras.Input((3,), name="x"), "y": keras.Input((2,), name="y")}
    merged = layers.Concatenate()([inp["x"], inp["y"]])
    outputs = {"sum": layers.Dense(1, name="sum")(merged), "code": layers.Dense(4, name="code")(merged)}
    model = keras.Model(inp, outputs)
    result = model({"x": np.ones((2, 3)), "y": np.ones((2, 2))})
    assert set(result) == {"sum", "code"} and result["code"].shape == (2, 4)


def test_shared_layer_and_nested_model():
    shared = layers.Dense(4)
    a, b = keras.Input((3,)), keras.Input((3,))
    inner = keras.Model(a, shared(a))
    out = layers.Add()([inner(b), shared(b)])
    model = keras.Model(b, out)
    x = np.random.randn(2, 3).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), 2 * shared(x).numpy(), rtol=1e-6)
    assert len(model.weights) == 2


def test_disconnected_graph_is_a_clear_error():
    # Keras 3's wording, output path included (checked against Keras 3.15).
    a, b = keras.Input((3,)), keras.Input((3,))
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match="Output with path `` is not connected to `inputs`"):
        keras.Model(a, out)
    with pytest.raises(ValueError, match="Output with path `1` is not connected to `inputs`"):
        keras.Model(a, [a, out])


def test_symbolic_arithmetic_and_slicing_on_keras_tensors():
    x = keras.Input((4,))
    y = (x * 2.0 + 1.0)[:, :2]
    model = keras.Model(x, y)
    assert y.shape == (None, 2)
    np.testing.assert_allclose(model(np.ones((3, 4))).numpy(), np.full((3, 2), 3.0))


def test_custom_layer_without_compute_output_shape_is_traced():
    class Doubler(layers.Layer):
        def call(self, x):
            return ops.concatenate([x, x], axis=1)

    x = keras.Input((None, 5))
    y = Doubler()(x)
    assert y.shape == (None, None, 5)


def test_wrong_number_of_inputs():
    model = two_input_model()
    # Keras 3.15's wording when every input is named (an Input's name here).
    with pytest.raises(ValueError, match=r"expects 2 named input\(s\) with keys"):
        model(np.ones((1, 16)))


def test_gradients_flow_to_all_weights():
    model = two_input_model()
    with keras.GradientTape() as tape:
        loss = ops.mean(model([np.ones((2, 16)), np.ones((2, 8))]) ** 2)
    grads = tape.gradient(loss, model.trainable_weights)
    assert len(grads) == 6 and all(g is not None for g in grads)


# --- Keras-3 behaviours checked against Keras 3.15.1 (guide code) -----------------------------

def test_input_output_properties_are_the_constructor_structures():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    h = layers.Dense(4)(layers.concatenate([a, b]))
    model = keras.Model([a, b], {"h": h})
    assert model.input == [a, b] and model.output == {"h": h}
    assert model.input_shape == [(None, 3), (None, 2)] and model.output_shape == (None, 4)
    encoder = keras.Model(a, layers.Dense(2)(a))
    encoder(keras.Input((3,)))                     # a second node must not change `input`
    assert encoder.input is a


def test_feature_extraction_from_a_model_called_again():
    inp = keras.Input((4,), name="original")
    x = layers.Dense(3)(inp)
    encoder = keras.Model(inp, layers.Dense(2)(x), name="encoder")
    encoder(keras.Input((4,), name="img"))
    features = keras.Model(encoder.input, [l.output for l in encoder.layers])
    assert [tuple(f.shape) for f in features(np.ones((1, 4), "float32"))] == [
        (1, 4), (1, 3), (1, 2)]


def test_subclass_called_with_inputs_and_outputs_becomes_functional():
    class CustomModel(keras.Model):
        def train_step(self, data):
            return super().train_step(data)

    inputs = keras.Input((3,))
    model = CustomModel(inputs, layers.Dense(1)(inputs))
    assert isinstance(model, keras.models.Functional) and model.name == "custom_model"
    assert [l.name for l in model.layers] == ["input_layer", "dense"]
    model.compile("sgd", "mse")
    history = model.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    assert list(history.history) == ["loss"]
    clone = CustomModel.from_config(model.get_config())
    assert type(clone) is CustomModel and len(clone.weights) == 2


def test_model_from_config_dispatches_functional_configs():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, layers.Dense(2)(inputs))
    rebuilt = keras.Model.from_config(model.get_config())
    assert type(rebuilt).__name__ == "Functional" and len(rebuilt.weights) == 2


def test_non_keras_tensor_inputs_message():
    with pytest.raises(ValueError, match="All `inputs` values must be KerasTensors"):
        keras.Model(np.ones(3), keras.Input((3,)))


def test_get_layer_messages_match_keras():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2, name="d1")])
    with pytest.raises(ValueError, match="Provide either a layer name or layer index"):
        model.get_layer()
    with pytest.raises(ValueError, match=r"No such layer: nope. Existing layers are: \['d1'\]"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="Was asked to retrieve layer at index 5"):
        model.get_layer(index=5)


# Issue 13 regressions: dict inputs and duplicate names, as Keras 3.15.1 -------------
def _dict_model():
    a = keras.Input((2,), name="a")
    b = keras.Input((2,), name="b")
    return keras.Model({"a": a, "b": b}, layers.Add()([a, b]))


def test_dict_inputs_with_unknown_keys_raise_like_keras():
    model = _dict_model()
    with pytest.raises(ValueError) as info:
        model({"z": np.ones((1, 2)), "y": np.ones((1, 2))})
    assert str(info.value) == ('Missing data for input "a". You passed a data dictionary '
                               "with keys ['z', 'y']. Expected the following keys: ['a', 'b']")
    with pytest.raises(ValueError, match='Missing data for input "a"'):
        model.predict({"z": np.ones((1, 2)), "y": np.ones((1, 2))}, verbose=0)


def test_dict_inputs_are_matched_by_name_not_position():
    model = _dict_model()
    with pytest.warns(UserWarning, match="The structure of `inputs` doesn't match"):
        out = model({"b": np.full((1, 2), 2.0), "a": np.ones((1, 2)),
                     "extra": np.zeros((1, 2))})
    np.testing.assert_array_equal(out.numpy(), [[3.0, 3.0]])
    with pytest.raises(ValueError, match='Missing data for input "b"'):
        model({"a": np.ones((1, 2))})


def test_two_layers_with_one_name_raise_like_keras():
    x = keras.Input((2,))
    h = layers.Dense(2, name="d")(x)
    h = layers.Dense(2, name="d")(h)
    with pytest.raises(ValueError) as info:
        keras.Model(x, h)
    assert str(info.value) == ('The name "d" is used 2 times in the model. All operation '
                               "names should be unique.")


def test_a_shared_layer_is_not_a_duplicate_name():
    x = keras.Input((2,))
    shared = layers.Dense(2, name="d")
    model = keras.Model(x, shared(shared(x)))
    assert [l.name for l in model.layers].count("d") == 1


def test_list_inputs_to_a_dict_model_warn_or_raise_like_keras():
    i1, i2 = keras.Input((2,), name="i1"), keras.Input((2,), name="i2")
    model = keras.Model({"i1": i1, "i2": i2}, layers.Add()([i1, i2]))
    with pytest.warns(UserWarning, match="The structure of `inputs` doesn't match"):
        model([np.ones((1, 2)), np.zeros((1, 2))])
    x1, x2 = keras.Input((3,), name="IT"), keras.Input((3,), name="IS")
    unsorted = keras.Model({"IT": x1, "IS": x2}, layers.Subtract()([x1, x2]))
    with pytest.raises(ValueError, match="The structure of `inputs` doesn't match"):
        unsorted([np.ones((1, 3)), np.zeros((1, 3))])


# --- inputs as Keras's Functional takes them --------------------------------------------------

def test_operations_list_layers_and_ops():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    model = keras.Model([a, b], layers.Dense(2, name="d")(a + b))
    assert [type(op).__name__ for op in model.operations] == ["InputLayer", "InputLayer",
                                                              "Add", "Dense"]
    assert len(model.layers) == 3


def test_input_spec_checks_shapes_like_keras():
    x = keras.Input((4,), name="x")
    model = keras.Model(x, layers.Dense(2)(x))
    with pytest.raises(ValueError, match=r"expected shape=\(None, 4\), found shape=\(2, 3\)"):
        model(np.zeros((2, 3)))
    assert model(np.zeros((2, 4, 1))).shape == (2, 2)      # an extra unit axis is squeezed
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    two = keras.Model({"a": a, "b": b}, layers.Dense(2)(a + b))
    with pytest.raises(ValueError, match=r"expects 2 named input\(s\) with keys \['a', 'b'\]"):
        two(np.zeros((2, 4)))


def test_rank_mismatch_names_the_input_and_its_path():
    inputs = [{"foo": keras.Input((3,), name="my_input")}]
    model = keras.Model(inputs, layers.Dense(3)(inputs[0]["foo"]))
    with pytest.warns(UserWarning, match="structure of `inputs`"):
        with pytest.raises(ValueError, match=r"name 'my_input' and path '0.foo'"):
            model(np.zeros(()))


def test_inputs_are_cast_to_the_input_dtype():
    x = keras.Input((2,), dtype="float16")
    model = keras.Model(x, x + 2)
    assert model(np.ones((2, 2))).dtype == "float16"     # float64 data, float16 Input and op


def test_dict_model_takes_its_own_keys_not_the_input_names():
    a, b = keras.Input((3,), name="a"), keras.Input((4,), name="b")
    out = layers.Concatenate()([a, b])
    with pytest.warns(UserWarning, match="keys in the dict must match the names"):
        model = keras.Model({"c": a, "d": b}, out)
    assert model({"c": np.ones((2, 3)), "d": np.ones((2, 4))}).shape == (2, 7)
    with pytest.raises(ValueError, match='Missing data for input "c"'):
        model({"a": np.ones((2, 3)), "b": np.ones((2, 4))})


def test_required_input_given_none_raises():
    class Optional(layers.Layer):
        def call(self, x, y=None):
            return x if y is None else x + y

        def compute_output_shape(self, x_shape):
            return x_shape

    x, y = keras.Input((2,), name="x"), keras.Input((2,), name="y")
    model = keras.Model([x, y], Optional()(x, y))
    with pytest.raises(ValueError, match="The input 'y' is not optional"):
        model([np.ones((2, 2)), None])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="not optional"):
        model.fit([np.ones((4, 2)), None], np.ones((4, 2)), verbose=0)


def test_model_from_intermediate_tensors_starts_at_new_inputs():
    inputs = keras.Input((None, 2), name="input")
    x1 = layers.Dense(3, name="dense1")(inputs)
    x2 = layers.Dense(4, name="dense2")(x1)
    outputs = layers.Dense(5, name="dense3")(x2)
    full = keras.Model(inputs, outputs)
    tail = keras.Model(x1, outputs)
    assert isinstance(tail.layers[0], layers.InputLayer)
    assert [l.name for l in tail.layers[1:]] == ["dense2", "dense3"]
    h = np.random.random((2, 1, 3)).astype("float32")
    np.testing.assert_allclose(tail(h).numpy(), full.get_layer("dense3")(
        full.get_layer("dense2")(h)).numpy(), rtol=1e-6)
    assert len(full.layers) == 4          # the original graph is unchanged
    assert full(np.ones((1, 1, 2))).shape == (1, 1, 5)


def test_unused_input_and_nested_outputs_survive_a_config_round_trip():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    model = keras.Model({"a": a, "b": b}, (layers.Dense(2)(a), {"n": layers.Dense(1)(a)}))
    # As Keras: the unused Input has depth 0, ahead of the output layers.
    assert [l.name for l in model.layers[:2]] == ["a", "b"] and len(model.layers) == 4
    clone = keras.Model.from_config(model.get_config())
    out = clone({"a": np.ones((2, 3)), "b": np.ones((2, 3))})
    assert isinstance(out, tuple) and isinstance(out[1], dict)
    assert out[0].shape == (2, 2) and out[1]["n"].shape == (2, 1)


def test_symbolic_call_with_extra_dict_keys_warns_once():
    a = keras.Input((3,), batch_size=2, name="a")
    model = keras.Model({"a": a}, a * 5)
    with pytest.warns(UserWarning) as record:
        model({"a": np.ones((2, 3)), "b": np.ones((2, 1))})
        model({"a": keras.Input((3,), batch_size=2), "b": keras.Input((1,), batch_size=2)})
    assert len(record) == 1


def test_nested_list_inputs_pass_the_input_spec_check():
    a, b = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([a, b], layers.Add()([a, b]))
    out = model(([np.ones((2, 4))], np.ones((2, 4))))      # Keras flattens the structure
    np.testing.assert_array_equal(out.numpy(), np.full((2, 4), 2.0))


def test_model_training_mode_overrides_training_recorded_in_the_graph():
    inputs = keras.Input((20,))
    model = keras.Model(inputs, layers.Dropout(0.5, seed=1)(inputs, training=True))
    x = np.ones((4, 20), "float32")
    np.testing.assert_array_equal(model.predict(x, batch_size=2, verbose=0), x)  # as Keras
    np.testing.assert_array_equal(model(x, training=False).numpy(), x)
    assert np.any(model(x).numpy() == 0)          # no mode given: the recorded True holds


def test_a_string_input_takes_an_object_array_of_text():
    # A text dataset's batches are object arrays of str; Keras 3.15.1 feeds them to a
    # `keras.Input(dtype="string")` model (keras-io text classification's end-to-end
    # model); kerasish raised "data type 'string' not understood".
    import kerasish as keras
    inputs = keras.Input((1,), dtype="string")
    vectorize = keras.layers.TextVectorization(vocabulary=["ab", "c", "d"],
                                               output_sequence_length=3)
    model = keras.Model(inputs, vectorize(inputs))
    text = np.array(["ab c", "d"], dtype=object)
    np.testing.assert_array_equal(model.predict(text, verbose=0), [[2, 3, 0], [4, 0, 0]])
    # Keras 3.15.1 (probe12 session, strin3.py): a numpy str array is refused
    with pytest.raises(ValueError, match=r"^Invalid dtype: str128$"):
        model.predict(text.astype(str), verbose=0)


def test_add_loss_on_functional_raises_like_keras():
    # Keras 3.15.1: Functional.add_loss raises a bare NotImplementedError (the
    # guide's VAE `vae.add_loss(kl_loss)` fails there); a Sequential accepts it.
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    with pytest.raises(NotImplementedError):
        model.add_loss(keras.ops.ones(()))
    seq = keras.Sequential([keras.layers.Dense(2)])
    seq.add_loss(keras.ops.ones(()))
    assert len(seq.losses) == 1


def test_no_public_input_names_like_keras3():
    # Keras 3.15.1: `hasattr(model, "input_names")` is False (a Keras 2
    # attribute; code uses it to tell Keras 2 from 3), `output_names` exists.
    a = keras.Input((3,), name="a")
    model = keras.Model(a, keras.layers.Dense(2, name="d")(a))
    assert not hasattr(model, "input_names")
    assert model.output_names == ["d"]


def test_nodes_run_in_kerass_order_within_a_depth():
    """Keras 3.15.1 (probe12 session, order.py) runs a graph deepest first and, within
    a depth, in the order its depth walk (from the last output back) reached the
    nodes. It matters when a call changes shared tensors: MultiHeadAttention deletes
    its inputs' masks, so an Attention run after it on the same tensor is unmasked."""
    order = []

    class Record(keras.layers.Layer):
        def call(self, x):
            order.append(self.name)
            return x

    def run(outputs_of):
        inputs = keras.Input((3,))
        a, b, e = (Record(name=n)(inputs) for n in "abe")
        c, d = Record(name="c")(a), Record(name="d")(b)
        model = keras.Model(inputs, outputs_of(a, b, c, d, e))
        del order[:]
        model.predict(np.ones((1, 3)), verbose=0)
        return list(order)

    assert run(lambda a, b, c, d, e: {"z": a, "y": b, "c": c, "d": d}) == ["b", "a", "d", "c"]
    assert run(lambda a, b, c, d, e: [b, a, d, c]) == ["a", "b", "c", "d"]
    assert run(lambda a, b, c, d, e: [c, d]) == ["b", "a", "d", "c"]
    assert run(lambda a, b, c, d, e: [d, c, e]) == ["a", "b", "e", "c", "d"]


def test_multi_head_attention_first_leaves_a_later_attention_unmasked():
    keras.utils.set_random_seed(31)
    inputs = keras.Input((5,), dtype="int32")
    embedded = keras.layers.Embedding(10, 4, mask_zero=True)(inputs)
    mha = keras.layers.MultiHeadAttention(2, 2)(embedded, embedded)
    att = keras.layers.Attention()([embedded, embedded])
    model = keras.Model(inputs, {"mha": mha, "att": att})
    out = model.predict(np.array([[1, 2, 0, 0, 0]]), verbose=0)
    # Keras: "mha" runs first, so "att" sees no mask: padded steps are not zeroed
    assert np.all(np.abs(out["att"][0, 2:]) > 0)


def test_a_functional_subclass_with_its_own_config_is_rebuilt_by_its_constructor():
    """Keras 3.15.1 (probe12 session, funcsub.py): Functional has no `from_config`
    of its own, so a subclass building its graph in `__init__` and returning its own
    arguments from `get_config` is rebuilt as `cls(**config)`."""
    class Built(keras.Model):
        def __init__(self, units=3, **kwargs):
            inputs = keras.Input((4,))
            outputs = layers.Dense(1)(layers.Dense(units)(inputs))
            super().__init__(inputs=inputs, outputs=outputs, **kwargs)
            self.units = units

        def get_config(self):
            return {"units": self.units, "name": self.name}

    model = Built(units=5, name="built")
    again = Built.from_config(model.get_config())
    assert type(again) is Built and again.name == "built" and again.units == 5
    assert [w.shape for w in again.weights] == [(4, 5), (5,), (5, 1), (1,)]

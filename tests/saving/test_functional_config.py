"""Functional configs (`get_config` / `to_json`) as Keras 3.15.1 writes them."""
import json

import numpy as np

import kerasish as keras
from kerasish import layers, ops

# Printed by Keras 3.15.1 for the model built in the first test (exact text).
SINGLE_INPUT_JSON = '{"module": "keras.src.models.functional", "class_name": "Functional", "config": {"name": "m", "trainable": true, "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 3], "dtype": "float32", "sparse": false, "ragged": false, "name": "i", "optional": false}, "registered_name": null, "name": "i", "inbound_nodes": []}, {"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "trainable": true, "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null}, "units": 2, "activation": "linear", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null, "input_axes": null, "output_axes": null}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null, "quantization_config": null}, "registered_name": null, "build_config": {"input_shape": [null, 3]}, "name": "d", "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 3], "dtype": "float32", "keras_history": ["i", 0, 0]}}], "kwargs": {}}]}], "input_layers": ["i", 0, 0], "output_layers": ["d", 0, 0]}, "registered_name": "Functional", "build_config": {"input_shape": null}, "compile_config": {}}'


def test_to_json_of_a_single_input_model_is_keras_text():
    i = keras.Input((3,), name="i")
    model = keras.Model(i, layers.Dense(2, name="d")(i), name="m")
    assert model.to_json() == SINGLE_INPUT_JSON


def test_node_entries_and_nested_models_as_keras():
    # Keras 3.15.1: args are a tuple, shapes tuples, a layer whose call takes
    # `mask` records mask=None, build_config comes before name, a list input
    # stays a list, and a nested model carries its module/build/compile config.
    i = keras.Input((3,), name="i")
    inner_in = keras.Input((2,), name="inner_in")
    inner = keras.Model(inner_in, layers.Dense(2, name="inner_d")(inner_in), name="inner")
    out = inner(layers.BatchNormalization(name="bn")(layers.Dense(2, name="d")(i)))
    config = keras.Model([i], [out], name="m").get_config()
    bn = config["layers"][2]
    assert list(bn) == ["module", "class_name", "config", "registered_name", "build_config",
                        "name", "inbound_nodes"]
    assert bn["build_config"] == {"input_shape": (None, 2)}   # a tuple, as Keras prints it
    assert type(bn["build_config"]["input_shape"]) is tuple
    assert bn["inbound_nodes"] == [{"args": ({"class_name": "__keras_tensor__", "config": {
        "shape": (None, 2), "dtype": "float32", "keras_history": ["d", 0, 0]}},),
        "kwargs": {"mask": None}}]
    nested = config["layers"][3]
    assert list(nested) == ["module", "class_name", "config", "registered_name", "build_config",
                            "compile_config", "name", "inbound_nodes"]
    assert (nested["module"], nested["registered_name"], nested["build_config"],
            nested["compile_config"]) == ("keras.src.models.functional", "Functional",
                                          {"input_shape": None}, {})
    # Keras counts a nested functional model's own node first: its first call is node 1.
    assert config["input_layers"] == [["i", 0, 0]] and config["output_layers"] == [["inner", 1, 0]]
    rebuilt = keras.Model.from_config(config)
    assert [l.name for l in rebuilt.layers] == ["i", "d", "bn", "inner"]


# Written by Keras 3.15.1: the output is a nested model's first call, ["inner", 1, 0].
NESTED_OUTPUT_JSON = '{"module": "keras.src.models.functional", "class_name": "Functional", "config": {"name": "m", "trainable": true, "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 3], "dtype": "float32", "sparse": false, "ragged": false, "name": "i", "optional": false}, "registered_name": null, "name": "i", "inbound_nodes": []}, {"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "trainable": true, "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null}, "units": 2, "activation": "linear", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null, "input_axes": null, "output_axes": null}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null, "quantization_config": null}, "registered_name": null, "build_config": {"input_shape": [null, 3]}, "name": "d", "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 3], "dtype": "float32", "keras_history": ["i", 0, 0]}}], "kwargs": {}}]}, {"module": "keras.src.models.functional", "class_name": "Functional", "config": {"name": "inner", "trainable": true, "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 2], "dtype": "float32", "sparse": false, "ragged": false, "name": "inner_in", "optional": false}, "registered_name": null, "name": "inner_in", "inbound_nodes": []}, {"module": "keras.layers", "class_name": "Dense", "config": {"name": "inner_d", "trainable": true, "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null}, "units": 2, "activation": "linear", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null, "input_axes": null, "output_axes": null}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null, "quantization_config": null}, "registered_name": null, "build_config": {"input_shape": [null, 2]}, "name": "inner_d", "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 2], "dtype": "float32", "keras_history": ["inner_in", 0, 0]}}], "kwargs": {}}]}], "input_layers": ["inner_in", 0, 0], "output_layers": ["inner_d", 0, 0]}, "registered_name": "Functional", "build_config": {"input_shape": null}, "compile_config": {}, "name": "inner", "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 2], "dtype": "float32", "keras_history": ["d", 0, 0]}}], "kwargs": {"mask": null}}]}], "input_layers": ["i", 0, 0], "output_layers": ["inner", 1, 0]}, "registered_name": "Functional", "build_config": {"input_shape": null}, "compile_config": {}}'


def test_a_keras_config_whose_output_is_a_nested_model_loads_and_round_trips():
    model = keras.models.model_from_json(NESTED_OUTPUT_JSON)  # raised KeyError before
    assert [l.name for l in model.layers] == ["i", "d", "inner"]
    assert model.outputs[0].shape == (None, 2)
    assert model.to_json() == NESTED_OUTPUT_JSON


def test_functional_build_config_as_keras():
    # Keras 3.15.1 printed {'input_shape': None} for a functional model.
    i = keras.Input((3,))
    assert keras.Model(i, layers.Dense(2)(i)).get_build_config() == {"input_shape": None}


def test_nested_sequential_build_config_keeps_tuples_as_keras():
    # Keras 3.15.1 printed {'input_shape': (None, 4)} for the nested Sequential entry.
    inner = keras.Sequential([keras.Input((4,)), layers.Dense(3)], name="inner")
    i = keras.Input((4,), name="x")
    config = keras.Model(i, layers.Dense(1)(inner(i))).get_config()
    build = config["layers"][1]["build_config"]
    assert build == {"input_shape": (None, 4)} and type(build["input_shape"]) is tuple


def test_layer_build_configs_keep_keras_tuples_and_shapes_dict():
    # Keras 3.15.1 (TensorFlow), /tmp/probe4/bcfg2.py: a functional config's
    # build_config entries are the layers' own, with tuple shapes, and a layer
    # built from several shapes (MultiHeadAttention) gives {"shapes_dict": ...}.
    inner = keras.Sequential([keras.Input((4,)), layers.Dense(3)], name="inner")
    i = keras.Input((4,), name="in")
    out = inner(layers.Add(name="add")([layers.Dense(4, name="d")(i), i]))
    builds = {l["name"]: l.get("build_config")
              for l in keras.Model(i, out).get_config()["layers"]}
    assert repr(builds) == ("{'in': None, 'd': {'input_shape': (None, 4)}, 'add': {'input_shape':"
                            " [(None, 4), (None, 4)]}, 'inner': {'input_shape': (None, 4)}}")
    q = keras.Input((3, 2))
    mha = layers.MultiHeadAttention(2, 2, name="mha")
    config = keras.Model(q, mha(q, q)).get_config()
    assert repr(config["layers"][1]["build_config"]) == \
        "{'shapes_dict': {'query_shape': (None, 3, 2), 'value_shape': (None, 3, 2)}}"
    rebuilt = keras.Model.from_config(config)
    assert rebuilt.layers[1].built and len(rebuilt.layers[1].weights) == 8
    fresh = layers.MultiHeadAttention(2, 2)
    fresh.build_from_config(mha.get_build_config())
    assert [w.shape for w in fresh.weights] == [w.shape for w in mha.weights]


def test_filled_in_masks_are_recorded_only_when_keras_records_them():
    # Keras 3.15.1 (TensorFlow), /tmp/probe4/mlistcfg.py and mlist.py: `__call__`
    # fills `mask` into the caller's kwargs, which the node records, unless it
    # converted the inputs first (a list argument, keyword arguments, or a dtype
    # other than the layer's): then neither the config nor "Connected to" has it.
    class Pair(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            return inputs[0] + inputs[1]

    class Twice(layers.Layer):
        def call(self, x, mask=None):
            return x * 2

    class Lift(layers.Layer):
        def call(self, x):
            return ops.cast(ops.expand_dims(x, -1), "float32")

        def compute_mask(self, x, mask=None):
            return ops.not_equal(x, 0)

    keras.backend.clear_session()
    i, j = keras.Input((None,), dtype="int64"), keras.Input((None,), dtype="int64")
    k = keras.Input((3,))
    a, b = Lift()(i), Lift()(j)
    outs = [Pair(name="c")([a, b]), Twice(name="d1")(k), Twice(name="d2")(i),
            Twice(name="d3")(a)]
    model = keras.Model([i, j, k], outs)
    kwargs = {l["name"]: l["inbound_nodes"][0]["kwargs"] for l in model.get_config()["layers"]
              if l["name"] in ("c", "d1", "d2", "d3")}
    assert kwargs["c"] == {} and kwargs["d1"] == {"mask": None} and kwargs["d2"] == {}
    assert kwargs["d3"]["mask"]["config"]["keras_history"] == ["not_equal", 0, 0]
    assert [type(op).__name__ for op in model.operations].count("NotEqual") == 1


# Keras 3.15.1 (TensorFlow), /tmp/probe4/getitem.py: `k[:, :, None]`'s node, as to_json writes it.
GET_ITEM_NODE = ('[{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 3, 4], '
                 '"dtype": "float32", "keras_history": ["k", 0, 0]}}, [{"class_name": "__slice__", '
                 '"config": {"start": null, "stop": null, "step": null}}, {"class_name": '
                 '"__slice__", "config": {"start": null, "stop": null, "step": null}}, null]], '
                 '"kwargs": {}}]')


def test_indexing_ops_serialize_their_key_as_keras(tmp_path):
    # A functional model with `x[...]` could not be configured or saved (the key
    # was hidden in a closure); Keras records it as GetItem's second argument.
    k = keras.Input((3, 4), name="k")
    model = keras.Model(k, [k[:, :, None], k[:, 0], k[..., 1:3], k[:, ::2, :]])
    entry = model.get_config()["layers"][1]
    assert (entry["class_name"], entry["module"]) == ("GetItem", "keras.src.ops.numpy")
    assert json.dumps(entry["inbound_nodes"]) == GET_ITEM_NODE
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    expected = [x[:, :, None], x[:, 0], x[..., 1:3], x[:, ::2, :]]
    for rebuilt in (keras.models.model_from_json(model.to_json()),
                    keras.Model.from_config(model.get_config())):
        for got, want in zip(rebuilt.predict(x, verbose=0), expected):
            np.testing.assert_array_equal(got, want)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0)[0], expected[0])


def test_ops_in_the_graph_have_no_build_config():
    """Keras 3.15.1 (probe12 session, cfgs.py): an op recorded in a functional graph
    (the NotEqual of an Embedding's mask, `ops.expand_dims`...) is an Operation,
    without a build config, while the layers keep theirs."""
    inputs = keras.Input((6,), dtype="int32")
    embedded = keras.layers.Embedding(20, 4, mask_zero=True)(inputs)
    outputs = keras.ops.multiply(keras.layers.LSTM(2)(embedded), 2.0)
    entries = {e["class_name"]: e for e in keras.Model(inputs, outputs).get_config()["layers"]}
    assert "build_config" not in entries["NotEqual"]
    assert "build_config" not in entries["Multiply"]
    assert entries["LSTM"]["build_config"] == {"input_shape": (None, 6, 4)}

"""StringLookup / IntegerLookup beyond the Keras fixtures: saving, config, datasets,
models, vocabulary files and bad input."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "preprocessing"


def test_reads_keras_archive_with_assets_and_idf_weights():
    expected = json.loads((FIXTURES / "saved_models.json").read_text())
    model = keras.models.load_model(FIXTURES / "preprocessing_model.keras")
    probe = [np.array(expected["probe"][0]), np.array(expected["probe"][1]),
             np.array(expected["probe"][2], "int64"), np.array(expected["probe"][3], "float32")]
    outputs = model(probe)
    for got, want in zip(outputs, expected["outputs"]):
        np.testing.assert_allclose(got.numpy(), np.array(want), rtol=1e-6)
    vectorize, tfidf, lookup = (layer for layer in model.layers if hasattr(layer, "get_vocabulary"))
    assert vectorize.get_vocabulary() == expected["vocabularies"][0]
    assert tfidf.get_vocabulary() == expected["vocabularies"][1]
    assert lookup.get_vocabulary() == expected["vocabularies"][2]


def test_keras_archive_round_trip_writes_assets(tmp_path):
    import zipfile
    inp = keras.Input(shape=(2,), dtype="string")
    lookup = keras.layers.StringLookup(output_mode="tf_idf")
    lookup.adapt([["a", "b"], ["a", "c"], ["c", "c"]])
    model = keras.Model(inp, lookup(inp))
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("assets/layers/string_lookup/vocabulary.txt").decode() == \
            "[UNK]\nc\na\nb"
    restored = keras.models.load_model(path)
    x = np.array([["a", "c"], ["b", "zz"]])
    np.testing.assert_array_equal(restored(x).numpy(), model(x).numpy())


def test_config_round_trip_keeps_vocabulary():
    layer = keras.layers.StringLookup(vocabulary=["x", "y"], mask_token="", num_oov_indices=2)
    clone = keras.layers.StringLookup.from_config(layer.get_config())
    assert clone.get_vocabulary() == ["", "[UNK]", "[UNK]", "x", "y"]
    assert layer.get_config()["vocabulary_size"] == 5


def test_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("earth\nwind\nfire\n", encoding="utf-8")
    layer = keras.layers.StringLookup(vocabulary=str(path))
    assert layer(np.array(["fire", "water"])).numpy().tolist() == [3, 0]
    ints = tmp_path / "ints.txt"
    ints.write_text("7\n3\n", encoding="utf-8")
    assert keras.layers.IntegerLookup(vocabulary=ints)(np.array([3, 9])).numpy().tolist() == [2, 0]


def test_adapt_from_dataset_of_strings_and_use_in_map():
    ds = keras.data.Dataset.from_tensor_slices(np.array(["a", "b", "b", "c", "b", "a"]))
    layer = keras.layers.StringLookup()
    layer.adapt(ds.batch(2))
    assert layer.get_vocabulary() == ["[UNK]", "b", "a", "c"]
    mapped = ds.batch(3).map(layer)
    assert [batch.tolist() for batch in mapped] == [[2, 1, 1], [3, 1, 2]]


def test_invert_round_trip_and_inside_sequential():
    forward = keras.layers.IntegerLookup(vocabulary=[10, 20, 30])
    backward = keras.layers.IntegerLookup(vocabulary=[10, 20, 30], invert=True)
    x = np.array([[30, 10, 99]])
    assert backward(forward(x)).numpy().tolist() == [[30, 10, -1]]
    model = keras.Sequential([keras.Input(shape=(3,), dtype="int64"), forward,
                              keras.layers.Embedding(4, 2)])
    assert model(x).shape == (1, 3, 2)


def test_one_hot_mode_symbolic_shape():
    layer = keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot")
    inp = keras.Input(shape=(4,), dtype="string")
    assert layer(inp).shape == (None, 3)


@pytest.mark.parametrize("kwargs, match", [
    ({"vocabulary": ["a", "b", "a"]}, "repeated term"),
    ({"vocabulary": ["a", "", "b"], "mask_token": ""}, "reserved mask token"),
    ({"max_tokens": 2, "num_oov_indices": 2}, "max_tokens"),
    ({"max_tokens": 1}, "max_tokens"),
    ({"output_mode": "bag"}, "output_mode"),
    ({"invert": True, "output_mode": "one_hot"}, "invert"),
    ({"vocabulary": ["a"], "output_mode": "tf_idf"}, "idf_weights"),
    ({"vocabulary": []}, "empty vocabulary"),
    ({"vocabulary": ["a", "b", "c"], "max_tokens": 3}, "larger than the maximum"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        keras.layers.StringLookup(**kwargs)


def test_adapt_empty_dataset_and_wrong_dtype():
    layer = keras.layers.StringLookup()
    with pytest.raises(ValueError, match="StringLookup.adapt.*empty"):
        layer.adapt(keras.data.Dataset.from_tensor_slices(np.array(["a"])).take(0))
    with pytest.raises(ValueError, match="StringLookup.*expected string inputs"):
        layer.adapt(np.array([1, 2]))
    with pytest.raises(ValueError, match="Cannot adapt"):
        keras.layers.StringLookup(vocabulary=["a"]).adapt(["a"])


def test_num_oov_zero_rejects_unknown_tokens():
    layer = keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)
    with pytest.raises(ValueError, match="num_oov_indices=0.*'zz'"):
        layer(np.array(["a", "zz"]))


def test_bag_of_words_needs_a_vocabulary():
    with pytest.raises(RuntimeError, match="vocabulary before calling"):
        keras.layers.StringLookup(output_mode="count")(np.array([["a"]]))


def test_get_vocabulary_lists_tokens_as_numpy_scalars_like_keras():
    layers = keras.layers
    # Keras 3.15.1 prints: ['[UNK]', np.str_('y'), np.str_('x')] and
    # [0, -1, np.int64(4), np.int64(2)]: special tokens stay Python objects.
    strings = layers.StringLookup()
    strings.adapt(np.array(["x", "y", "y"]))
    assert repr(strings.get_vocabulary()) == "['[UNK]', np.str_('y'), np.str_('x')]"
    ints = layers.IntegerLookup(mask_token=0)
    ints.adapt(np.array([4, 4, 2]))
    assert repr(ints.get_vocabulary()) == "[0, -1, np.int64(4), np.int64(2)]"
    given = layers.StringLookup(vocabulary=["a", "b"])
    assert repr(given.get_vocabulary(include_special_tokens=False)) == \
        "[np.str_('a'), np.str_('b')]"


def test_configs_as_keras_prints_them():
    # Keras 3.15.1: name/trainable/dtype first, vocabulary_dtype only for IntegerLookup
    # (before idf_weights), and vocabulary_size None until a vocabulary is set or adapted.
    config = keras.layers.StringLookup().get_config()
    assert list(config) == [
        "name", "trainable", "dtype", "invert", "max_tokens", "num_oov_indices", "oov_token",
        "mask_token", "output_mode", "sparse", "pad_to_max_tokens", "idf_weights", "vocabulary",
        "vocabulary_size", "oov_method", "salt", "encoding"]
    assert config["vocabulary_size"] is None and config["dtype"]["config"]["name"] == "float32"
    config = keras.layers.IntegerLookup(vocabulary=[1, 2]).get_config()
    assert list(config)[11:13] == ["vocabulary_dtype", "idf_weights"]
    assert config["vocabulary_size"] == 3
    layer = keras.layers.StringLookup()
    layer.adapt(["a", "b", "a"])
    assert layer.get_config()["vocabulary_size"] == 3
    text = keras.layers.TextVectorization(output_mode="tf_idf", max_tokens=5).get_config()
    assert list(text)[:4] == ["name", "trainable", "dtype", "max_tokens"]
    assert text["vocabulary_size"] == 1


def test_lookup_in_dataset_map_keeps_int64():
    # Keras 3.15.1 with tf.data (/tmp/probe4/pp_map.py): a StringLookup in
    # `map` yields int64 (tf.data keeps a tensor's dtype; only Python ints
    # become int32), and an inverted lookup yields bytes.
    lookup = keras.layers.StringLookup(vocabulary=["cat", "dog"])
    invert = keras.layers.StringLookup(vocabulary=["cat", "dog"], invert=True)
    ds = keras.data.Dataset.from_tensor_slices(np.array(["dog", "cat", "emu"])).batch(3)
    ids, = list(ds.map(lambda s: lookup(s)))
    assert ids.dtype == np.int64 and ids.tolist() == [2, 1, 0]
    words, = list(ds.map(lambda s: invert(lookup(s))))
    assert words.tolist() == [b"dog", b"cat", b"[UNK]"]


def test_built_flag_and_build_config_like_keras():
    # Keras 3.15.1 prints `False {}` for a fresh StringLookup/IntegerLookup: not
    # built until called, and an empty build config (also in a saved model).
    for layer in (keras.layers.StringLookup(), keras.layers.IntegerLookup()):
        assert layer.built is False and layer.get_build_config() == {}
    lookup = keras.layers.StringLookup(vocabulary=["a", "b"])
    lookup(np.array([["a"]]))
    assert lookup.built is True and lookup.get_build_config() == {}


@pytest.mark.parametrize("mode, kwargs, string_out, integer_out, text_out, name", [
    ("binary", {}, [[1, 1, 1]], [[1, 1, 0]], [[1, 0, 1, 1]], "multi_hot"),
    ("tf-idf", {"idf_weights": [1.0, 2.0]}, [[1.5, 1.0, 2.0]], [[1.5, 1.0, 0.0]],
     [[0.6931472, 0.0, 0.6931472, 0.6931472]], "tf_idf"),
])
def test_deprecated_output_mode_names_as_keras(mode, kwargs, string_out, integer_out,
                                               text_out, name):
    """Keras 3.15.1 (probe12 session, omode.py): "binary" is "multi_hot" and "tf-idf"
    is "tf_idf" for the lookups and TextVectorization (keras-io wide & deep)."""
    strings = keras.layers.StringLookup(vocabulary=["a", "b"], output_mode=mode, **kwargs)
    assert strings.output_mode == name and strings.get_config()["output_mode"] == name
    np.testing.assert_allclose(strings(np.array([["a", "b", "c"]], dtype=object)), string_out)
    integers = keras.layers.IntegerLookup(vocabulary=[3, 4], output_mode=mode, **kwargs)
    assert integers.get_config()["output_mode"] == name
    np.testing.assert_allclose(integers(np.array([[3, 5]])), integer_out)
    text = keras.layers.TextVectorization(output_mode=mode)
    text.adapt(["a b b", "c"])
    assert text.get_config()["output_mode"] == name
    np.testing.assert_allclose(text(["a c d"]), text_out, rtol=1e-6)


@pytest.mark.parametrize("cls, vocab, dtype, data", [
    (keras.layers.StringLookup, ["a", "b"], "string", np.array([["a", "b", "c"]], dtype=object)),
    (keras.layers.IntegerLookup, [1, 2], "int64", np.array([[1, 2, 3]])),
])
@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_counting_modes_have_kerass_float_spec_and_int_values(cls, vocab, dtype, data, mode):
    """Keras 3.15.1 (probe12 session, lkdtype.py): the symbolic spec of a counting
    mode is floatx, while on tensors one_hot/multi_hot/count come out int64."""
    layer = cls(vocabulary=vocab, output_mode=mode)
    assert layer(keras.Input((3,), dtype=dtype)).dtype == "float32"
    assert layer(data).dtype == "int64"


def test_integer_lookup_truncates_float_inputs_as_keras():
    # Keras 3.15.1 (TF casts the keys to int64): values printed by it
    layer = keras.layers.IntegerLookup(vocabulary=[1, 2, 7])
    out = layer(np.array([[1.7, -0.5, 2.2, 7.9, 3.0]], "float32"))
    assert out.numpy().tolist() == [[1, 0, 2, 3, 0]]
    adapted = keras.layers.IntegerLookup()
    adapted.adapt(np.array([1.5, 2.5, 2.7, 3.1]))
    assert adapted.get_vocabulary() == [-1, 2, 3, 1]

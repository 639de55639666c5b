"""TextVectorization beyond the Keras fixtures: callables, datasets, models, errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.layers.preprocessing.text_vectorization import DEFAULT_STRIP_REGEX


def test_strip_regex_is_keras_pattern():
    assert DEFAULT_STRIP_REGEX == r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def test_custom_standardize_and_split_callables():
    layer = keras.layers.TextVectorization(
        standardize=lambda s: np.char.upper(s),
        split=lambda s: [t.split("-") for t in s.tolist()])
    layer.adapt(["a-b-b", "c-b"])
    assert layer.get_vocabulary() == ["", "[UNK]", "B", "C", "A"]
    assert layer(["b-a-x"]).numpy().tolist() == [[2, 4, 1]]


def test_dataset_adapt_and_map_pipeline():
    texts = np.array(["good movie", "bad movie", "good good fun", "meh"])
    ds = keras.data.Dataset.from_tensor_slices((texts, np.array([1, 0, 1, 0])))
    layer = keras.layers.TextVectorization(output_sequence_length=4)
    layer.adapt(ds.map(lambda x, y: x).batch(2))
    assert layer.get_vocabulary()[:4] == ["", "[UNK]", "good", "movie"]
    vectorized = ds.batch(2).map(lambda x, y: (layer(x), y))
    x, y = next(iter(vectorized))
    assert x.tolist() == [[2, 3, 0, 0], [6, 3, 0, 0]] and y.tolist() == [1, 0]


def test_end_to_end_model_on_raw_strings():
    layer = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=5)
    layer.adapt(["a b c", "b c d", "c d e"])
    inp = keras.Input(shape=(), dtype="string")
    out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(
        keras.layers.Embedding(20, 4)(layer(inp))))
    model = keras.Model(inp, out)
    assert model.predict(np.array(["a b", "zz"], dtype=object), verbose=0).shape == (2, 1)


def test_scalar_and_2d_inputs():
    layer = keras.layers.TextVectorization(vocabulary=["a", "b"])
    assert layer(np.array([["a b"], ["b"]])).numpy().tolist() == [[2, 3], [3, 0]]
    with pytest.raises(ValueError, match="last shape dimension must be 1"):
        layer(np.array([["a", "b"]]))


@pytest.mark.parametrize("kwargs, match", [
    ({"output_mode": "one_hot"}, "output_mode"),
    ({"standardize": "upper"}, "standardize"),
    ({"split": "comma"}, "split"),
    ({"ngrams": 1.5}, "ngrams"),
    ({"output_mode": "count", "output_sequence_length": 3}, "output_sequence_length"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        keras.layers.TextVectorization(**kwargs)


def test_bad_inputs():
    layer = keras.layers.TextVectorization()
    with pytest.raises(ValueError, match="TextVectorization.adapt.*empty"):
        layer.adapt([])
    with pytest.raises(ValueError, match="expects string inputs"):
        layer(np.array([1.0]))
    with pytest.raises(NotImplementedError, match="ragged"):
        keras.layers.TextVectorization(ragged=True)


def test_split_and_lower_follow_tensorflow():
    # tf.strings.split splits on ASCII whitespace only; tf.strings.lower is ASCII-only
    # (both checked with TensorFlow 2.21).
    layer = keras.layers.TextVectorization(standardize="lower", vocabulary=["x"])
    documents = layer._preprocess(np.array(["a\xa0b c\x1cd e\u2003f g\x0bh\x85i ÀÉ Ab"]))
    assert documents == [["a\xa0b", "c\x1cd", "e\u2003f", "g", "h\x85i", "ÀÉ", "ab"]]


def test_fit_on_raw_string_arrays():
    vectorize = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=4)
    vectorize.adapt(["a b c", "b c d", "good bad"])
    inputs = keras.Input(shape=(), dtype="string")
    x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(50, 4)(vectorize(inputs)))
    model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(x))
    model.compile("adam", "binary_crossentropy")
    text = np.array(["a b", "good", "bad c", "d"], dtype=object)
    history = model.fit(text, np.array([1, 0, 1, 0]), epochs=2, batch_size=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    # Keras 3.15.1 (probe12 session, strin3.py): fit refuses a numpy str array
    with pytest.raises(ValueError, match=r"^Invalid dtype: str160$"):
        model.fit(text.astype(str), np.array([1, 0, 1, 0]), verbose=0)


@pytest.mark.parametrize("kwargs, input_shape, shape, dtype", [
    # Keras 3.15.1 on TensorFlow (oracle run of /tmp/probe4/tvspec.py): the
    # symbolic shapes follow TextVectorization.compute_output_shape, so a
    # (batch, 1) input to a bag-of-words mode shows (None, 1, depth), and the
    # bag-of-words specs are floatx.
    ({}, (1,), (None, None), "int64"),
    ({"output_sequence_length": 4}, (), (None, 4), "int64"),
    ({"output_mode": "multi_hot"}, (1,), (None, 1, 3), "float32"),
    ({"output_mode": "multi_hot"}, (), (None, 3), "float32"),
    ({"output_mode": "count", "split": None}, (1,), (None, 3), "float32"),
    ({"split": None}, (1,), (None, None), "int64"),
])
def test_symbolic_output_follows_keras(kwargs, input_shape, shape, dtype):
    layer = keras.layers.TextVectorization(vocabulary=["a", "b"], **kwargs)
    out = layer(keras.Input(input_shape, dtype="string"))
    assert out.shape == shape and out.dtype == dtype


def test_inner_lookup_takes_a_string_lookup_name():
    # Keras 3.15.1 (/tmp/probe4/cfg1.py): TextVectorization builds an unnamed
    # StringLookup, so the next StringLookup is "string_lookup_1".
    keras.backend.clear_session()
    keras.layers.TextVectorization(max_tokens=10)
    assert keras.layers.StringLookup().name == "string_lookup_1"


def test_built_on_first_call_with_input_shape_build_config_like_keras():
    # Keras 3.15.1: `False None` before the first call; called on
    # keras.Input((), dtype="string") / Input((1,)) the build config records
    # {'input_shape': (None,)} / {'input_shape': (None, 1)}.
    layer = keras.layers.TextVectorization()
    assert layer.built is False and layer.get_build_config() is None
    layer.adapt(np.array(["a b", "c"]))
    assert layer.built is False
    layer(keras.Input((), dtype="string"))
    assert layer.built is True and layer.get_build_config() == {"input_shape": (None,)}
    other = keras.layers.TextVectorization()
    other(keras.Input((1,), dtype="string"))
    assert other.get_build_config() == {"input_shape": (None, 1)}


def test_string_dtypes_and_first_layer_of_a_sequential_like_keras():
    # Keras 3.15.1: compute_dtype/dtype are "string" for TextVectorization and
    # StringLookup, "int64" for IntegerLookup; a Sequential starting with a
    # TextVectorization builds a string Input and runs on strings (Keras printed
    # an output of shape (2, 1) and the summary shapes (2, 4) ... (2, 1)).
    assert (keras.layers.TextVectorization().compute_dtype,
            keras.layers.TextVectorization().dtype) == ("string", "string")
    assert keras.layers.StringLookup().compute_dtype == "string"
    assert (keras.layers.IntegerLookup().compute_dtype,
            keras.layers.IntegerLookup().dtype) == ("int64", "int64")
    layer = keras.layers.TextVectorization(max_tokens=10, output_sequence_length=4)
    layer.adapt(np.array(["a b c", "b c d e"]))
    model = keras.Sequential([layer, keras.layers.Embedding(10, 2),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
    assert model(np.array(["a b", "zz"])).shape == (2, 1)
    assert layer.get_build_config() == {"input_shape": (2,)}


def test_tf_idf_oov_weight_is_tensorflows_float32_mean():
    """The OOV idf weight is TensorFlow's float32 `reduce_mean` of the learned weights
    (numpy's pairwise mean is one ulp off here). Values recorded from Keras 3.15.1:
    `TextVectorization(output_mode="tf_idf", ngrams=2, max_tokens=10)` adapted on DOCS."""
    docs = np.array(["The cat sat on the mat.", "The dog ate my homework!",
                     "a cat, a dog; and THE bird", "Hello world hello"], dtype=object)
    layer = keras.layers.TextVectorization(output_mode="tf_idf", ngrams=2, max_tokens=10)
    layer.adapt(docs)
    out = keras.ops.convert_to_numpy(layer(docs[:2]))
    expected = np.array([
        [6.983991622924805, 1.3862943649291992, 0.0, 0.0, 0.8472978472709656, 0.0, 0.0, 0.0,
         1.0986123085021973, 0.0],
        [5.986278533935547, 0.6931471824645996, 0.0, 0.8472978472709656, 0.0, 0.0, 0.0, 0.0,
         0.0, 1.0986123085021973]], dtype="float32")
    np.testing.assert_array_equal(out, expected)

"""kerasish -> file -> kerasish: weights, whole models and training state.

Every layer kerasish has is saved in every format (`.weights.h5`, `.keras`,
legacy `.h5`) and must give bit-identical predictions after loading into
a freshly initialised model and after `load_model`. Layers that have not
landed yet are skipped by name, so the list grows with the library.
"""
import numpy as np
import pytest

import kerasish as keras
from saving_helpers import fm

L = "layers"
# (id, classes needed, factory(keras) -> layer, input shape, input dtype)
LAYER_CASES = [
    ("dense", ["Dense"], lambda k: k.layers.Dense(3, activation="relu"), (4,), "float32"),
    ("dense_no_bias", ["Dense"], lambda k: k.layers.Dense(3, use_bias=False), (4,), "float32"),
    ("activation", ["Activation"], lambda k: k.layers.Activation("tanh"), (4,), "float32"),
    ("dropout", ["Dropout"], lambda k: k.layers.Dropout(0.3, seed=1), (4,), "float32"),
    ("flatten", ["Flatten"], lambda k: k.layers.Flatten(), (2, 3), "float32"),
    ("reshape", ["Reshape"], lambda k: k.layers.Reshape((3, 2)), (6,), "float32"),
    ("permute", ["Permute"], lambda k: k.layers.Permute((2, 1)), (2, 3), "float32"),
    ("repeat_vector", ["RepeatVector"], lambda k: k.layers.RepeatVector(2), (3,), "float32"),
    ("relu", ["ReLU"], lambda k: k.layers.ReLU(max_value=1.0), (4,), "float32"),
    ("leaky_relu", ["LeakyReLU"], lambda k: k.layers.LeakyReLU(0.2), (4,), "float32"),
    ("elu", ["ELU"], lambda k: k.layers.ELU(), (4,), "float32"),
    ("softmax", ["Softmax"], lambda k: k.layers.Softmax(), (4,), "float32"),
    ("prelu", ["PReLU"], lambda k: k.layers.PReLU(), (4,), "float32"),
    ("identity", ["Identity"], lambda k: k.layers.Identity(), (4,), "float32"),
    ("masking", ["Masking", "LSTM"], lambda k: k.Sequential([k.layers.Masking(),
                                                            k.layers.LSTM(2)]), (3, 4), "float32"),
    ("embedding", ["Embedding"], lambda k: k.layers.Embedding(10, 3), (5,), "int32"),
    ("embedding_mask", ["Embedding", "GRU"], lambda k: k.Sequential([
        k.layers.Embedding(10, 3, mask_zero=True), k.layers.GRU(2)]), (5,), "int32"),
    ("simple_rnn", ["SimpleRNN"], lambda k: k.layers.SimpleRNN(3), (5, 4), "float32"),
    ("lstm", ["LSTM"], lambda k: k.layers.LSTM(3, return_sequences=True), (5, 4), "float32"),
    ("gru", ["GRU"], lambda k: k.layers.GRU(3), (5, 4), "float32"),
    ("gru_reset_before", ["GRU"], lambda k: k.layers.GRU(3, reset_after=False), (5, 4), "float32"),
    ("rnn_cell", ["RNN", "LSTMCell"], lambda k: k.layers.RNN(k.layers.LSTMCell(2)), (5, 4),
     "float32"),
    ("stacked_cells", ["RNN", "StackedRNNCells", "GRUCell", "SimpleRNNCell"],
     lambda k: k.layers.RNN(k.layers.StackedRNNCells([k.layers.GRUCell(2),
                                                      k.layers.SimpleRNNCell(3)])),
     (5, 4), "float32"),
    ("bidirectional", ["Bidirectional", "LSTM"],
     lambda k: k.layers.Bidirectional(k.layers.LSTM(2, return_sequences=True)), (5, 4), "float32"),
    ("time_distributed", ["TimeDistributed", "Dense"],
     lambda k: k.layers.TimeDistributed(k.layers.Dense(2)), (5, 4), "float32"),
    ("conv1d", ["Conv1D"], lambda k: k.layers.Conv1D(3, 2), (6, 2), "float32"),
    ("conv2d", ["Conv2D"], lambda k: k.layers.Conv2D(3, 2, padding="same"), (5, 5, 2), "float32"),
    ("conv2d_transpose", ["Conv2DTranspose"], lambda k: k.layers.Conv2DTranspose(2, 2),
     (4, 4, 2), "float32"),
    ("depthwise_conv2d", ["DepthwiseConv2D"], lambda k: k.layers.DepthwiseConv2D(2), (4, 4, 2),
     "float32"),
    ("separable_conv2d", ["SeparableConv2D"], lambda k: k.layers.SeparableConv2D(3, 2),
     (4, 4, 2), "float32"),
    ("max_pooling2d", ["MaxPooling2D"], lambda k: k.layers.MaxPooling2D(), (4, 4, 2), "float32"),
    ("average_pooling2d", ["AveragePooling2D"], lambda k: k.layers.AveragePooling2D(2), (4, 4, 2),
     "float32"),
    ("global_average_pooling2d", ["GlobalAveragePooling2D"],
     lambda k: k.layers.GlobalAveragePooling2D(), (4, 4, 2), "float32"),
    ("batch_normalization", ["BatchNormalization"], lambda k: k.layers.BatchNormalization(),
     (4, 4, 2), "float32"),
    ("layer_normalization", ["LayerNormalization"], lambda k: k.layers.LayerNormalization(),
     (4, 3), "float32"),
    ("zero_padding2d", ["ZeroPadding2D"], lambda k: k.layers.ZeroPadding2D(1), (3, 3, 2),
     "float32"),
    ("up_sampling2d", ["UpSampling2D"], lambda k: k.layers.UpSampling2D(), (3, 3, 2), "float32"),
    ("max_pooling1d", ["MaxPooling1D"], lambda k: k.layers.MaxPooling1D(), (6, 2), "float32"),
    ("average_pooling1d", ["AveragePooling1D"], lambda k: k.layers.AveragePooling1D(2), (6, 2),
     "float32"),
    ("global_max_pooling1d", ["GlobalMaxPooling1D"], lambda k: k.layers.GlobalMaxPooling1D(),
     (6, 2), "float32"),
    ("global_average_pooling1d", ["GlobalAveragePooling1D"],
     lambda k: k.layers.GlobalAveragePooling1D(), (6, 2), "float32"),
    ("global_max_pooling2d", ["GlobalMaxPooling2D"], lambda k: k.layers.GlobalMaxPooling2D(),
     (4, 4, 2), "float32"),
    ("group_normalization", ["GroupNormalization"],
     lambda k: k.layers.GroupNormalization(groups=2), (3, 4), "float32"),
    ("cropping1d", ["Cropping1D"], lambda k: k.layers.Cropping1D(1), (6, 2), "float32"),
    ("cropping2d", ["Cropping2D"], lambda k: k.layers.Cropping2D(1), (5, 5, 2), "float32"),
    ("zero_padding1d", ["ZeroPadding1D"], lambda k: k.layers.ZeroPadding1D(1), (4, 2), "float32"),
    ("up_sampling1d", ["UpSampling1D"], lambda k: k.layers.UpSampling1D(), (4, 2), "float32"),
    ("conv1d_transpose", ["Conv1DTranspose"], lambda k: k.layers.Conv1DTranspose(2, 2), (5, 2),
     "float32"),
    ("separable_conv1d", ["SeparableConv1D"], lambda k: k.layers.SeparableConv1D(3, 2), (6, 2),
     "float32"),
    ("depthwise_conv1d", ["DepthwiseConv1D"], lambda k: k.layers.DepthwiseConv1D(2), (6, 2),
     "float32"),
    ("conv3d", ["Conv3D"], lambda k: k.layers.Conv3D(2, 2), (4, 4, 4, 1), "float32"),
    ("max_pooling3d", ["MaxPooling3D"], lambda k: k.layers.MaxPooling3D(), (4, 4, 4, 1),
     "float32"),
    ("spatial_dropout1d", ["SpatialDropout1D"], lambda k: k.layers.SpatialDropout1D(0.3),
     (5, 4), "float32"),
    ("gaussian_noise", ["GaussianNoise"], lambda k: k.layers.GaussianNoise(0.1), (4,), "float32"),
    ("unit_normalization", ["UnitNormalization"], lambda k: k.layers.UnitNormalization(), (4,),
     "float32"),
]
MERGE_CASES = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
               "Dot"]
FORMATS = ["x.weights.h5", "x.keras", "x.h5"]


def _needs(classes):
    missing = [c for c in classes if not hasattr(keras.layers, c)]
    if missing:
        pytest.skip(f"kerasish has no {missing} yet")


def _layer_model(case):
    _, classes, factory, shape, dtype = case
    _needs(classes)
    return keras.Sequential([keras.Input(shape, dtype=dtype), factory(keras)])


def _merge_model(class_name):
    _needs([class_name, "Dense"])
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    kwargs = {"axes": 1} if class_name == "Dot" else {}
    merged = getattr(keras.layers, class_name)(**kwargs)([keras.layers.Dense(3)(a),
                                                          keras.layers.Dense(3)(b)])
    return keras.Model([a, b], keras.layers.Dense(2)(merged))


def _inputs(model, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for t in model.inputs:
        shape = (3,) + tuple(t.shape[1:])
        out.append(rng.integers(0, 10, shape).astype(t.dtype) if "int" in t.dtype
                   else rng.normal(size=shape).astype(t.dtype))
    return out[0] if len(out) == 1 else out


def _randomize(model, seed=1):
    """Non-trivial positive values in every weight (BatchNorm variances included)."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(w.dtype) for w in model.get_weights()])


def _round_trip(make, fmt, tmp_path):
    model = make()
    _randomize(model)
    x = _inputs(model)
    want = model.predict(x, verbose=0)
    path = str(tmp_path / fmt)
    if fmt.endswith(".weights.h5"):
        model.save_weights(path)
    else:
        model.save(path)
    fresh = make()
    fresh.load_weights(path)
    for got in (fresh.predict(x, verbose=0),):
        _assert_same(got, want)
    if not fmt.endswith(".weights.h5"):
        _assert_same(keras.models.load_model(path).predict(x, verbose=0), want)


def _assert_same(got, want):
    for g, w in zip(fm.as_list(got), fm.as_list(want)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer_round_trip(case, fmt, tmp_path):
    _round_trip(lambda: _layer_model(case), fmt, tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("class_name", MERGE_CASES)
def test_merge_layer_round_trip(class_name, fmt, tmp_path):
    _round_trip(lambda: _merge_model(class_name), fmt, tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", [n for n in fm.BUILDERS if n != "sub"])
def test_fixture_model_round_trip(name, fmt, tmp_path):
    """Sequential, functional multi-input/-output and shared-layer models."""
    from saving_helpers import build
    _round_trip(lambda: build(name), fmt, tmp_path)


def test_nested_model_round_trip(tmp_path):
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="tanh")],
                             name="inner")
    x = keras.Input((4,))
    model = keras.Model(x, keras.layers.Dense(1)(inner(x)), name="outer")
    _randomize(model)
    path = tmp_path / "nested.keras"
    model.save(path)
    data = np.ones((2, 4), "float32")
    _assert_same(keras.models.load_model(path).predict(data, verbose=0),
                 model.predict(data, verbose=0))


def test_registered_subclassed_model(tmp_path):
    model = fm.build_sub(keras)
    _randomize(model)
    x = fm.make_inputs("sub")
    path = tmp_path / "sub.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded) is fm.subclass_type(keras)
    assert loaded.units == 3
    _assert_same(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    fresh = fm.build_sub(keras)
    fresh.load_weights(path)
    _assert_same(fresh.predict(x, verbose=0), model.predict(x, verbose=0))


class Scale(keras.layers.Layer):
    """An unregistered custom layer with a weight and a config argument."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _scale_model():
    return keras.Sequential([keras.Input((3,)), Scale(3.0), keras.layers.Dense(2)])


def test_custom_objects_required_and_used(tmp_path):
    model = _scale_model()
    _randomize(model)
    path = tmp_path / "custom.keras"
    model.save(path)
    with pytest.raises(TypeError, match=r"Could not locate class 'Scale'.*register_keras_serializable"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, custom_objects={"Scale": Scale})
    assert loaded.layers[0].factor == 3.0
    x = np.ones((2, 3), "float32")
    _assert_same(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    with keras.saving.custom_object_scope({"Scale": Scale}):
        loaded = keras.models.load_model(path)
        _assert_same(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_lambda_layer_needs_safe_mode_false(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda t: t * 2.0)])
    path = tmp_path / "lambda.keras"
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, safe_mode=False)
    np.testing.assert_array_equal(loaded.predict(np.ones((1, 3), "float32"), verbose=0),
                                  np.full((1, 3), 2.0, "float32"))


def _trained(name="shared", steps=3):
    model = fm.BUILDERS[name](keras)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=fm.LOSSES.get(name, "mse"),
                  metrics=None)
    x, y = fm.make_inputs(name), fm.make_targets(model, name)
    for _ in range(steps):
        model.train_on_batch(x, y)
    return model, x, y


@pytest.mark.parametrize("fmt", ["x.keras", "x.h5"])
def test_compile_state_restored_and_training_continues(fmt, tmp_path):
    model, x, y = _trained()
    path = tmp_path / fmt
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for m in (model, loaded):
        m.train_on_batch(x, y)
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_weights_file_carries_built_optimizer_state(tmp_path):
    model, x, y = _trained()
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    fresh = fm.BUILDERS["shared"](keras)
    fresh.compile(optimizer=keras.optimizers.Adam(0.01), loss=["mse", "mse"])
    fresh.optimizer.build(fresh.trainable_variables)
    fresh.load_weights(path)
    for a, b in zip(fresh.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_unbuilt_optimizer_skipped_with_keras_warning(tmp_path):
    model, _, _ = _trained()
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    fresh = fm.BUILDERS["shared"](keras)
    fresh.compile(optimizer="adam", loss=["mse", "mse"])
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
        fresh.load_weights(path)
    _assert_same(fresh.get_weights(), model.get_weights())


def test_renamed_layers_still_load(tmp_path):
    """Keras 3 files address layers by position/class, not by name."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="first")])
    _randomize(model)
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    other = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="renamed")])
    other.load_weights(path)
    _assert_same(other.get_weights(), model.get_weights())


@keras.saving.register_keras_serializable(package="probe5")
class _PathNet(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(3, name="hidden")

    def call(self, x):
        return self.hidden(x)


def test_loaded_models_weight_paths_have_no_model_prefix_as_keras(tmp_path):
    # Keras 3.15.1 (probe /tmp/probe5/paths3.py and save5.py, probe5 session): a built
    # Sequential's paths carry its name ("seqB/dense/kernel"), but Sequential.from_config,
    # model_from_json and load_model build each layer from its build_config on its own
    # ("dense/kernel"); a loaded subclassed model is traced outside its name scope.
    seq = keras.Sequential([keras.layers.Dense(2, name="dense")], name="seqB")
    seq.build((None, 3))
    assert [w.path for w in seq.weights] == ["seqB/dense/kernel", "seqB/dense/bias"]
    rebuilt = keras.Sequential.from_config(seq.get_config())
    assert [w.path for w in rebuilt.weights] == ["dense/kernel", "dense/bias"]
    with_input = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")],
                                  name="seqA")
    path = str(tmp_path / "s.keras")
    with_input.save(path)
    assert [w.path for w in keras.models.load_model(path).weights] == ["d/kernel", "d/bias"]
    net = _PathNet(name="net")
    net(np.zeros((1, 4), "float32"))
    assert [w.path for w in net.weights] == ["net/hidden/kernel", "net/hidden/bias"]
    path = str(tmp_path / "n.keras")
    net.save(path)
    loaded = keras.models.load_model(path)
    assert [w.path for w in loaded.weights] == ["hidden/kernel", "hidden/bias"]
    np.testing.assert_allclose(loaded.predict(np.ones((2, 4)), verbose=0),
                               net.predict(np.ones((2, 4)), verbose=0))

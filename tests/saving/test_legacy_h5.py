"""Legacy HDF5 layout details: chunked and bytes attributes, by_name, skip_mismatch.

The tf.keras 2 files come from tests/fixtures/make_keras_fixtures.py
--tf-keras; variants (chunked attributes, fixed-length or variable-length
bytes) are derived from them here with h5py, as older writers produce them.
"""
import shutil

import h5py
import numpy as np
import pytest

import kerasish as keras
from kerasish.saving import legacy_h5
from saving_helpers import FIXTURES, assert_outputs, build, entries, expected

TF2 = expected("tf_keras2")
MLP_WEIGHTS = FIXTURES / "tf_keras2" / "mlp_weights.h5"


def _copy(tmp_path, source=MLP_WEIGHTS, name="w.h5"):
    target = tmp_path / name
    shutil.copy(source, target)
    return target


def _rewrite(group, name, values, dtype=None, chunks=1):
    """Re-stores a string-list attribute: bytes (fixed/vlen), chunked if asked."""
    chunked = [k for k in group.attrs if k.startswith(name) and k[len(name):].isdigit()]
    for key in chunked + ([name] if name in group.attrs else []):
        del group.attrs[key]
    data = np.asarray([v.encode("utf8") for v in values], dtype=dtype)
    if chunks == 1:
        group.attrs[name] = data
        return
    for i, part in enumerate(np.array_split(data, chunks)):
        group.attrs[f"{name}{i}"] = part


def _all_string_lists(f):
    groups = [f] + [f[name] for name in legacy_h5.read_attr_list(f, "layer_names")]
    return [(g, key) for g in groups for key in ("layer_names", "weight_names") if key in g.attrs]


@pytest.mark.parametrize("dtype", [None, h5py.special_dtype(vlen=bytes)],
                         ids=["fixed_length_bytes", "vlen_bytes"])
@pytest.mark.parametrize("chunks", [1, 2])
def test_bytes_and_chunked_attributes(tmp_path, dtype, chunks):
    path = _copy(tmp_path)
    with h5py.File(path, "r+") as f:
        for group, key in _all_string_lists(f):
            values = legacy_h5.read_attr_list(group, key)
            _rewrite(group, key, values, dtype=dtype, chunks=chunks if len(values) > 1 else 1)
        assert ("layer_names0" in f.attrs) == (chunks == 2)
    model = build("mlp")
    model.load_weights(path)
    assert_outputs(model, "mlp", entries(TF2, "mlp", "y"))


def test_writer_chunks_large_attributes_and_reads_them_back(tmp_path):
    names = [f"layer_with_a_rather_long_name_{i:05d}" for i in range(3000)]
    with h5py.File(tmp_path / "a.h5", "w") as f:
        legacy_h5.write_attr_list(f, "layer_names", names)
        assert "layer_names" not in f.attrs and "layer_names1" in f.attrs
        assert all(f.attrs[k].nbytes <= legacy_h5.HDF5_OBJECT_HEADER_LIMIT for k in f.attrs)
        assert legacy_h5.read_attr_list(f, "layer_names") == names


def test_model_with_chunked_names_round_trips(tmp_path, monkeypatch):
    monkeypatch.setattr(legacy_h5, "HDF5_OBJECT_HEADER_LIMIT", 40)
    model = build("two_in")
    path = tmp_path / "m.h5"
    model.save(path)
    with h5py.File(path) as f:
        assert "layer_names0" in f["model_weights"].attrs
    x = [np.ones((2, 16), "float32"), np.ones((2, 8), "float32")]
    np.testing.assert_array_equal(keras.models.load_model(path).predict(x, verbose=0),
                                  model.predict(x, verbose=0))


def _by_name_model():
    """The mlp's layers in another container, another order, plus an extra layer."""
    x = keras.Input((6,))
    extra = keras.layers.Dense(6, name="extra")
    hidden = keras.layers.Dense(8, activation="relu", name="dense")
    out = keras.layers.Dense(3, activation="softmax", name="dense_1")
    return keras.Model(x, out(hidden(extra(x)))), extra, hidden, out


def test_by_name_matches_layers_by_name(tmp_path):
    reference = build("mlp")
    reference.load_weights(MLP_WEIGHTS)
    model, extra, hidden, out = _by_name_model()
    before = extra.get_weights()
    with pytest.raises(ValueError, match="Layer count mismatch"):
        model.load_weights(MLP_WEIGHTS)
    model.load_weights(MLP_WEIGHTS, by_name=True)
    for a, b in zip(hidden.get_weights() + out.get_weights(), reference.get_weights()):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(extra.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_by_name_shape_mismatch_raises_or_skips(tmp_path):
    x = keras.Input((6,))
    hidden = keras.layers.Dense(8, activation="relu", name="dense")
    wrong = keras.layers.Dense(5, name="dense_1")             # the file has 3 units
    model = keras.Model(x, wrong(hidden(x)))
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"dense_1.*\(8, 5\).*\(8, 3\)"):
        model.load_weights(MLP_WEIGHTS, by_name=True)
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="Skipping loading of weights for layer 'dense_1'"):
        model.load_weights(MLP_WEIGHTS, by_name=True, skip_mismatch=True)
    reference = build("mlp")
    reference.load_weights(MLP_WEIGHTS)
    np.testing.assert_array_equal(hidden.get_weights()[0], reference.get_weights()[0])
    np.testing.assert_array_equal(wrong.get_weights()[0], before[2])


def test_layer_count_mismatch_message():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="Model expected 1 layers, found 2 saved layers"):
        model.load_weights(MLP_WEIGHTS)


def test_weight_count_mismatch_message():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, use_bias=False),
                              keras.layers.Dense(3)])
    with pytest.raises(ValueError, match=r"Weight count mismatch for layer #0.*expects 1 "
                                         r"weight\(s\). Received 2"):
        model.load_weights(MLP_WEIGHTS)


class WithOwnWeight(keras.Model):
    """A subclassed model owning a variable itself (legacy `top_level_model_weights`)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(2)

    def build(self, input_shape):
        self.dense._maybe_build(input_shape)
        self.scale = self.add_weight(shape=(2,), initializer="ones", name="scale")

    def call(self, x):
        return self.dense(x) * self.scale


def test_top_level_model_weights(tmp_path):
    model = WithOwnWeight()
    model(np.ones((1, 3), "float32"))
    model.scale.assign(np.array([2.0, 3.0], "float32"))
    path = tmp_path / "own.h5"
    model.save(path)
    with h5py.File(path) as f:
        assert legacy_h5.read_attr_list(f["model_weights/top_level_model_weights"],
                                        "weight_names") == [model.scale.path]
    fresh = WithOwnWeight()
    fresh(np.ones((1, 3), "float32"))
    fresh.load_weights(path)
    np.testing.assert_array_equal(fresh.scale.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(fresh.dense.get_weights()[0], model.dense.get_weights()[0])


def test_our_legacy_file_layout_matches_keras(tmp_path):
    """Same root attributes, layer_names and per-layer weight_names as Keras 3's file."""
    model = build("two_in")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.optimizer.build(model.trainable_variables)
    path = tmp_path / "two_in.h5"
    model.save(path)
    with h5py.File(path) as ours, h5py.File(FIXTURES / "keras3" / "two_in.h5") as theirs:
        assert set(ours.attrs) == set(theirs.attrs)
        assert set(ours) == set(theirs) == {"model_weights", "optimizer_weights"}
        mw, tw = ours["model_weights"], theirs["model_weights"]
        assert legacy_h5.read_attr_list(mw, "layer_names") == \
            legacy_h5.read_attr_list(tw, "layer_names")
        for name in legacy_h5.read_attr_list(tw, "layer_names"):
            assert legacy_h5.read_attr_list(mw[name], "weight_names") == \
                legacy_h5.read_attr_list(tw[name], "weight_names")
        assert len(legacy_h5.read_attr_list(ours["optimizer_weights"], "weight_names")) == \
            len(legacy_h5.read_attr_list(theirs["optimizer_weights"], "weight_names"))


def test_legacy_save_logs_keras_warning(tmp_path, caplog):
    # Keras 3.15.1 logs this (absl WARNING) on model.save("x.h5"):
    text = ("You are saving your model as an HDF5 file via `model.save()` or "
            "`keras.saving.save_model(model)`. This file format is considered legacy. We "
            "recommend using instead the native Keras format, e.g. "
            "`model.save('my_model.keras')` or `keras.saving.save_model(model, "
            "'my_model.keras')`. ")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with caplog.at_level("WARNING"):
        model.save(str(tmp_path / "m.h5"))
    assert text in [r.getMessage() for r in caplog.records]

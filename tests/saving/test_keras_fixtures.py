"""Files written by real Keras 3.15.1 and tf.keras 2.21 load into kerasish.

The files in tests/fixtures/ come from tests/fixtures/make_keras_fixtures.py
(run with real Keras; see its docstring). Each model is loaded every way
Keras allows and must give Keras's predictions to 1e-5; `.keras` and
legacy `.h5` full-model files must also restore the optimizer so that one
more `train_on_batch` gives Keras's weights.
"""
import h5py
import numpy as np
import pytest

import kerasish as keras
from saving_helpers import FIXTURES, assert_outputs, build, entries, expected, fm, single

MODELS = list(fm.BUILDERS)
FULL_H5 = [m for m in MODELS if m != "sub"]     # subclassed models have no legacy full file
KERAS3 = expected("keras3")
TF2 = expected("tf_keras2")


def _load_model(path, name):
    if name == "sub":
        fm.subclass_type(keras)
    if name == "cnn":
        build("cnn")   # skips while kerasish lacks a layer
    return keras.models.load_model(path)


@pytest.mark.parametrize("name", MODELS)
def test_keras3_weights_h5(name):
    model = build(name)
    model.load_weights(FIXTURES / "keras3" / f"{name}.weights.h5")
    assert_outputs(model, name, entries(KERAS3, name, "y"))


@pytest.mark.parametrize("name", MODELS)
def test_keras3_archive_as_weights(name):
    model = build(name)
    model.load_weights(FIXTURES / "keras3" / f"{name}.keras")
    assert_outputs(model, name, entries(KERAS3, name, "y"))


@pytest.mark.parametrize("name", MODELS)
def test_keras3_legacy_h5_weights(name):
    model = build(name)
    model.load_weights(FIXTURES / "keras3" / f"{name}.h5")
    assert_outputs(model, name, entries(KERAS3, name, "y"))


@pytest.mark.parametrize("name", MODELS)
def test_tf_keras2_save_weights_h5(name):
    model = build(name)
    model.load_weights(FIXTURES / "tf_keras2" / f"{name}_weights.h5")
    assert_outputs(model, name, entries(TF2, name, "y"))


@pytest.mark.parametrize("name", FULL_H5)
def test_tf_keras2_full_h5_as_weights(name):
    model = build(name)
    model.load_weights(FIXTURES / "tf_keras2" / f"{name}.h5")
    assert_outputs(model, name, entries(TF2, name, "y"))


@pytest.mark.parametrize("name", MODELS)
def test_keras3_load_model_continues_training(name):
    model = _load_model(FIXTURES / "keras3" / f"{name}.keras", name)
    assert_outputs(model, name, entries(KERAS3, name, "y"))
    _assert_training_continues(model, name)


@pytest.mark.parametrize("name", FULL_H5)
def test_keras3_legacy_load_model_continues_training(name):
    model = _load_model(FIXTURES / "keras3" / f"{name}.h5", name)
    assert_outputs(model, name, entries(KERAS3, name, "y"))
    _assert_training_continues(model, name)


@pytest.mark.parametrize("name", FULL_H5)
def test_tf_keras2_load_model(name):
    """tf.keras 2 files: config (batch_input_shape, list-style inbound nodes,
    `Custom>Adam`, `time_major`) and optimizer state (no learning_rate slot)."""
    model = _load_model(FIXTURES / "tf_keras2" / f"{name}.h5", name)
    assert_outputs(model, name, entries(TF2, name, "y"))
    assert type(model.optimizer).__name__ == "Adam"
    assert int(model.optimizer.iterations.numpy()) == 2
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.01, rtol=1e-6)


def _assert_training_continues(model, name):
    """One more Adam step after loading gives Keras's weights (so the optimizer state was
    restored). Not for `cnn`: its conv bias feeds BatchNormalization, so its true gradient
    is 0 and Adam turns float rounding noise into a visible step; nor for models with
    Dropout, whose step is random (they have no recorded weights)."""
    weights_after = entries(KERAS3, name, "w")
    if not weights_after or name == "cnn":
        return
    assert int(model.optimizer.iterations.numpy()) == 2
    model.train_on_batch(single(entries(KERAS3, name, "tx")), single(entries(KERAS3, name, "ty")))
    got = [v.numpy() for layer in model.layers for v in layer.weights]   # Keras's order
    assert len(got) == len(weights_after)
    for g, w in zip(got, weights_after):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=0)


def _layout(target):
    shapes = {}

    def visit(path, obj):
        shapes[path] = obj.shape if isinstance(obj, h5py.Dataset) else "group"
    with h5py.File(target, "r") as f:
        f.visititems(visit)
    return shapes


@pytest.mark.parametrize("name", MODELS)
def test_our_weights_file_has_keras_layout(name, tmp_path):
    """Same groups, dataset names and shapes as Keras's own file (optimizer included)."""
    model = build(name)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=fm.LOSSES.get(name, "mse"))
    model.optimizer.build(model.trainable_variables)
    path = tmp_path / f"{name}.weights.h5"
    model.save_weights(path)
    assert _layout(path) == _layout(FIXTURES / "keras3" / f"{name}.weights.h5")


@pytest.mark.parametrize("name", MODELS)
def test_our_archive_config_names_keras_classes(name, tmp_path):
    """config.json entries use Keras's module/class names, so real Keras can resolve them."""
    import json
    import zipfile
    model = build(name)
    path = tmp_path / f"{name}.keras"
    model.save(path)
    with zipfile.ZipFile(path) as ours, zipfile.ZipFile(FIXTURES / "keras3" / f"{name}.keras") as k:
        assert sorted(ours.namelist()) == sorted(k.namelist())
        assert all(i.compress_type == zipfile.ZIP_STORED for i in ours.infolist())
        mine, theirs = json.loads(ours.read("config.json")), json.loads(k.read("config.json"))
    assert (mine["module"], mine["class_name"], mine["registered_name"]) == \
        (theirs["module"], theirs["class_name"], theirs["registered_name"])
    classes = [(e["module"], e["class_name"]) for e in mine["config"].get("layers", [])]
    assert classes == [(e["module"], e["class_name"]) for e in theirs["config"].get("layers", [])]

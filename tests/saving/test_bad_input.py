"""Bad files and failed writes: clear errors, nothing half-loaded, nothing overwritten."""
import json
import os
import shutil
import zipfile

import h5py
import numpy as np
import pytest

import kerasish as keras
from saving_helpers import FIXTURES


def _model(units=3, name=None):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(units, name=name),
                              keras.layers.Dense(2)])
    return model


def _snapshot(model):
    return [w.copy() for w in model.get_weights()]


def _assert_unchanged(model, before):
    after = model.get_weights()
    assert len(after) == len(before)
    for a, b in zip(after, before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("filename", ["x.weights.h5", "x.h5", "x.keras"])
def test_not_hdf5_or_zip(tmp_path, filename):
    path = tmp_path / filename
    path.write_text("this is not a model file\n")
    model = _model()
    before = _snapshot(model)
    with pytest.raises(ValueError,
                       match=r"x\.(weights\.h5|h5|keras)'? is not (a valid|an HDF5 file)"):
        model.load_weights(path)
    _assert_unchanged(model, before)
    if filename != "x.weights.h5":
        with pytest.raises(ValueError, match="is not a"):
            keras.models.load_model(path)


def _truncate(source, target, fraction=0.6):
    data = open(source, "rb").read()
    open(target, "wb").write(data[:int(len(data) * fraction)])


@pytest.mark.parametrize("source", ["mlp.weights.h5", "mlp.keras", "mlp.h5"])
@pytest.mark.parametrize("fraction", [0.1, 0.6, 0.95])
def test_truncated_files(tmp_path, source, fraction):
    target = tmp_path / source
    _truncate(FIXTURES / "keras3" / source, target, fraction)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    before = _snapshot(model)
    with pytest.raises(ValueError, match="mlp"):
        model.load_weights(target)
    _assert_unchanged(model, before)


def test_other_architecture_names_layer_variable_and_shapes(tmp_path):
    path = tmp_path / "m.weights.h5"
    _model(units=3).save_weights(path)
    other = _model(units=5, name="hidden")
    before = _snapshot(other)
    with pytest.raises(ValueError) as info:
        other.load_weights(path)
    message = str(info.value)
    for part in (str(path), "Layer 'hidden'", "'kernel'", "(4, 5)", "(4, 3)", "layers/dense/vars",
                 "Nothing was loaded"):
        assert part in message
    _assert_unchanged(other, before)


def test_other_architecture_in_archive_and_legacy(tmp_path):
    source = _model(units=3)
    for name in ("m.keras", "m.h5"):
        source.save(tmp_path / name)
        other = _model(units=5)
        before = _snapshot(other)
        with pytest.raises(ValueError, match=r"\(4, 5\).*\(4, 3\)|\(4, 3\).*\(4, 5\)"):
            other.load_weights(tmp_path / name)
        _assert_unchanged(other, before)


def test_mismatch_in_a_later_layer_loads_nothing(tmp_path):
    """All or nothing: the first layer fits, the second does not, the first is not changed."""
    path = tmp_path / "m.weights.h5"
    keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)]) \
        .save_weights(path)
    other = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(7)])
    before = _snapshot(other)
    with pytest.raises(ValueError, match="A total of 1 objects could not be loaded"):
        other.load_weights(path)
    _assert_unchanged(other, before)
    with pytest.warns(UserWarning, match="Skipping loading weights for 'layers/dense_1'"):
        other.load_weights(path, skip_mismatch=True)
    assert not np.array_equal(other.get_weights()[0], before[0])
    np.testing.assert_array_equal(other.get_weights()[2], before[2])


def test_missing_layer_in_file(tmp_path):
    path = tmp_path / "m.weights.h5"
    keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)]).save_weights(path)
    bigger = _model()
    with pytest.raises(ValueError, match=r"expected 2 variables, but received 0 variables.*"
                                         r"\['kernel', 'bias'\]"):
        bigger.load_weights(path)


def test_unknown_layer_class_in_config(tmp_path):
    path = tmp_path / "m.keras"
    _model().save(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(members["config.json"])
    config["config"]["layers"][1]["class_name"] = "FancyDense"
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    # a TypeError, as Keras 3.15.1 raises for an unknown class
    with pytest.raises(TypeError, match=r"Could not locate class 'FancyDense'\. Make sure custom "
                                         r"classes and functions are decorated"):
        keras.models.load_model(path)


def test_missing_folder_and_missing_file(tmp_path):
    model = _model()
    missing = tmp_path / "no" / "such" / "folder"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        model.save_weights(missing / "m.weights.h5")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        model.save(missing / "m.keras")
    with pytest.raises(FileNotFoundError, match="No such file"):
        model.load_weights(tmp_path / "absent.weights.h5")
    with pytest.raises(FileNotFoundError, match="No such file"):
        keras.models.load_model(tmp_path / "absent.keras")
    assert not missing.exists()


def test_a_folder_is_not_a_file(tmp_path):
    folder = tmp_path / "dir.keras"
    folder.mkdir()
    with pytest.raises(IsADirectoryError, match="is a directory"):
        keras.models.load_model(folder)


def test_suffix_checks_match_keras(tmp_path):
    model = _model()
    with pytest.raises(ValueError, match=r"The filename must end in `\.weights\.h5`"):
        model.save_weights(tmp_path / "m.h5")
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(tmp_path / "m.model")
    with pytest.raises(ValueError, match="File format not supported"):
        model.load_weights(tmp_path / "m.ckpt")


def test_overwrite_false_keeps_the_file(tmp_path):
    path = tmp_path / "m.weights.h5"
    _model().save_weights(path)
    data = path.read_bytes()
    with pytest.raises(FileExistsError):
        _model().save_weights(path, overwrite=False)
    assert path.read_bytes() == data


def _leftovers(folder):
    return [name for name in os.listdir(folder) if name.startswith(".tmp-")]


def _fail_on_second_call(monkeypatch, owner, method):
    original = getattr(owner, method)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, method, failing)


@pytest.mark.parametrize("filename,owner,method", [
    ("m.weights.h5", h5py.Group, "create_dataset"),
    ("m.keras", zipfile.ZipFile, "writestr"),
    ("m.keras", h5py.Group, "create_dataset"),
    ("m.h5", h5py.Group, "create_dataset"),
])
def test_failed_write_leaves_previous_file_and_no_temp_files(tmp_path, monkeypatch, filename,
                                                             owner, method):
    path = tmp_path / filename
    first = _model()
    first.save_weights(path) if filename.endswith(".weights.h5") else first.save(path)
    data = path.read_bytes()
    _fail_on_second_call(monkeypatch, owner, method)
    second = _model()
    with pytest.raises(OSError, match="disk full"):
        second.save_weights(path) if filename.endswith(".weights.h5") else second.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == data
    assert _leftovers(tmp_path) == []
    loaded = _model()
    loaded.load_weights(path)
    _assert_unchanged(loaded, first.get_weights())


def test_keras3_layout_with_unexpected_dataset_names(tmp_path):
    path = tmp_path / "odd.weights.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("layers/dense/vars/kernel", data=np.zeros((4, 3), "float32"))
    with pytest.raises(ValueError, match=r"datasets \['kernel'\].*numbers? them"):
        _model().load_weights(path)


def test_unbuilt_model_cannot_be_saved(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="was never built"):
        model.save_weights(tmp_path / "m.weights.h5")


def test_corrupted_dataset_in_archive(tmp_path):
    """A damaged member of a `.keras` zip is reported, and nothing is loaded."""
    path = tmp_path / "m.keras"
    shutil.copy(FIXTURES / "keras3" / "mlp.keras", path)
    raw = bytearray(path.read_bytes())
    offset = raw.find(b"model.weights.h5") + 2000
    raw[offset:offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(raw))
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    before = _snapshot(model)
    with pytest.raises(ValueError, match=r"m\.keras' is a damaged `\.keras` archive"):
        model.load_weights(path)
    _assert_unchanged(model, before)


def test_unknown_class_inside_a_model_is_keras_type_error(tmp_path):
    # Keras 3.15.1: TypeError("<class '...Sequential'> could not be deserialized properly.
    # ... Exception encountered: Could not locate class 'Mystery'...")
    class Mystery(keras.layers.Layer):
        def call(self, x):
            return x

    model = keras.Sequential([keras.Input((4,)), Mystery(name="m"), keras.layers.Dense(1)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.raises(TypeError, match=r"Sequential'> could not be deserialized properly"
                                        r"(.|\n)*Could not locate class 'Mystery'"):
        keras.models.load_model(path)


def test_load_weights_from_missing_file_raises_keras_error(tmp_path):
    # Keras 3.15.1's FileNotFoundError texts (h5py's for .weights.h5/.h5,
    # zipfile's for .keras and the sharded .weights.json map):
    model = _model()
    for name in ("no.weights.h5", "no.h5"):
        path = str(tmp_path / name)
        with pytest.raises(FileNotFoundError) as info:
            model.load_weights(path)
        assert str(info.value) == (
            "[Errno 2] Unable to synchronously open file (unable to open file: name = "
            f"'{path}', errno = 2, error message = 'No such file or directory', flags = 0, "
            "o_flags = 0)")
    for name in ("no.keras", "no.weights.json"):
        path = str(tmp_path / name)
        with pytest.raises(FileNotFoundError) as info:
            model.load_weights(path)
        assert str(info.value) == f"[Errno 2] No such file or directory: '{path}'"

"""keras.saving.KerasFileEditor: files and printouts recorded with real Keras 3.15.1.

`tests/fixtures/file_editor/make_keras_editor_fixtures.py` (run with Keras)
saved `mlp.weights.h5` and `trained_mlp.keras` and recorded what Keras's
editor printed and returned on them; kerasish must print and return the same.
"""
import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "file_editor"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def printed(fn):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = fn()
    return buffer.getvalue(), result


def mlp(units=(8, 4)):
    return keras.Sequential([keras.Input((5,))] + [keras.layers.Dense(u) for u in units])


@pytest.fixture
def keras_files(tmp_path, monkeypatch):
    for name in ("mlp.weights.h5", "trained_mlp.keras"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)  # Keras printed the relative names
    return tmp_path


@pytest.mark.parametrize("case,other_units", [("weights", (8, 3)), ("archive", (8, 4, 2))])
def test_prints_and_returns_what_keras_does(keras_files, case, other_units):
    expected = EXPECTED[case]
    opened, editor = printed(lambda: keras.saving.KerasFileEditor(expected["path"]))
    if case == "archive":
        assert editor.metadata["keras_version"] == "3.15.1"
        assert opened == ("Keras model file 'trained_mlp.keras'\nSaved with Keras 3.15.1 - "
                          f"date: {editor.metadata['date_saved']}\n")
    else:
        assert opened == expected["opened"]
    assert printed(editor.summary)[0] == expected["summary"]
    text, result = printed(lambda: editor.compare(mlp()))
    assert (text, result) == (expected["compare_same"], expected["compare_same_result"])
    text, result = printed(lambda: editor.compare(mlp(other_units)))
    assert (text, result) == (expected["compare_other"], expected["compare_other_result"])


def test_edits_give_keras_tree(keras_files):
    editor = printed(lambda: keras.saving.KerasFileEditor("mlp.weights.h5"))[1]
    editor.rename_object("dense_1", "renamed")
    editor.add_weights("renamed", {"2": np.arange(3, dtype="float32")})
    editor.delete_weight("dense", "1")
    editor.add_object("layers/extra", {"0": np.ones((2, 2), "float32")})
    assert printed(editor.summary)[0] == EXPECTED["edited_summary"]


def test_edited_file_loads_into_the_changed_model(keras_files):
    """Keras's kernel goes to a model with one more layer; nothing else changes."""
    editor = printed(lambda: keras.saving.KerasFileEditor("mlp.weights.h5"))[1]
    old = [editor.weights_dict["layers"][name][key]
           for name in ("dense", "dense_1") for key in ("0", "1")]
    extra = {"0": np.full((4, 2), 0.5, "float32"), "1": np.array([1.0, -1.0], "float32")}
    editor.add_object("layers/dense_2", extra)
    editor.save("wider.weights.h5")
    wider = mlp((8, 4, 2))
    wider.load_weights("wider.weights.h5")
    for got, want in zip(wider.get_weights(), old + [extra["0"], extra["1"]]):
        np.testing.assert_array_equal(got, want)


def test_nested_models_keep_every_weight(tmp_path):
    """Keras's editor drops a nested Sequential's weights; kerasish keeps them."""
    inner = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2)])
    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inner(inputs)))
    model.set_weights([np.full(w.shape, i, "float32") for i, w in enumerate(model.get_weights())])
    model.save_weights(tmp_path / "nested.weights.h5")
    editor = printed(lambda: keras.saving.KerasFileEditor(tmp_path / "nested.weights.h5"))[1]
    assert printed(lambda: editor.compare(model))[1]["status"] == "success"
    editor.save(tmp_path / "copy.weights.h5")
    clone = keras.models.clone_model(model)
    clone.load_weights(tmp_path / "copy.weights.h5")
    for got, want in zip(clone.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_bad_arguments_name_what_was_wrong(keras_files):
    with pytest.raises(ValueError, match="expected a `.keras` `.weights.h5` extension"):
        keras.saving.KerasFileEditor("model.h5")
    editor = printed(lambda: keras.saving.KerasFileEditor("mlp.weights.h5"))[1]
    with pytest.raises(ValueError, match="Source name 'dense_9' does not appear"):
        editor.delete_object("dense_9")
    with pytest.raises(ValueError, match="Path 'layers/dense_9' not found"):
        editor.delete_object("layers/dense_9")
    with pytest.raises(ValueError, match="should be a leaf name"):
        editor.rename_object("dense", "layers/x")
    with pytest.raises(ValueError, match="should be a dict"):
        editor.add_weights("dense", [np.zeros(1)])
    with pytest.raises(ValueError, match="Weight 7 not found in object dense"):
        editor.delete_weight("dense", "7")
    with pytest.raises(ValueError, match="expected a `.weights.h5` extension"):
        editor.save("out.keras")


def test_an_ambiguous_name_must_be_a_path(keras_files):
    editor = printed(lambda: keras.saving.KerasFileEditor("trained_mlp.keras"))[1]
    editor.add_object("optimizer/dense", {"0": np.zeros(1)})  # 'dense' now twice
    with pytest.raises(ValueError, match="occurs more than once"):
        editor.delete_object("dense")
    editor.delete_object("optimizer/dense")
    editor.delete_object("dense")
    assert "dense" not in editor.weights_dict["layers"]

"""ModelCheckpoint: Keras 3's arguments, file names, decisions and messages (reference §7)."""
import os

import numpy as np
import pytest

import kerasish as keras

X = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")


def _model(metrics=None):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=metrics)
    return model


def _fit(model, callback, epochs=3, **kwargs):
    kwargs.setdefault("validation_split", 0.25)
    return model.fit(X, Y, batch_size=8, epochs=epochs, verbose=0, callbacks=[callback],
                     shuffle=False, **kwargs)


def test_filepath_suffix_checked_at_construction():
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`.*filepath=w\.h5"):
        keras.callbacks.ModelCheckpoint("w.h5", save_weights_only=True)
    with pytest.raises(ValueError, match=r"must end in `\.keras`.*filepath=m\.weights"):
        keras.callbacks.ModelCheckpoint("m.weights")
    with pytest.raises(ValueError, match="Unrecognized save_freq: batch"):
        keras.callbacks.ModelCheckpoint("m.keras", save_freq="batch")
    keras.callbacks.ModelCheckpoint("m.h5")
    keras.callbacks.ModelCheckpoint("m.keras")


def test_template_names_every_epoch(tmp_path):
    pattern = str(tmp_path / "ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5")
    model = _model()
    history = _fit(model, keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True))
    expected = [f"ckpt-{e + 1:02d}-{v:.2f}.weights.h5"
                for e, v in enumerate(history.history["val_loss"])]
    assert sorted(os.listdir(tmp_path)) == sorted(expected)
    fresh = _model()
    fresh.load_weights(tmp_path / expected[-1])
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_whole_model_files_load(tmp_path):
    for name in ("best.keras", "best.h5"):
        model = _model()
        _fit(model, keras.callbacks.ModelCheckpoint(str(tmp_path / name)), epochs=2)
        loaded = keras.models.load_model(tmp_path / name)
        np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
        assert int(loaded.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())


def test_save_best_only_messages(tmp_path, capsys):
    path = str(tmp_path / "best.weights.h5")
    callback = keras.callbacks.ModelCheckpoint(path, save_best_only=True, save_weights_only=True,
                                               verbose=1)
    callback.set_model(_model())
    callback.on_epoch_begin(0)
    callback.on_epoch_end(0, {"val_loss": 0.85353})
    callback.on_epoch_begin(1)
    callback.on_epoch_end(1, {"val_loss": 0.84859})
    callback.on_epoch_begin(2)
    callback.on_epoch_end(2, {"val_loss": 0.9})
    assert capsys.readouterr().out == (
        f"\nEpoch 1: val_loss improved from None to 0.85353, saving model to {path}\n"
        f"\nEpoch 1: finished saving model to {path}\n"
        f"\nEpoch 2: val_loss improved from 0.85353 to 0.84859, saving model to {path}\n"
        f"\nEpoch 2: finished saving model to {path}\n"
        "\nEpoch 3: val_loss did not improve from 0.84859\n")
    assert callback.best == 0.84859


def test_plain_saving_message(tmp_path, capsys):
    path = str(tmp_path / "m.weights.h5")
    callback = keras.callbacks.ModelCheckpoint(path, save_weights_only=True, verbose=1)
    callback.set_model(_model())
    callback.on_epoch_end(0, {"loss": 1.0})
    assert capsys.readouterr().out == (f"\nEpoch 1: saving model to {path}\n"
                                       f"\nEpoch 1: finished saving model to {path}\n")


def _decisions(callback, values, key="val_loss"):
    """Whether each epoch end saved (model.save_weights replaced by a recorder)."""
    calls = []
    callback.model.save_weights = lambda filepath, overwrite=True: calls.append(filepath)
    decisions = []
    for epoch, value in enumerate(values):
        before = len(calls)
        callback.on_epoch_end(epoch, {key: value})
        decisions.append(len(calls) > before)
    return decisions


def test_mode_auto_follows_the_metric_direction(tmp_path):
    path = str(tmp_path / "m.weights.h5")
    up = keras.callbacks.ModelCheckpoint(path, monitor="val_accuracy", save_best_only=True,
                                         save_weights_only=True)
    trained = _model(metrics=["accuracy"])
    trained.train_on_batch(X, Y)          # compiled metrics exist once updated (as in Keras)
    up.set_model(trained)
    assert _decisions(up, [0.5, 0.4, 0.6], "val_accuracy") == [True, False, True]
    down = keras.callbacks.ModelCheckpoint(path, save_best_only=True, save_weights_only=True)
    down.set_model(_model())
    assert _decisions(down, [0.5, 0.4, 0.6]) == [True, True, False]
    explicit = keras.callbacks.ModelCheckpoint(path, monitor="score", mode="max",
                                               save_best_only=True, save_weights_only=True)
    explicit.set_model(_model())
    assert _decisions(explicit, [1.0, 2.0, 1.5], "score") == [True, True, False]
    unknown = keras.callbacks.ModelCheckpoint(path, monitor="score", save_best_only=True,
                                              save_weights_only=True)
    unknown.set_model(_model())
    with pytest.raises(ValueError, match="Pass `mode='max'`"):
        unknown.on_epoch_end(0, {"score": 1.0})


def test_initial_value_threshold(tmp_path):
    callback = keras.callbacks.ModelCheckpoint(str(tmp_path / "m.weights.h5"), save_best_only=True,
                                               save_weights_only=True, initial_value_threshold=0.5)
    callback.set_model(_model())
    assert _decisions(callback, [0.7, 0.6, 0.4]) == [False, False, True]


def test_missing_monitor_warns_and_saves(tmp_path):
    path = tmp_path / "m.weights.h5"
    callback = keras.callbacks.ModelCheckpoint(str(path), monitor="val_loss", save_best_only=True,
                                               save_weights_only=True)
    callback.set_model(_model())
    with pytest.warns(UserWarning, match="Can save best model only with val_loss available"):
        callback.on_epoch_end(0, {"loss": 1.0})
    assert path.exists()


def test_integer_save_freq_counts_batches(tmp_path):
    pattern = str(tmp_path / "e{epoch}-b{batch}.weights.h5")
    callback = keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True, save_freq=3)
    _fit(_model(), callback, epochs=2, validation_split=0.0)        # 4 batches per epoch
    assert sorted(os.listdir(tmp_path)) == ["e1-b3.weights.h5", "e2-b2.weights.h5"]


def test_unknown_template_key(tmp_path):
    callback = keras.callbacks.ModelCheckpoint(str(tmp_path / "{val_auc:.2f}.keras"))
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        _fit(_model(), callback, epochs=1)


def test_existing_folder_as_path_and_new_folders(tmp_path):
    (tmp_path / "taken.keras").mkdir()
    callback = keras.callbacks.ModelCheckpoint(str(tmp_path / "taken.keras"))
    with pytest.raises(IOError, match="non-directory filepath"):
        _fit(_model(), callback, epochs=1)
    nested = tmp_path / "a" / "b" / "m.keras"
    _fit(_model(), keras.callbacks.ModelCheckpoint(str(nested)), epochs=1)
    assert nested.exists()

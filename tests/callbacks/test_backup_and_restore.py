"""BackupAndRestore: Keras 3's files and arguments, and bit-identical resumes.

The resume tests run tests/callbacks/backup_worker.py in subprocesses: one
run is never interrupted, another SIGKILLs itself mid-training and is then
started again; both must end with exactly the same weights.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

import kerasish as keras

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "backup_worker.py"


def _trainer_supports_resume():
    """True when `fit` honours model._initial_epoch and model._resume_step."""
    seen = []

    class Probe(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            self.model._initial_epoch, self.model._resume_step = 1, 1

        def on_train_batch_begin(self, batch, logs=None):
            seen.append(batch)

        def on_train_end(self, logs=None):
            self.model._initial_epoch, self.model._resume_step = None, 0

    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 1)), np.ones((4, 1)), batch_size=2, epochs=2, verbose=0,
              callbacks=[Probe()])
    return seen == [1]


needs_trainer = pytest.mark.skipif(
    not _trainer_supports_resume(),
    reason="kerasish.trainers.epoch_loops.fit does not honour model._initial_epoch / "
           "model._resume_step yet (see docs/saving.md, 'Resuming')")


def _run(backup_dir, out, save_freq, kill_at="none", double="0"):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, str(WORKER), str(backup_dir), str(out),
                           str(save_freq), kill_at, double],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def _result(path):
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


@needs_trainer
@pytest.mark.parametrize("save_freq,kill_at,double", [
    ("epoch", "2:4", "0"),     # killed mid-epoch 3: resumes at the start of epoch 3
    ("4", "1:6", "0"),         # killed 2 batches after a backup: resumes at batch 5 of epoch 2
    ("5", "2:4", "1"),         # killed right after a backup, with the previous one kept
    ("1", "0:14", "0"),        # killed after the last batch of an epoch, before its end
])
def test_killed_and_resumed_run_is_bit_identical(tmp_path, save_freq, kill_at, double):
    reference = _run(tmp_path / "ref_backup", tmp_path / "ref.npz", save_freq)
    assert reference.returncode == 0, reference.stderr
    killed = _run(tmp_path / "backup", tmp_path / "killed.npz", save_freq, kill_at, double)
    assert killed.returncode == -9, killed.stderr
    assert not (tmp_path / "killed.npz").exists()
    assert (tmp_path / "backup" / "latest.weights.h5").exists()
    assert (tmp_path / "backup" / "training_metadata.json").exists()
    resumed = _run(tmp_path / "backup", tmp_path / "resumed.npz", save_freq, "none", double)
    assert resumed.returncode == 0, resumed.stderr
    want, got = _result(tmp_path / "ref.npz"), _result(tmp_path / "resumed.npz")
    weights = [k for k in want if k.startswith("arr_")]
    for key in weights:
        np.testing.assert_array_equal(got[key], want[key])
    assert int(got["iterations"]) == int(want["iterations"]) == 60
    assert list(got["epochs"]) == list(want["epochs"])[-len(got["epochs"]):]
    np.testing.assert_array_equal(got["loss"][-1], want["loss"][-1])
    assert not (tmp_path / "backup").exists()        # deleted after the successful run


def _model():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    return model


DATA = (np.ones((8, 3), "float32"), np.zeros((8, 2), "float32"))


class Interrupt(keras.callbacks.Callback):
    """Raises after a given epoch end, as a crash would (files are kept)."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.epoch:
            raise KeyboardInterrupt


def test_files_have_keras_names_and_metadata(tmp_path):
    model = _model()
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b", delete_checkpoint=False)
    model.fit(*DATA, epochs=2, batch_size=4, verbose=0, callbacks=[backup])
    metadata = json.loads((tmp_path / "b" / "training_metadata.json").read_text())
    assert (metadata["epoch"], metadata["batch"]) == (2, 0)
    assert metadata["kerasish"]["steps_done"] == 0
    fresh = _model()
    # Keras 3.15.1's text here: "... 'adam_1', because it has 2 variables whereas the saved
    # optimizer has 6 variables. " (the "not built" sentence is only for 0 variables)
    with pytest.warns(UserWarning, match=r"optimizer 'adam_\d+', because it has 2 variables "
                      "whereas the saved optimizer has 6 variables. $"):
        fresh.load_weights(tmp_path / "b" / "latest.weights.h5")
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    with h5py.File(tmp_path / "b" / "latest.weights.h5") as f:
        assert "kerasish_training_state" in f and "optimizer" in f


def test_interrupted_epochs_are_not_repeated(tmp_path):
    if not _trainer_supports_resume():
        pytest.skip("trainer does not honour model._initial_epoch yet")
    epochs_run = []
    record = keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: epochs_run.append(e))
    model = _model()
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        model.fit(*DATA, epochs=4, batch_size=4, verbose=0,
                  callbacks=[backup, Interrupt(1), record])
    assert (tmp_path / "b" / "latest.weights.h5").exists()
    model = _model()
    model.fit(*DATA, epochs=4, batch_size=4, verbose=0, callbacks=[backup, record])
    assert epochs_run == [0, 1, 2, 3]
    assert int(model.optimizer.iterations.numpy()) == 8
    assert not (tmp_path / "b").exists()


def test_a_trainer_that_ignores_the_resume_point_is_refused(tmp_path, monkeypatch):
    model = _model()
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        model.fit(*DATA, epochs=3, batch_size=4, verbose=0, callbacks=[backup, Interrupt(0)])

    class Ignore(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            self.model._initial_epoch = None
    with pytest.raises(RuntimeError, match="ignores `model._initial_epoch`"):
        _model().fit(*DATA, epochs=3, batch_size=4, verbose=0, callbacks=[backup, Ignore()])


def test_keep_checkpoint_when_asked(tmp_path):
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b", delete_checkpoint=False)
    _model().fit(*DATA, epochs=1, verbose=0, callbacks=[backup])
    assert sorted(os.listdir(tmp_path / "b")) == ["latest.weights.h5", "training_metadata.json"]


def test_double_checkpoint_falls_back_to_previous_backup(tmp_path):
    if not _trainer_supports_resume():
        pytest.skip("trainer does not honour model._initial_epoch yet")
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b", double_checkpoint=True)
    with pytest.raises(KeyboardInterrupt):
        _model().fit(*DATA, epochs=4, batch_size=4, verbose=0, callbacks=[backup, Interrupt(1)])
    assert (tmp_path / "b" / "latest.weights.h5.bkp").exists()
    (tmp_path / "b" / "latest.weights.h5").write_bytes(b"damaged")
    epochs_run = []
    record = keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: epochs_run.append(e))
    _model().fit(*DATA, epochs=4, batch_size=4, verbose=0, callbacks=[backup, record])
    assert epochs_run == [1, 2, 3]          # the previous backup was taken after epoch 1


def test_unreadable_backup_is_a_clear_error(tmp_path):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "latest.weights.h5").write_bytes(b"damaged")
    with pytest.raises(ValueError, match="could not restore the training state"):
        _model().fit(*DATA, epochs=1, verbose=0,
                     callbacks=[keras.callbacks.BackupAndRestore(folder)])


def test_backup_of_another_architecture_is_refused(tmp_path):
    backup = keras.callbacks.BackupAndRestore(tmp_path / "b", delete_checkpoint=False)
    _model().fit(*DATA, epochs=1, verbose=0, callbacks=[backup])
    other = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5)])
    other.compile("adam", "mse")
    before = other.get_weights()
    with pytest.raises(ValueError, match=r"\(3, 5\).*\(3, 2\)"):
        other.fit(DATA[0], np.zeros((8, 5)), epochs=1, verbose=0, callbacks=[backup])
    for a, b in zip(other.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="Empty `backup_dir` argument passed"):
        keras.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="Invalid value for argument `save_freq`"):
        keras.callbacks.BackupAndRestore("b", save_freq="batch")


def test_reads_a_backup_written_by_keras(tmp_path):
    """Keras's own files: weights without kerasish's record, metadata with the epoch."""
    if not _trainer_supports_resume():
        pytest.skip("trainer does not honour model._initial_epoch yet")
    source = _model()
    folder = tmp_path / "b"
    folder.mkdir()
    source.save_weights(folder / "latest.weights.h5")
    (folder / "training_metadata.json").write_text(json.dumps({"epoch": 2, "batch": 0}))
    epochs_run = []
    record = keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: epochs_run.append(e))
    model = _model()
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
        model.fit(*DATA, epochs=3, batch_size=4, verbose=0,
                  callbacks=[keras.callbacks.BackupAndRestore(folder), record])
    assert epochs_run == [2]
    for a, b in zip(model.get_weights(), source.get_weights()):
        assert a.shape == b.shape

"""`BackupAndRestore`: resume an interrupted `fit` where it stopped.

Files in `backup_dir` (Keras 3's names, so real Keras can resume from
them too): `latest.weights.h5` (weights and optimizer state, hence the
learning-rate schedule position) and `training_metadata.json`
(`{"epoch": e, "batch": b}` plus a `"kerasish"` entry). kerasish also
records the random generators (numpy's global one that shuffles batches,
the device generators Dropout draws from, layers' SeedGenerators, Python's
`random`), the number of batches done in the current epoch and the metric
states; the same record is stored inside the weights file (dataset
`kerasish_training_state`, ignored by Keras), so the two can never
disagree. With that, a run killed at any point and resumed
gives the same weights, bit for bit, as a run never interrupted (numpy
arrays as input; seed the run with `keras.utils.set_random_seed`).

Resuming needs the trainer to honour two attributes this callback sets in
`on_train_begin`: `model._initial_epoch` (Keras 3's own) and
`model._resume_step` (batches of that epoch already trained, skipped
without training). Under a multi-worker strategy only the chief writes
(and deletes) the files; every worker restores from them. All writes are
atomic, so a crash during a backup leaves the previous one intact.
"""
import contextlib
import json
import os
import shutil
import uuid

import h5py

from kerasish.callbacks.callback import Callback
from kerasish.saving import atomic, file_errors, saving_lib, training_state

STATE_DATASET = "kerasish_training_state"   # a root dataset; Keras ignores extra entries


class BackupAndRestore(Callback):
    """Backs up the training state and restores it when `fit` runs again.

    Args:
        backup_dir: folder for the backup files (created when needed). Use a
            separate folder per training run.
        save_freq: "epoch" (back up at each epoch end) or an integer N (back
            up every N batches; a resumed run continues at the batch after
            the backup).
        double_checkpoint: keep the previous backup as `*.bkp` and fall back
            to it when the latest one cannot be read.
        delete_checkpoint: delete the backup files when `fit` finishes.

    Example:
        >>> backup = keras.callbacks.BackupAndRestore("backup", save_freq=50)
        >>> model.fit(x, y, epochs=10, callbacks=[backup])   # killed at epoch 4...
        >>> model.fit(x, y, epochs=10, callbacks=[backup])   # ...continues there
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and not (isinstance(save_freq, int)
                                         and not isinstance(save_freq, bool)):
            raise ValueError(
                "Invalid value for argument `save_freq`. "
                f"Received: save_freq={save_freq}. "
                "Expected either 'epoch' or an integer value."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._prev_weights_path = self._weights_path + ".bkp"
        self._prev_training_metadata_path = self._training_metadata_path + ".bkp"
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        self._epoch_start_numpy = None
        self._resume = None

    # Restoring ------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._resume = None
        metadata = self._read_backup()
        if metadata is None:
            return
        state = metadata.get("kerasish") or {}
        self.model._initial_epoch = metadata["epoch"]
        self.model._resume_step = int(state.get("steps_done", 0))
        self._current_epoch = metadata["epoch"]
        self._last_batch_seen = int(state.get("steps_done", 1)) - 1 if state else 0
        self._resume = state or None

    def _read_backup(self):
        """The metadata of the newest readable backup, after loading its weights (or None)."""
        candidates = [(self._weights_path, self._training_metadata_path)]
        if self.double_checkpoint:
            candidates.append((self._prev_weights_path, self._prev_training_metadata_path))
        errors = []
        for weights_path, metadata_path in candidates:
            if not os.path.exists(weights_path):
                continue
            try:
                return self._load(weights_path, metadata_path)
            except (OSError, ValueError, KeyError) as e:
                errors.append(f"{weights_path}: {e}")
        if errors:
            raise ValueError("BackupAndRestore could not restore the training state from "
                             f"{self.backup_dir!r} (nothing was loaded):\n" + "\n".join(errors))
        return None

    def _load(self, weights_path, metadata_path):
        model = self.model
        if not model.built:
            raise ValueError(
                "To use the BackupAndRestore callback, you model must be built before you call "
                f"`fit()`. Model {model} is unbuilt. You can build it beforehand by calling it "
                "on a batch of data.")
        optimizer = getattr(model, "optimizer", None)
        if optimizer is not None and not optimizer.built:
            optimizer.build(model.trainable_variables)
        with file_errors.open_h5(weights_path) as f, file_errors.damage_is_named(weights_path):
            metadata = _metadata(f, metadata_path)
            saving_lib.read_weights(model, f, source=weights_path)
        return metadata

    def on_epoch_begin(self, epoch, logs=None):
        if self._resume is not None and epoch != self._current_epoch:
            raise RuntimeError(
                f"BackupAndRestore restored the state of epoch {self._current_epoch + 1} from "
                f"{self.backup_dir!r}, but `fit` started at epoch {epoch + 1}: this trainer "
                "ignores `model._initial_epoch`, so training cannot resume.")
        self._current_epoch = epoch
        resume = self._resume
        if resume is not None and resume.get("steps_done"):
            training_state.set_numpy_global_state(resume["epoch_start_numpy"])
            training_state.restore_metrics(self.model, resume.get("metrics", []))
        elif resume is not None:
            self._restore_random()
        self._epoch_start_numpy = training_state.numpy_global_state()

    def on_train_batch_begin(self, batch, logs=None):
        if self._resume is None:
            return
        if batch < self._resume.get("steps_done", 0):
            raise RuntimeError(
                f"BackupAndRestore restored the state after batch {self._resume['steps_done']} "
                f"of epoch {self._current_epoch + 1}, but `fit` is running batch {batch + 1}: "
                "this trainer ignores `model._resume_step`, so training cannot resume mid-epoch.")
        self._restore_random()

    def _restore_random(self):
        training_state.restore_random_state(self._resume["random"], self.model)
        self._resume = None

    # Backing up -----------------------------------------------------------
    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(batch=batch, steps_done=batch + 1)

    def on_epoch_end(self, epoch, logs=None):
        if self._resume is not None:        # every batch of the epoch was already done
            self._restore_random()
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model(batch=0, steps_done=0)

    def _should_save_on_batch(self, batch):
        """Counts batches (a smaller index means a new epoch) against `save_freq`."""
        if self.save_freq == "epoch":
            return False
        added = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _is_writer(self):
        """Only the chief writes under a multi-worker strategy (every worker restores)."""
        strategy = getattr(self.model, "_distribute_strategy", None)
        return strategy is None or strategy.extended.should_checkpoint

    def _save_model(self, batch, steps_done):
        if not self._is_writer():
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            _atomic_copy(self._weights_path, self._prev_weights_path)
            _atomic_copy(self._training_metadata_path, self._prev_training_metadata_path)
        metadata = {"epoch": self._current_epoch, "batch": batch,
                    "kerasish": self._state(steps_done)}
        text = json.dumps(metadata)
        with atomic.atomic_path(self._weights_path) as tmp:
            saving_lib.write_weights(self.model, tmp)
            with h5py.File(tmp, "r+") as f:
                f[STATE_DATASET] = text
        with atomic.atomic_path(self._training_metadata_path) as tmp:
            with open(tmp, "w", encoding="utf8") as f:
                f.write(text)

    def _state(self, steps_done):
        state = {"format": 1, "checkpoint_id": uuid.uuid4().hex, "steps_done": steps_done,
                 "random": training_state.capture_random_state(self.model)}
        if steps_done:
            state["epoch_start_numpy"] = self._epoch_start_numpy
            state["metrics"] = training_state.capture_metrics(self.model)
        return state

    def on_train_end(self, logs=None):
        self.model._initial_epoch = None
        self.model._resume_step = 0
        if not self.delete_checkpoint or not self._is_writer():
            return
        for path in (self._weights_path, self._training_metadata_path, self._prev_weights_path,
                     self._prev_training_metadata_path):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
        atomic.remove_stray_temporaries(self.backup_dir)   # left by saves killed earlier
        with contextlib.suppress(OSError):     # absent, or holding other files: keep it
            os.rmdir(self.backup_dir)


def _metadata(h5_file, metadata_path):
    """kerasish's record inside the weights file, else Keras's `training_metadata.json`."""
    if STATE_DATASET in h5_file:
        stored = h5_file[STATE_DATASET][()]
        return json.loads(stored.decode("utf8") if isinstance(stored, bytes) else stored)
    with open(metadata_path, encoding="utf8") as meta:    # a backup written by Keras
        return {"epoch": int(json.load(meta)["epoch"]), "batch": 0}


def _atomic_copy(source, target):
    with contextlib.suppress(FileNotFoundError):
        with atomic.atomic_path(target) as tmp:
            shutil.copyfile(source, tmp)

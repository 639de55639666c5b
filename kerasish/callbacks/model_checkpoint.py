"""`ModelCheckpoint`: save the model or its weights during training (Keras 3 rules)."""
import os
import warnings

import numpy as np

from kerasish.callbacks._utils import print_msg
from kerasish.callbacks.monitor_callback import MonitorCallback


class ModelCheckpoint(MonitorCallback):
    """Saves the model (or only its weights) at the end of epochs or every N batches.

    The path may hold format fields filled from the epoch (1-based) and the
    logs, e.g. `"ckpt-{epoch:02d}-{val_loss:.2f}.keras"` (and `{batch}`,
    1-based, with an integer `save_freq`). Every file is written atomically,
    so an interrupted save never leaves a damaged checkpoint.

    Args:
        filepath: str or PathLike; must end in `.weights.h5` when
            `save_weights_only`, else in `.keras` (or legacy `.h5`). Checked
            when the callback is created.
        monitor: the log key compared when `save_best_only` (default "val_loss").
        verbose: 1 prints a message per save decision.
        save_best_only: save only when `monitor` improves on the best value so
            far (a missing `monitor` warns and saves anyway).
        save_weights_only: `model.save_weights` instead of `model.save`.
        mode: "auto", "min" or "max" (see `MonitorCallback`).
        save_freq: "epoch", or an integer number of batches between saves.
        initial_value_threshold: the value the first save must beat when
            `save_best_only`.

    Example:
        >>> checkpoint = keras.callbacks.ModelCheckpoint(
        ...     "ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5", save_weights_only=True)
        >>> model.fit(x, y, validation_split=0.2, epochs=3, callbacks=[checkpoint])
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        _check_arguments(self.filepath, save_freq, save_weights_only)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch):
        """Counts batches (a smaller index means a new epoch) against `save_freq`."""
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch, logs, filepath):
        """The `save_best_only` decision, with Keras's verbose messages."""
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=3)
            return True
        if np.ndim(current) > 0:
            warnings.warn("Can save best model only when `monitor` is a scalar value. "
                          f"Received: {current}. Falling back to `save_best_only=False`.",
                          stacklevel=3)
            return True
        if self.monitor_op is None:
            self._set_monitor_op()
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                          f"{current:.5f}, saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save_model(self, epoch, batch, logs):
        logs = logs or {}
        filepath = self._get_file_path(epoch, batch, logs)
        if not self._should_save_model(epoch, logs, filepath):
            return
        if os.path.isdir(filepath):
            raise IOError("Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}")
        folder = os.path.dirname(filepath)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _get_file_path(self, epoch, batch, logs):
        """`filepath` with `epoch` (1-based), `batch` (1-based) and the logs filled in."""
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}") from None


def _check_arguments(filepath, save_freq, save_weights_only):
    is_int = isinstance(save_freq, int) and not isinstance(save_freq, bool)
    if save_freq != "epoch" and not is_int:
        raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' "
                         "or integer values")
    if save_weights_only:
        if not filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             "filepath provided must end in `.weights.h5` (Keras weights "
                             f"format). Received: filepath={filepath}")
    elif not filepath.endswith((".keras", ".h5")):
        raise ValueError("The filepath provided must end in `.keras` (Keras model format). "
                         f"Received: filepath={filepath}")

"""`EarlyStopping`: stop training when a monitored quantity stops improving."""
import warnings

from kerasish.callbacks._utils import print_msg
from kerasish.callbacks.monitor_callback import MonitorCallback


class EarlyStopping(MonitorCallback):
    """Stops training when a monitored metric has stopped improving.

    At each epoch end (from `start_from_epoch` on) the wait counter grows by
    one; an improvement of more than `min_delta` over the best value so far
    records the new best (and its weights when `restore_best_weights`) and
    resets the counter, but only if it also beats `baseline`. When the
    counter reaches `patience` (and the epoch is not the first), training
    stops. At the end of training the best weights are restored whenever
    `restore_best_weights` is set and some were recorded, whether or not
    this callback stopped training (Keras 3 rule).

    Args:
        monitor: log key to watch. Defaults to "val_loss".
        min_delta: minimum change that counts as an improvement. Defaults to 0.
        patience: epochs without improvement before stopping. Defaults to 0.
        verbose: 1 prints `Epoch 3: early stopping` and the restore message.
        mode: "auto", "min" or "max" (see `MonitorCallback`).
        baseline: a value the metric must beat for the wait counter to reset.
        restore_best_weights: restore the weights of the best epoch at the
            end of training.
        start_from_epoch: epochs to skip before monitoring starts (warm-up).

    Example:

    ```python
    early_stopping = keras.callbacks.EarlyStopping(
        monitor="loss", patience=3, restore_best_weights=True)
    # model.fit(x, y, epochs=100, callbacks=[early_stopping])
    ```
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0,
                 mode="auto", baseline=None, restore_best_weights=False,
                 start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        # Allow the instance to be reused by another `fit`.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            # Delayed until the model's metrics are built.
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Until something improves, the current weights are the best.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self._record_best(epoch, current)
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def _record_best(self, epoch, current):
        """Stores a new best value (and weights); resets the wait counter
        only if `current` also beats the baseline."""
        self.best = current
        self.best_epoch = epoch
        if self.restore_best_weights:
            self.best_weights = self.model.get_weights()
        if self.baseline is None or self._is_improvement(current, self.baseline):
            self.wait = 0

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        """The monitored value from `logs`, warning when it is missing.

        Args:
            logs: the epoch logs.

        Returns:
            The value, or None when `logs` lacks `monitor`.
        """
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` "
                "which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value

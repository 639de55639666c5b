"""`ReduceLROnPlateau`: lower the learning rate when a metric stalls."""
import warnings

import numpy as np

from kerasish.callbacks._utils import get_learning_rate, print_msg, set_learning_rate
from kerasish.callbacks.monitor_callback import MonitorCallback


class ReduceLROnPlateau(MonitorCallback):
    """Reduces the learning rate when a metric has stopped improving.

    Every epoch end logs the current rate as `learning_rate`. After
    `patience` epochs without an improvement larger than `min_delta`
    (epochs in cooldown do not count) the rate becomes
    `max(lr * factor, min_lr)`, if it is still above `min_lr`; then
    `cooldown` epochs pass before counting starts again.

    Args:
        monitor: log key to watch. Defaults to "val_loss".
        factor: multiplier for the learning rate, < 1. Defaults to 0.1.
        patience: epochs without improvement before reducing. Defaults to 10.
        verbose: 1 prints, after a blank line,
            `Epoch 2: ReduceLROnPlateau reducing learning rate to 0.0005000000237487257.`
        mode: "auto", "min" or "max" (see `MonitorCallback`).
        min_delta: threshold for a significant improvement. Defaults to 1e-4.
        cooldown: epochs to wait after a reduction. Defaults to 0.
        min_lr: lower bound on the learning rate. Defaults to 0.
        **kwargs: accepted and ignored, as in Keras.

    Raises:
        ValueError: when `factor >= 1.0`.

    Example:

    ```python
    reduce_lr = keras.callbacks.ReduceLROnPlateau(
        monitor="val_loss", factor=0.2, patience=5, min_lr=0.001)
    # model.fit(x, y, validation_split=0.2, callbacks=[reduce_lr])
    ```
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0,
                 mode="auto", min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(
                "ReduceLROnPlateau does not support a factor >= 1.0. "
                f"Received factor={factor}"
            )
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        """Forgets the best value; resets the wait and cooldown counters."""
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            # Delayed until the model's metrics are built.
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = get_learning_rate(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                "Learning rate reduction is conditioned on metric "
                f"`{self.monitor}` which is not available. Available metrics "
                f"are: {','.join(list(logs.keys()))}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce_lr(epoch)

    def _reduce_lr(self, epoch):
        """Multiplies the learning rate by `factor` (not below `min_lr`)."""
        old_lr = get_learning_rate(self.model.optimizer)
        if old_lr <= np.float32(self.min_lr):
            return
        new_lr = max(old_lr * self.factor, self.min_lr)
        set_learning_rate(self.model.optimizer, new_lr)
        if self.verbose > 0:
            print_msg(
                f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing "
                f"learning rate to {new_lr}."
            )
        self.cooldown_counter = self.cooldown
        self.wait = 0

    def in_cooldown(self):
        """Whether the callback is in its cooldown period.

        Returns:
            True while `cooldown_counter > 0`.
        """
        return self.cooldown_counter > 0

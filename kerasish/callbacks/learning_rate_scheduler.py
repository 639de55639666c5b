"""`LearningRateScheduler`: set the learning rate from a function of the epoch."""
import numpy as np

from kerasish.callbacks._utils import get_learning_rate, print_msg, set_learning_rate
from kerasish.callbacks.callback import Callback


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at the start of every epoch.

    `schedule(epoch, lr)` (epoch 0-based, lr the current rate as a float)
    returns the new rate; a one-argument `schedule(epoch)` also works. The
    rate in use is logged as `learning_rate` at each epoch end.

    Args:
        schedule: function `(epoch, lr) -> float` (or `epoch -> float`).
        verbose: 1 prints
            `Epoch 1: LearningRateScheduler setting learning rate to 0.01.`
            (after a blank line).

    Raises:
        ValueError: when `schedule` returns something that is not a float.
        TypeError: when the optimizer uses a `LearningRateSchedule`.

    Example:

    ```python
    def scheduler(epoch, lr):
        return lr if epoch < 10 else lr * 0.9

    callback = keras.callbacks.LearningRateScheduler(scheduler)
    # model.fit(x, y, epochs=15, callbacks=[callback])
    ```
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def _update_optimizer_lr(self, optimizer, epoch):
        """Applies `schedule` to one optimizer.

        Returns:
            The new learning rate.
        """
        try:
            learning_rate = self.schedule(epoch, get_learning_rate(optimizer))
        except TypeError:  # The older one-argument form `schedule(epoch)`.
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(
                "The output of the `schedule` function should be a float. "
                f"Got: {learning_rate}"
            )
        set_learning_rate(optimizer, learning_rate)
        return learning_rate

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        for opt in getattr(optimizer, "optimizers", None) or [optimizer]:
            learning_rate = self._update_optimizer_lr(opt, epoch)
            if self.verbose > 0:
                which = f"{opt.name} " if opt is not optimizer else ""
                print_msg(
                    f"\nEpoch {epoch + 1}: LearningRateScheduler setting "
                    f"{which}learning rate to {learning_rate}."
                )

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        inner = getattr(optimizer, "optimizers", None)
        if inner:
            for opt in inner:
                logs[f"learning_rate_{opt.name}"] = get_learning_rate(opt)
        else:
            logs["learning_rate"] = get_learning_rate(optimizer)

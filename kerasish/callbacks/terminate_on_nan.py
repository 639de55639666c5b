"""`TerminateOnNaN`: stop training when the loss becomes NaN or infinite."""
import numpy as np

from kerasish.callbacks._utils import print_msg
from kerasish.callbacks.callback import Callback


class TerminateOnNaN(Callback):
    """Stops training when a batch's loss is NaN or Inf.

    By default it prints `Batch 3: Invalid loss, terminating training` and
    sets `model.stop_training`, so training ends gracefully (and
    `on_train_end` of every callback still runs).

    Args:
        raise_error: if True, raise a RuntimeError at once instead, so no
            cleanup hook runs. Defaults to False.

    Example:

    ```python
    callback = keras.callbacks.TerminateOnNaN()
    # model.fit(x, y, callbacks=[callback])
    ```
    """

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        """Checks the batch's `loss`.

        Args:
            batch: 0-based index of the batch.
            logs: the batch logs; only `loss` is read.

        Raises:
            RuntimeError: when the loss is NaN/Inf and `raise_error` is True.
        """
        loss = (logs or {}).get("loss")
        if loss is None or np.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(
                f"NaN or Inf loss encountered at batch {batch}. "
                f"Loss value: {loss}. Terminating training immediately."
            )
        print_msg(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True

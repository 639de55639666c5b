"""`LambdaCallback`: a callback made of plain functions."""
from kerasish.callbacks.callback import Callback


class LambdaCallback(Callback):
    """Builds a callback on the fly from functions.

    `on_epoch_begin`/`on_epoch_end` receive `(epoch, logs)`,
    `on_train_begin`/`on_train_end` receive `(logs)`, and
    `on_train_batch_begin`/`on_train_batch_end` receive `(batch, logs=...)`.
    Any other hook of `Callback` can be given by keyword too, e.g.
    `on_test_end=lambda logs: ...`.

    Args:
        on_epoch_begin: called at the start of every epoch.
        on_epoch_end: called at the end of every epoch.
        on_train_begin: called at the start of training.
        on_train_end: called at the end of training.
        on_train_batch_begin: called before every training batch.
        on_train_batch_end: called after every training batch.
        **kwargs: other hooks, `hook_name=function`.

    Example:

    ```python
    seen = []
    callback = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append((epoch, logs["loss"])))
    callback.on_epoch_end(0, {"loss": 0.5})
    seen    # [(0, 0.5)]
    ```
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None,
                 on_train_batch_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
        }
        for name, function in hooks.items():
            if function is not None:
                setattr(self, name, function)

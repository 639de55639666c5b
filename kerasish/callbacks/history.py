"""`History`: records the epoch logs of `fit` (returned by `fit`)."""
from kerasish.callbacks.callback import Callback


class History(Callback):
    """Records every epoch's logs; `fit` adds one and returns it.

    Attributes:
        history: dict of metric name -> list of per-epoch values, e.g.
            `{"loss": [0.9, 0.7], "val_loss": [1.0, 0.8]}`.
        epoch: list of the 0-based epoch indices seen, e.g. `[0, 1]`.
        params: the training parameters, e.g.
            `{"verbose": 1, "epochs": 2, "steps": 3}`.

    Example:

    ```python
    history = keras.callbacks.History()
    history.on_train_begin()
    history.on_epoch_end(0, {"loss": 0.5})
    history.history   # {'loss': [0.5]}
    ```
    """

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        # The model's `history` always points at the latest record.
        if self.model is not None:
            self.model.history = self

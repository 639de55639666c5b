"""The `Callback` base class: every hook of fit / evaluate / predict."""


class Callback:
    """Base class for objects that hook into `fit`, `evaluate` and `predict`.

    Subclass it and override the hooks you need; every hook is a no-op here.
    The trainer calls `set_model` and `set_params` first, so `self.model` and
    `self.params` (e.g. `{"verbose": 1, "epochs": 2, "steps": 3}`) are
    available in every hook. Set `self.model.stop_training = True` to end
    training after the current batch or epoch.

    Example:

    ```python
    class PrintEpochs(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, sorted(logs))
    ```
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        """Stores the training parameters.

        Args:
            params: dict such as `{"verbose": 1, "epochs": 2, "steps": 3}`.
        """
        self.params = params

    def set_model(self, model):
        """Stores the model the callback works with.

        Args:
            model: the `Model` being trained, evaluated or used to predict.
        """
        self._model = model

    @property
    def model(self):
        """The model passed to `set_model` (None before that)."""
        return self._model

    def on_batch_begin(self, batch, logs=None):
        """Backwards-compatible alias called by `on_train_batch_begin`."""

    def on_batch_end(self, batch, logs=None):
        """Backwards-compatible alias called by `on_train_batch_end`."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of an epoch (training only).

        Args:
            epoch: 0-based index of the epoch.
            logs: empty dict (reserved).
        """

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch (training only).

        Args:
            epoch: 0-based index of the epoch.
            logs: epoch results, e.g. `{"loss": 0.2, "val_loss": 0.3}`.
                Callbacks may add keys (ReduceLROnPlateau adds
                `learning_rate`); later callbacks see them.
        """

    def on_train_batch_begin(self, batch, logs=None):
        """Called before a training batch; calls `on_batch_begin`.

        Args:
            batch: 0-based index of the batch within the epoch.
            logs: empty dict (reserved).
        """
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after a training batch; calls `on_batch_end`.

        Args:
            batch: 0-based index of the batch within the epoch.
            logs: running epoch results so far, e.g. `{"loss": 0.25}`.
        """
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called before a batch of `evaluate` (or of validation in `fit`).

        Args:
            batch: 0-based index of the batch.
            logs: empty dict (reserved).
        """

    def on_test_batch_end(self, batch, logs=None):
        """Called after a batch of `evaluate` (or of validation in `fit`).

        Args:
            batch: 0-based index of the batch.
            logs: running results so far.
        """

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a batch of `predict`.

        Args:
            batch: 0-based index of the batch.
            logs: empty dict (reserved).
        """

    def on_predict_batch_end(self, batch, logs=None):
        """Called after a batch of `predict`.

        Args:
            batch: 0-based index of the batch.
            logs: dict with the batch's `outputs`.
        """

    def on_train_begin(self, logs=None):
        """Called once at the start of `fit`.

        Args:
            logs: empty dict (reserved).
        """

    def on_train_end(self, logs=None):
        """Called once at the end of `fit`.

        Args:
            logs: the logs of the last `on_epoch_end`.
        """

    def on_test_begin(self, logs=None):
        """Called at the start of `evaluate` or of validation in `fit`.

        Args:
            logs: empty dict (reserved).
        """

    def on_test_end(self, logs=None):
        """Called at the end of `evaluate` or of validation in `fit`.

        Args:
            logs: the evaluation results, e.g. `{"loss": 0.3}`.
        """

    def on_predict_begin(self, logs=None):
        """Called at the start of `predict`.

        Args:
            logs: empty dict (reserved).
        """

    def on_predict_end(self, logs=None):
        """Called at the end of `predict`.

        Args:
            logs: empty dict (reserved).
        """

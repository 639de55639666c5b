"""`ProgbarLogger`: prints the progress bar of fit / evaluate / predict."""
from kerasish.callbacks._utils import print_msg
from kerasish.callbacks.callback import Callback
from kerasish.utils.progbar import Progbar


class ProgbarLogger(Callback):
    """Prints the progress bar and metrics to stdout (added by `fit` itself).

    `fit(verbose=1)` shows one in-place bar per epoch, preceded by
    `Epoch i/N` when N > 1; its final update, at the end of the epoch,
    carries the epoch logs (`val_*` included). `verbose=2` prints one line
    per epoch. Validation inside `fit` prints nothing; `evaluate` and
    `predict` get a bar of their own. With an unknown number of steps the
    first epoch shows `      1/Unknown`, later epochs a full bar.

    Example:

    ```python
    logger = keras.callbacks.ProgbarLogger()
    logger.set_params({"verbose": 2, "epochs": 1, "steps": 2})
    logger.on_train_begin()
    logger.on_epoch_begin(0)
    logger.on_train_batch_end(0, {"loss": 0.5})
    logger.on_train_batch_end(1, {"loss": 0.4})
    logger.on_epoch_end(0, {"loss": 0.4})      # prints "2/2 - 0s - ... - loss: 0.4000"
    ```
    """

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        """Reads `verbose` ("auto" means 1), `epochs` and `steps`.

        Args:
            params: dict with keys `verbose`, `epochs`, `steps`.
        """
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def on_train_begin(self, logs=None):
        # Inside `fit`, validation is silent.
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update_progbar(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        # Predictions are not metrics: show the count only.
        self._update_progbar(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize_progbar(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs=None):
        self._finalize_progbar(logs)

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            # The logs already hold running epoch means: the bar must show
            # them as given, not average them again (as Keras 3 does).
            self.progbar = Progbar(target=self.target, verbose=self.verbose,
                                   unit_name="step", stateless_metrics=set())

    def _update_progbar(self, batch, logs=None):
        self._maybe_init_progbar()
        self.seen = batch + 1  # 1-based count of steps done.
        if self.verbose == 1:
            # `logs` may be a function returning them (CallbackList defers the host read):
            # the bar calls it only when it redraws, as every value is shown as given.
            values = (lambda: list(logs().items())) if callable(logs) \
                else list((logs or {}).items())
            self.progbar.update(self.seen, values, finalize=False)

    def _finalize_progbar(self, logs):
        self._maybe_init_progbar()
        if self.target is None:
            # The first pass over data of unknown length has counted it.
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)

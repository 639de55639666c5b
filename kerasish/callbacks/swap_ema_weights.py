"""`SwapEMAWeights`: evaluate with the optimizer's moving-average weights."""
import numpy as np

from kerasish.callbacks.callback import Callback


class SwapEMAWeights(Callback):
    """Swaps the model weights with the optimizer's EMA weights around evaluation.

    Before `evaluate`/`predict` (and validation inside `fit`) the trainable
    variables take the values of the optimizer's exponential moving averages
    (Polyak averaging); afterwards the training values come back. The swap
    is in place. Use with an optimizer created with `use_ema=True`.

    Args:
        swap_on_epoch: also hold the EMA weights from each epoch end until
            the next epoch begins, so that callbacks placed after this one
            (e.g. checkpointing) see them. Defaults to False.

    Raises:
        ValueError: when no optimizer has EMA weights (`use_ema=False`).

    Example:

    ```python
    # optimizer = keras.optimizers.SGD(use_ema=True)
    # model.compile(optimizer=optimizer, loss="mse")
    # model.fit(x, y, validation_split=0.2,
    #           callbacks=[keras.callbacks.SwapEMAWeights()])
    ```
    """

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _ema_optimizers(self):
        """The optimizers (inner ones of a multi-optimizer too) that hold EMA
        weights."""
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        inner = getattr(optimizer, "optimizers", None)
        if inner is None:
            self._check_ema(optimizer)
            return [optimizer]
        chosen = [opt for opt in inner if getattr(opt, "use_ema", False)]
        if not chosen:
            raise ValueError(
                "SwapEMAWeights must be used when at least one inner "
                "optimizer has `use_ema=True` set. Received a MultiOptimizer "
                "with all inner optimizers having `use_ema=False`."
            )
        for opt in chosen:
            self._check_ema(opt)
        return chosen

    @staticmethod
    def _check_ema(optimizer):
        if not hasattr(optimizer, "_model_variables_moving_average"):
            raise ValueError(
                "SwapEMAWeights must be used when `use_ema=True` is set on "
                f"the optimizer. Received: use_ema={getattr(optimizer, 'use_ema', False)}"
            )

    def _pairs(self):
        """(model variable, its moving average) for every EMA optimizer."""
        for optimizer in self._ema_optimizers():
            for pair in zip(optimizer._trainable_variables,
                            optimizer._model_variables_moving_average):
                if pair[1] is not None:  # `overwrite_with_gradient` variables have none
                    yield pair

    def _swap_variables(self):
        for variable, average in self._pairs():
            current = np.array(variable, copy=True)
            variable.assign(average)
            average.assign(current)

    def _finalize_ema_values(self):
        """Copies the (swapped-in) EMA values back into the averages, since
        the optimizer's end-of-fit finalisation reads them from there."""
        for variable, average in self._pairs():
            average.assign(variable)

    def _use_ema(self, wanted):
        """Swaps when the model does not already hold the wanted weights."""
        if self._ema_weights_in_model != wanted:
            self._swap_variables()
            self._ema_weights_in_model = wanted

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch:
            self._use_ema(False)

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._use_ema(True)
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None):
        self._use_ema(True)

    def on_test_end(self, logs=None):
        self._use_ema(False)

    def on_predict_begin(self, logs=None):
        self._use_ema(True)

    def on_predict_end(self, logs=None):
        self._use_ema(False)

"""`CallbackList`: calls every hook of a list of callbacks at once."""
from kerasish.callbacks.callback import Callback
from kerasish.callbacks.history import History
from kerasish.callbacks.progbar_logger import ProgbarLogger


def _flatten(callbacks):
    """A flat list from a callback, a (nested) list/tuple of them, or None."""
    if callbacks is None:
        return []
    if isinstance(callbacks, (list, tuple)):
        return [cb for item in callbacks for cb in _flatten(item)]
    return [callbacks]


def _overrides(callback, hook):
    """Whether `callback` has its own `hook` (a method or, like LambdaCallback, an attribute)."""
    return hook in vars(callback) or getattr(type(callback), hook) is not getattr(Callback, hook)


def _pythonify_logs(logs):
    """Sorted copy of `logs` with nested dicts merged and numbers as floats.

    Args:
        logs: dict of metric name -> value (Tensor, numpy scalar, float, dict).

    Returns:
        A new dict, keys in alphabetical order, values converted with
        `float()` where possible.
    """
    result = {}
    for key, value in sorted(logs.items()):
        if isinstance(value, dict):
            result.update(_pythonify_logs(value))
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            pass
        result[key] = value
    return result


class CallbackList(Callback):
    """A container that forwards every hook to a list of callbacks, in order.

    Args:
        callbacks: a `Callback` or a (nested) list of them, or None.
        add_history: append a `History` unless the list already has one.
        add_progbar: append a `ProgbarLogger` unless the list already has one.
        model: the model; passed to every callback's `set_model`, and its
            `history` attribute is set to the `History` callback.
        **params: passed to every callback's `set_params` (when not empty).

    Example:

    ```python
    callbacks = keras.callbacks.CallbackList(
        [keras.callbacks.TerminateOnNaN()], add_history=True,
        model=model, verbose=0, epochs=1, steps=1)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    callbacks.on_train_batch_begin(0)
    callbacks.on_train_batch_end(0, {"loss": 0.5})
    callbacks.on_epoch_end(0, {"loss": 0.5})
    callbacks.on_train_end({"loss": 0.5})
    ```
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False,
                 model=None, **params):
        super().__init__()
        self.callbacks = _flatten(callbacks)
        self._add_default_callbacks(add_history, add_progbar)
        self.set_model(model)
        self.set_params(params)

    def _add_default_callbacks(self, add_history, add_progbar):
        """Finds (or appends) the History and ProgbarLogger callbacks."""
        self._history = next(
            (cb for cb in self.callbacks if isinstance(cb, History)), None)
        self._progbar = next(
            (cb for cb in self.callbacks if isinstance(cb, ProgbarLogger)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)

    def set_params(self, params):
        """Stores `params` and passes them to every callback when not empty.

        Args:
            params: dict of training parameters.
        """
        self.params = params
        if params:
            for callback in self.callbacks:
                callback.set_params(params)

    def set_model(self, model):
        """Passes `model` to every callback and sets `model.history`.

        Args:
            model: the model, or None (then nothing happens).
        """
        if model is None:
            return
        super().set_model(model)
        if self._history is not None:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook, *args, logs=None):
        """Calls `hook(*args, logs)` on every callback with the same dict.

        As Keras, the callbacks get a sorted copy with float values (so
        `history.history` lists `val_*` keys in alphabetical order too).
        """
        logs = _pythonify_logs(logs or {})
        for callback in self.callbacks:
            getattr(callback, hook)(*args, logs)

    def _call_batch(self, hook, batch, logs=None):
        """Calls `hook(batch, logs=logs)` on every callback (Keras passes
        batch logs by keyword)."""
        logs = logs or {}
        for callback in self.callbacks:
            getattr(callback, hook)(batch, logs=logs)

    # Epoch / train / test / predict ---------------------------------------
    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)

    # Batches ----------------------------------------------------------------
    def on_batch_begin(self, batch, logs=None):
        self._call_batch("on_batch_begin", batch, _pythonify_logs(logs or {}))

    def on_batch_end(self, batch, logs=None):
        self._call_batch("on_batch_end", batch, _pythonify_logs(logs or {}))

    def on_train_batch_begin(self, batch, logs=None):
        self._call_batch("on_train_batch_begin", batch, _pythonify_logs(logs or {}))

    def on_train_batch_end(self, batch, logs=None):
        self._batch_end("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_batch("on_test_batch_begin", batch, _pythonify_logs(logs or {}))

    def on_test_batch_end(self, batch, logs=None):
        self._batch_end("on_test_batch_end", batch, logs)

    def _batch_end(self, hook, batch, logs):
        """Batch-end logs as floats, read from the device only if someone reads them.

        When no callback but the progress bar and History overrides the hook
        (or `on_batch_end`), the progress bar gets a function that converts
        the logs, which it calls only when it redraws.
        """
        logs = logs or {}
        if self._reads_batch_logs(hook):
            self._call_batch(hook, batch, _pythonify_logs(logs))
        else:
            self._call_batch(hook, batch, lambda: _pythonify_logs(logs))

    def _reads_batch_logs(self, hook):
        readers = self.__dict__.setdefault("_batch_log_readers", {})
        if hook not in readers:
            readers[hook] = any(
                not isinstance(cb, (History, ProgbarLogger)) and
                (_overrides(cb, hook) or hook == "on_train_batch_end" and
                 _overrides(cb, "on_batch_end"))
                for cb in self.callbacks)
        return readers[hook]

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_batch("on_predict_batch_begin", batch, _pythonify_logs(logs or {}))

    def on_predict_batch_end(self, batch, logs=None):
        self._call_batch("on_predict_batch_end", batch, logs)

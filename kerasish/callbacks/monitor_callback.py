"""`MonitorCallback`: the shared "is this value an improvement?" logic."""
import warnings


from kerasish import ops
from kerasish.callbacks.callback import Callback


def _all_metrics(metrics, depth=0):
    """Yields metrics depth-first, also those inside containers (objects
    with a `.metrics` list, like the compiled-metrics container)."""
    for metric in metrics or ():
        yield metric
        inner = getattr(metric, "metrics", None)
        if depth < 4 and isinstance(inner, (list, tuple)):
            yield from _all_metrics(inner, depth + 1)


def metric_direction(model, monitor):
    """The direction ("up"/"down") Keras's mode="auto" infers for `monitor`.

    Args:
        model: the model (its `metrics` are searched), or None.
        monitor: a log key such as "val_loss" or "accuracy".

    Returns:
        "down" for `loss`/`val_loss`, else the `_direction` of the model
        metric named `monitor` (without `val_`), else None.
    """
    name = monitor.removeprefix("val_")
    direction = "down" if name == "loss" else None
    try:
        metrics = getattr(model, "metrics", None)
    except (AttributeError, ValueError):
        metrics = None
    for metric in _all_metrics(metrics):
        if getattr(metric, "name", None) == name and hasattr(metric, "_direction"):
            direction = "up" if metric._direction == "up" else "down"
    return direction


class MonitorCallback(Callback):
    """Base for callbacks that watch a logged quantity for improvement.

    Subclasses call `_set_monitor_op()` once the model's metrics exist (at
    the first epoch end) and then `_is_improvement(value, reference)`.

    Args:
        monitor: the log key to watch. Defaults to "val_loss".
        mode: "min", "max" or "auto". "auto" minimises `loss`/`val_loss` and
            otherwise follows the `_direction` of the compiled metric of that
            name (accuracy-like -> max, error-like -> min); if none is found
            a ValueError asks for `mode`. An unknown mode warns and falls
            back to "auto".
        baseline: initial best value; None starts from the first value.
        min_delta: smallest change that counts as an improvement.

    Example:

    ```python
    class BestLoss(keras.callbacks.MonitorCallback):
        def on_epoch_end(self, epoch, logs=None):
            if self.monitor_op is None:
                self._set_monitor_op()
            if self._is_improvement(logs[self.monitor], self.best):
                self.best = logs[self.monitor]
    ```
    """

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{self.__class__.__name__} mode '{mode}' is unknown, fallback "
                "to auto mode.",
                stacklevel=2,
            )
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        """Chooses `ops.less` or `ops.greater` from `mode` (and the model), as Keras.

        Raises:
            ValueError: mode="auto" and the direction cannot be inferred.
        """
        if self.mode == "min":
            self.monitor_op = ops.less
        elif self.mode == "max":
            self.monitor_op = ops.greater
        else:
            direction = metric_direction(self.model, self.monitor)
            if direction is None:
                raise ValueError(
                    f"{self.__class__.__name__} callback received "
                    f"monitor={self.monitor}, but Keras isn't able to "
                    "automatically determine whether that metric should be "
                    "maximized or minimized. Pass `mode='max'` in order to "
                    "monitor based on the highest metric value, or pass "
                    "`mode='min'` in order to use the lowest value."
                )
            self.monitor_op = ops.greater if direction == "up" else ops.less
        if self.monitor_op is ops.less:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        """Whether `monitor_value` beats `reference_value` by `min_delta`.

        Args:
            monitor_value: the new value.
            reference_value: the value to beat; None always loses.

        Returns:
            A Python bool.
        """
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))

"""F-scores: `FBetaScore` and `F1Score` for multi-class and multi-label data."""
from kerasish.backend import config
from kerasish.metrics.metric import Metric
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction

_AVERAGES = (None, "micro", "macro", "weighted")


def _check_arguments(average, beta, threshold):
    if average not in _AVERAGES:
        raise ValueError("Invalid `average` argument value. Expected one of: "
                         f"{{None, 'micro', 'macro', 'weighted'}}. Received: average={average}")
    if not isinstance(beta, float):
        raise ValueError("Invalid `beta` argument value. It should be a Python float. "
                         f"Received: beta={beta} of type '{type(beta)}'")
    if beta <= 0.0:
        raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
    if threshold is not None:
        if not isinstance(threshold, float):
            raise ValueError("Invalid `threshold` argument value. It should be a Python float. "
                             f"Received: threshold={threshold} of type '{type(threshold)}'")
        if threshold > 1.0 or threshold <= 0.0:
            raise ValueError("Invalid `threshold` argument value. It should verify "
                             f"0 < threshold <= 1. Received: threshold={threshold}")


class FBetaScore(Metric):
    """F-beta score `(1 + b^2) * precision * recall / (b^2 * precision + recall)`.

    Args:
        average: None (one score per class), "micro" (global counts),
            "macro" (unweighted mean over classes) or "weighted" (mean
            weighted by each class's support).
        beta: weight of recall, a positive Python float (default 1.0).
        threshold: predictions above it count as 1; None marks each row's
            maximum (argmax) as 1.
        name: the metric name (default "fbeta_score").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.FBetaScore(beta=2.0, threshold=0.5)
        >>> m.update_state(np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32),
        ...                np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32))
        >>> m.result()   # [0.3846, 0.9091, 0.8333]
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        _check_arguments(average, beta, threshold)
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim). "
                             f"Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim), "
                             "with output_dim fully defined (not None). Received input shapes: "
                             f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        shape = () if self.average == "micro" else (y_pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives",
                     "intermediate_weights"):
            setattr(self, name, self.add_variable(shape, "zeros", dtype=self.dtype, name=name))
        self._built = True

    def _binarize(self, y_pred):
        if self.threshold is not None:
            return core.cast(ew.greater(y_pred, self.threshold), self.dtype)
        row_max = reduction.max(y_pred, axis=-1, keepdims=True)
        hits = ew.logical_and(ew.greater_equal(y_pred, row_max),
                              ew.greater(ew.absolute(y_pred), 1e-9))
        return core.cast(hits, self.dtype)

    def _weighted_sum(self, values, sample_weight):
        if sample_weight is not None:
            values = ew.multiply(values, shape_ops.expand_dims(sample_weight, 1))
        return reduction.sum(values, axis=self.axis)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulates true positives, false positives/negatives and class supports.

        Args:
            y_true: 0/1 targets, shape `(batch, num_classes)`.
            y_pred: scores, same shape.
            sample_weight: optional per-sample weights, shape `(batch,)`.
        """
        y_true = core.convert_to_tensor(y_true, dtype=self.dtype)
        y_pred = core.convert_to_tensor(y_pred, dtype=self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        y_pred = self._binarize(y_pred)
        if sample_weight is not None:
            sample_weight = core.convert_to_tensor(sample_weight, dtype=self.dtype)
        not_pred, not_true = ew.subtract(1.0, y_pred), ew.subtract(1.0, y_true)
        self.true_positives.assign_add(self._weighted_sum(ew.multiply(y_pred, y_true), sample_weight))
        self.false_positives.assign_add(self._weighted_sum(ew.multiply(y_pred, not_true), sample_weight))
        self.false_negatives.assign_add(self._weighted_sum(ew.multiply(not_pred, y_true), sample_weight))
        self.intermediate_weights.assign_add(self._weighted_sum(y_true, sample_weight))

    def result(self):
        """The F-beta score (per class when `average` is None)."""
        eps = config.epsilon()
        tp = self.true_positives
        precision = ew.divide(tp, ew.add(ew.add(tp, self.false_positives), eps))
        recall = ew.divide(tp, ew.add(ew.add(tp, self.false_negatives), eps))
        b2 = self.beta ** 2
        score = ew.divide(ew.multiply(precision, recall),
                          ew.add(ew.add(ew.multiply(precision, b2), recall), eps))
        score = ew.multiply(score, 1.0 + b2)
        if self.average == "weighted":
            weights = ew.divide(self.intermediate_weights,
                                ew.add(reduction.sum(self.intermediate_weights), eps))
            return reduction.sum(ew.multiply(score, weights))
        if self.average is not None:
            return reduction.mean(score)
        return score

    def reset_state(self):
        for variable in self.variables:
            variable.assign(0)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "average": self.average,
                "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """F1 score `2 * precision * recall / (precision + recall)`.

    Args:
        average: None, "micro", "macro" or "weighted" (see `FBetaScore`).
        threshold: predictions above it count as 1; None uses each row's argmax.
        name: the metric name (default "f1_score").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.F1Score(threshold=0.5)
        >>> m.update_state(np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32),
        ...                np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32))
        >>> m.result()   # [0.5, 0.8, 0.6667]
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config_dict = super().get_config()
        del config_dict["beta"]
        return config_dict

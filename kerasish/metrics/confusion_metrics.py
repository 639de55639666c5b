"""Confusion-matrix metrics: TP/FP/TN/FN counts, Precision, Recall, AUC and
the sensitivity/specificity/precision/recall trade-off metrics."""
import numpy as np

from kerasish.backend import config
from kerasish.losses.loss import divide_no_nan
from kerasish.metrics import metrics_utils
from kerasish.metrics.metric import Metric
from kerasish.ops import core, elementwise as ew, nn, reduction


class _ConfusionMatrixConditionCount(Metric):
    """Counts one confusion-matrix condition ("tp", "fp", "tn" or "fn") per threshold."""

    _condition = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = metrics_utils.parse_init_thresholds(thresholds, default_threshold=0.5)
        self._thresholds_distributed_evenly = metrics_utils.is_evenly_distributed_thresholds(
            self.thresholds)
        self.accumulator = self.add_variable((len(self.thresholds),), "zeros", name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Adds the batch's (weighted) count.

        Args:
            y_true: labels (nonzero means positive).
            y_pred: predictions in [0, 1], positive when above a threshold.
            sample_weight: optional weights broadcastable to `y_true`.
        """
        metrics_utils.update_confusion_matrix_variables(
            {self._condition: self.accumulator}, y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight)

    def result(self):
        """The count (one per threshold when several were given)."""
        if len(self.thresholds) == 1:
            return self.accumulator[0]
        # Keras's convert_to_tensor hands back the variable itself: a later update shows
        # through (fit's epoch logs read it after validation ran).
        return core.convert_to_tensor(self.accumulator)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class FalsePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false positives.

    Args:
        thresholds: a float or list of floats in [0, 1] (default 0.5);
            predictions above a threshold are positive.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.FalsePositives()
        >>> m.update_state([0, 1, 0, 0], [0, 0, 1, 1])
        >>> float(m.result())
        2.0
    """

    _condition = "fp"


class FalseNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false negatives.

    Args:
        thresholds: a float or list of floats in [0, 1] (default 0.5).
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.FalseNegatives()
        >>> m.update_state([0, 1, 1, 1], [0, 1, 0, 0])
        >>> float(m.result())
        2.0
    """

    _condition = "fn"


class TrueNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true negatives.

    Args:
        thresholds: a float or list of floats in [0, 1] (default 0.5).
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.TrueNegatives()
        >>> m.update_state([0, 1, 0, 0], [1, 1, 0, 0])
        >>> float(m.result())
        2.0
    """

    _condition = "tn"


class TruePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true positives.

    Args:
        thresholds: a float or list of floats in [0, 1] (default 0.5).
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.TruePositives()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> float(m.result())
        2.0
    """

    _condition = "tp"


class _PrecisionRecallBase(Metric):
    """Shared set-up of Precision and Recall: thresholds or top-k, class id."""

    _other = None  # "fp" for precision, "fn" for recall

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else metrics_utils.NEG_INF
        self.thresholds = metrics_utils.parse_init_thresholds(thresholds, default_threshold=default)
        self._thresholds_distributed_evenly = metrics_utils.is_evenly_distributed_thresholds(
            self.thresholds)
        n = len(self.thresholds)
        self.true_positives = self.add_variable((n,), "zeros", name="true_positives")
        other_name = "false_positives" if self._other == "fp" else "false_negatives"
        setattr(self, other_name, self.add_variable((n,), "zeros", name=other_name))
        self._other_variable = getattr(self, other_name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulates the batch's true positives and its false positives/negatives.

        Args:
            y_true: labels, same shape as `y_pred` (nonzero means positive).
            y_pred: predictions in [0, 1].
            sample_weight: optional weights broadcastable to `y_true`.
        """
        metrics_utils.update_confusion_matrix_variables(
            {"tp": self.true_positives, self._other: self._other_variable}, y_true, y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight)

    def result(self):
        """`tp / (tp + other)` (0 when empty), one value per threshold if several."""
        value = divide_no_nan(self.true_positives,
                              ew.add(self.true_positives, self._other_variable))
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(_PrecisionRecallBase):
    """Precision `tp / (tp + fp)` of thresholded (or top-k) predictions.

    Args:
        thresholds: a float or list of floats in [0, 1]; predictions above
            are positive (0.5 unless `top_k` is set).
        top_k: count only the `top_k` highest predictions of each row as positive.
        class_id: compute the binary precision of this class only.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Precision()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 4)
        0.6667
    """

    _other = "fp"


class Recall(_PrecisionRecallBase):
    """Recall `tp / (tp + fn)` of thresholded (or top-k) predictions.

    Args:
        thresholds: a float or list of floats in [0, 1] (0.5 unless `top_k` is set).
        top_k: count only the `top_k` highest predictions of each row as positive.
        class_id: compute the binary recall of this class only.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Recall()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 4)
        0.6667
    """

    _other = "fn"


def _even_thresholds(num_thresholds):
    """`num_thresholds` thresholds 0, 1/(n-1), ..., 1 as Keras computes them."""
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0] + inner + [1.0]


class SensitivitySpecificityBase(Metric):
    """Base of the metrics that maximise one rate subject to a bound on another.

    Args:
        value: the bound (in [0, 1]).
        num_thresholds: number of evenly spaced thresholds (default 200).
        class_id: restrict to one class.
        name: the metric name.
        dtype: the state dtype.
    """

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        self.value = value
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds, self._thresholds_distributed_evenly = [0.5], False
        else:
            self.thresholds, self._thresholds_distributed_evenly = \
                _even_thresholds(num_thresholds), True
        n = len(self.thresholds)
        self.true_positives = self.add_variable((n,), "zeros", name="true_positives")
        self.false_positives = self.add_variable((n,), "zeros", name="false_positives")
        self.true_negatives = self.add_variable((n,), "zeros", name="true_negatives")
        self.false_negatives = self.add_variable((n,), "zeros", name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulates the four confusion counts at every threshold.

        Args:
            y_true: labels.
            y_pred: predictions in [0, 1].
            sample_weight: optional weights.
        """
        metrics_utils.update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id, sample_weight=sample_weight)

    def _rates(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        return {"sensitivity": divide_no_nan(tp, ew.add(tp, fn)),
                "specificity": divide_no_nan(tn, ew.add(tn, fp)),
                "precision": divide_no_nan(tp, ew.add(tp, fp))}

    def _find_max_under_constraint(self, constrained, dependent):
        """Max of `dependent` where `constrained >= value` (0 when none qualifies)."""
        feasible = ew.greater_equal(constrained, self.value)
        return reduction.max(ew.where(feasible, dependent, 0.0))

    def get_config(self):
        return {**super().get_config(), "class_id": self.class_id}


def _check_unit(name, value):
    if value < 0 or value > 1:
        raise ValueError(f"Argument `{name}` must be in the range [0, 1]. Received: {name}={value}")


class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """Best sensitivity (recall) among thresholds whose specificity >= `specificity`.

    Args:
        specificity: the bound in [0, 1].
        num_thresholds: number of thresholds (default 200).
        class_id: restrict to one class.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.SensitivityAtSpecificity(0.5)
        >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        >>> float(m.result())
        0.5
    """

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("specificity", specificity)
        self.specificity = specificity
        self.num_thresholds = num_thresholds
        super().__init__(specificity, num_thresholds=num_thresholds, class_id=class_id,
                         name=name, dtype=dtype)

    def result(self):
        rates = self._rates()
        return self._find_max_under_constraint(rates["specificity"], rates["sensitivity"])

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "specificity": self.specificity}


class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """Best specificity among thresholds whose sensitivity >= `sensitivity`.

    Args:
        sensitivity: the bound in [0, 1].
        num_thresholds: number of thresholds (default 200).
        class_id: restrict to one class.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.SpecificityAtSensitivity(0.5)
        >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        >>> round(float(m.result()), 4)
        0.6667
    """

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("sensitivity", sensitivity)
        self.sensitivity = sensitivity
        self.num_thresholds = num_thresholds
        super().__init__(sensitivity, num_thresholds=num_thresholds, class_id=class_id,
                         name=name, dtype=dtype)

    def result(self):
        rates = self._rates()
        return self._find_max_under_constraint(rates["sensitivity"], rates["specificity"])

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "sensitivity": self.sensitivity}


class PrecisionAtRecall(SensitivitySpecificityBase):
    """Best precision among thresholds whose recall >= `recall`.

    Args:
        recall: the bound in [0, 1].
        num_thresholds: number of thresholds (default 200).
        class_id: restrict to one class.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.PrecisionAtRecall(0.5)
        >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        >>> float(m.result())
        0.5
    """

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("recall", recall)
        self.recall = recall
        self.num_thresholds = num_thresholds
        super().__init__(recall, num_thresholds=num_thresholds, class_id=class_id,
                         name=name, dtype=dtype)

    def result(self):
        rates = self._rates()
        return self._find_max_under_constraint(rates["sensitivity"], rates["precision"])

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "recall": self.recall}


class RecallAtPrecision(SensitivitySpecificityBase):
    """Best recall among thresholds whose precision >= `precision` (0 if unreachable).

    Args:
        precision: the bound in [0, 1].
        num_thresholds: number of thresholds (default 200).
        class_id: restrict to one class.
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.RecallAtPrecision(0.8)
        >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
        >>> float(m.result())
        0.5
    """

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_unit("precision", precision)
        self.precision = precision
        self.num_thresholds = num_thresholds
        super().__init__(precision, num_thresholds=num_thresholds, class_id=class_id,
                         name=name, dtype=dtype)

    def result(self):
        rates = self._rates()
        return self._find_max_under_constraint(rates["precision"], rates["sensitivity"])

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds,
                "precision": self.precision}


_CURVES = {"roc": "ROC", "pr": "PR", "prgain": "PRGAIN"}
_SUMMATIONS = ("interpolation", "majoring", "minoring")


def _parse_curve(curve):
    key = getattr(curve, "value", curve)
    if str(key).lower() not in _CURVES:
        raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are '
                         '["PR", "ROC", "PRGAIN"]')
    return _CURVES[str(key).lower()]


def _precision_recall_gain(tp, fp, tn, fn):
    """(recall gain, precision gain) of Flach & Kull's PR-gain curve, as Keras.

    Both are scaled by P/N. With no true positive, recall gain is 0 and
    precision gain 1; a negative recall gain (recall below the positive rate)
    is clipped to 0.
    """
    scale = divide_no_nan(ew.add(tp, fn), ew.add(tn, fp))
    recall_gain = ew.subtract(1.0, ew.multiply(scale, divide_no_nan(fn, tp)))
    precision_gain = ew.subtract(1.0, ew.multiply(scale, divide_no_nan(fp, tp)))
    no_tp = ew.equal(tp, 0.0)
    recall_gain = ew.maximum(ew.where(no_tp, 0.0, recall_gain), 0.0)
    precision_gain = ew.where(no_tp, 1.0, precision_gain)
    return recall_gain, precision_gain


def _parse_summation(method):
    key = str(getattr(method, "value", method)).lower()
    if key not in _SUMMATIONS:
        raise ValueError(f'Invalid AUC summation method value: "{method}". Expected values are '
                         '["interpolation", "majoring", "minoring"]')
    return key


class AUC(Metric):
    """Area under the ROC or precision-recall curve, by a Riemann sum over thresholds.

    Predictions are bucketed on `num_thresholds` evenly spaced thresholds
    (plus -epsilon and 1+epsilon end points), exactly as Keras does, so the
    approximation (and its numbers) match Keras's.

    Args:
        num_thresholds: number of thresholds (> 1, default 200).
        curve: "ROC" (default), "PR" or "PRGAIN" (precision-recall gain).
        summation_method: "interpolation" (default; for PR the Davis &
            Goadrich interpolation), "minoring" or "majoring".
        name: the metric name.
        dtype: the state dtype.
        thresholds: explicit thresholds in [0, 1] (then `num_thresholds` is ignored).
        multi_label: compute one AUC per label (column) and average them.
        num_labels: number of labels with `multi_label` (else set on first update).
        label_weights: per-label weights (averaging weights with `multi_label`).
        from_logits: apply a sigmoid to `y_pred` first.

    Example:
        >>> m = keras.metrics.AUC(num_thresholds=3)
        >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
        >>> float(m.result())
        0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = metrics_utils.is_evenly_distributed_thresholds(
                np.array([0.0] + thresholds + [1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = _even_thresholds(num_thresholds)[1:-1]
            self._thresholds_distributed_evenly = True
        eps = config.epsilon()
        self._thresholds = np.array([0.0 - eps] + list(thresholds) + [1.0 + eps])
        self.curve = _parse_curve(curve)
        self.summation_method = _parse_summation(summation_method)
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = (None if label_weights is None
                              else core.convert_to_tensor(np.asarray(label_weights), self.dtype))
        self._from_logits = from_logits
        self._built = False
        if multi_label and num_labels:
            self._build((None, num_labels))
        elif not multi_label:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self):
        """The thresholds, including the -epsilon and 1+epsilon end points."""
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError("`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                                 f"{len(shape)}. Full shape received for `y_pred`: {shape}")
            self._num_labels = shape[1]
            variable_shape = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, name, self.add_variable(variable_shape, "zeros", name=name))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulates the confusion counts at every threshold.

        Args:
            y_true: 0/1 labels.
            y_pred: probabilities (or logits with `from_logits=True`).
            sample_weight: optional weights broadcastable to `y_true`.
        """
        y_pred = core.convert_to_tensor(y_pred)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = nn.sigmoid(y_pred)
        metrics_utils.update_confusion_matrix_variables(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self._thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _average_labels(self, per_threshold_terms):
        if not self.multi_label:
            return reduction.sum(per_threshold_terms)
        by_label = reduction.sum(per_threshold_terms, axis=0)
        if self.label_weights is None:
            return reduction.mean(by_label)
        return divide_no_nan(reduction.sum(ew.multiply(by_label, self.label_weights)),
                             reduction.sum(self.label_weights))

    def interpolate_pr_auc(self):
        """PR-AUC with precision interpolated between thresholds (Davis & Goadrich, 2006).

        Returns:
            Tensor: the approximate area under the precision-recall curve.
        """
        n = self.num_thresholds
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        dtp = ew.subtract(tp[:n - 1], tp[1:])
        p = ew.add(tp, fp)
        dp = ew.subtract(p[:n - 1], p[1:])
        slope = divide_no_nan(dtp, ew.maximum(dp, 0.0))
        intercept = ew.subtract(tp[1:], ew.multiply(slope, p[1:]))
        both_positive = ew.logical_and(ew.greater(p[:n - 1], 0), ew.greater(p[1:], 0))
        ratio = ew.where(both_positive, divide_no_nan(p[:n - 1], ew.maximum(p[1:], 0.0)), 1.0)
        area = ew.multiply(slope, ew.add(dtp, ew.multiply(intercept, ew.log(ratio))))
        increments = divide_no_nan(area, ew.maximum(ew.add(tp[1:], fn[1:]), 0.0))
        return self._average_labels(increments)

    def _curve_points(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        recall = divide_no_nan(tp, ew.add(tp, fn))
        if self.curve == "ROC":
            return divide_no_nan(fp, ew.add(fp, tn)), recall
        if self.curve == "PR":
            return recall, divide_no_nan(tp, ew.add(tp, fp))
        return _precision_recall_gain(tp, fp, tn, fn)

    def result(self):
        """The area under the curve (label-averaged with `multi_label`)."""
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        x, y = self._curve_points()
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = ew.divide(ew.add(y[:n - 1], y[1:]), 2.0)
        elif self.summation_method == "minoring":
            heights = ew.minimum(y[:n - 1], y[1:])
        else:
            heights = ew.maximum(y[:n - 1], y[1:])
        return self._average_labels(ew.multiply(ew.subtract(x[:n - 1], x[1:]), heights))

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        label_weights = self.label_weights
        config_dict = {
            "num_thresholds": self.num_thresholds, "curve": self.curve,
            "summation_method": self.summation_method, "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": label_weights,  # the tensor, as Keras (serialized `__tensor__`)
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config_dict["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config_dict}

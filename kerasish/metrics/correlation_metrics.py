"""Correlation metrics: Pearson and concordance correlation, averaged over samples."""
from kerasish.backend import config
from kerasish.losses.loss import squeeze_or_expand_to_same_rank
from kerasish.metrics.reduction_metrics import MeanMetricWrapper
from kerasish.ops import core, elementwise as ew, reduction


def _prepare(y_true, y_pred):
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson correlation between `y_true` and `y_pred` along `axis`.

    Args:
        y_true: targets, shape `(batch, d)`.
        y_pred: predictions, same shape.
        axis: the axis the correlation runs over.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.metrics.pearson_correlation([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])   # [0.9934]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    centred_true = ew.subtract(y_true, reduction.mean(y_true, axis=axis, keepdims=True))
    centred_pred = ew.subtract(y_pred, reduction.mean(y_pred, axis=axis, keepdims=True))
    centred_true = ew.divide(centred_true, reduction.std(centred_true, axis=axis, keepdims=True))
    centred_pred = ew.divide(centred_pred, reduction.std(centred_pred, axis=axis, keepdims=True))
    return reduction.mean(ew.multiply(centred_true, centred_pred), axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along `axis`, computed exactly as Keras does.

    Args:
        y_true: targets, shape `(batch, d)`.
        y_pred: predictions, same shape.
        axis: the axis the correlation runs over.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.metrics.concordance_correlation([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])   # [1.]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    true_mean = reduction.mean(y_true, axis=axis, keepdims=True)
    pred_mean = reduction.mean(y_pred, axis=axis, keepdims=True)
    true_var = reduction.var(ew.subtract(y_true, true_mean), axis=axis, keepdims=True)
    pred_var = reduction.var(ew.subtract(y_pred, pred_mean), axis=axis, keepdims=True)
    covar = ew.multiply(ew.subtract(y_true, pred_mean), ew.subtract(y_pred, pred_mean))
    norm = ew.add(ew.add(true_var, pred_var), ew.square(ew.subtract(true_mean, pred_mean)))
    ratio = ew.divide(ew.multiply(covar, 2.0), ew.add(norm, config.epsilon()))
    return reduction.mean(ratio, axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """Running mean of the per-sample Pearson correlation.

    Args:
        name: the metric name (default "pearson_correlation").
        dtype: the state dtype.
        axis: the axis the correlation runs over (default -1).

    Example:
        >>> m = keras.metrics.PearsonCorrelation()
        >>> m.update_state([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])
        >>> round(float(m.result()), 4)
        0.9934
    """

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(fn=pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


class ConcordanceCorrelation(MeanMetricWrapper):
    """Running mean of the per-sample concordance correlation.

    Args:
        name: the metric name (default "concordance_correlation").
        dtype: the state dtype.
        axis: the axis the correlation runs over (default -1).

    Example:
        >>> m = keras.metrics.ConcordanceCorrelation()
        >>> m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
        >>> round(float(m.result()), 4)
        1.0
    """

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(fn=concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}

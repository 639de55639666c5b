"""Regression metrics: MSE, MAE, MAPE, MSLE, RMSE, cosine similarity, log-cosh, R2."""
import warnings

from kerasish.losses.loss import squeeze_or_expand_to_same_rank
from kerasish.losses.regression import (log_cosh, mean_absolute_error,
                                        mean_absolute_percentage_error,
                                        mean_squared_error,
                                        mean_squared_logarithmic_error)
from kerasish.metrics.metric import Metric
from kerasish.metrics.reduction_metrics import Mean, MeanMetricWrapper
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, nn, reduction


def cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity `sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`.

    (Positive, unlike the loss `keras.losses.cosine_similarity`.)

    Args:
        y_true: targets.
        y_pred: predictions.
        axis: the feature axis.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> cosine_similarity([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])   # [0., 1.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    products = ew.multiply(nn.normalize(y_true, axis=axis), nn.normalize(y_pred, axis=axis))
    return reduction.sum(products, axis=axis)


class _LossMean(MeanMetricWrapper):
    """A running mean of a regression loss function (minimised)."""

    _fn_ = None

    def __init__(self, name, dtype=None):
        super().__init__(type(self)._fn_, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class MeanSquaredError(_LossMean):
    """Mean squared error between labels and predictions.

    Args:
        name: the metric name (default "mean_squared_error").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.MeanSquaredError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> float(m.result())
        0.25
    """

    _fn_ = staticmethod(mean_squared_error)

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


class MeanAbsoluteError(_LossMean):
    """Mean absolute error between labels and predictions.

    Args:
        name: the metric name (default "mean_absolute_error").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.MeanAbsoluteError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]], sample_weight=[1, 0])
        >>> float(m.result())
        0.5
    """

    _fn_ = staticmethod(mean_absolute_error)

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


class MeanAbsolutePercentageError(_LossMean):
    """Mean absolute percentage error: `100 * mean(abs((y_true - y_pred) / y_true))`.

    Args:
        name: the metric name (default "mean_absolute_percentage_error").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.MeanAbsolutePercentageError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> float(m.result())
        250000000.0
    """

    _fn_ = staticmethod(mean_absolute_percentage_error)

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


class MeanSquaredLogarithmicError(_LossMean):
    """Mean squared logarithmic error: `mean(square(log(y_true + 1) - log(y_pred + 1)))`.

    Args:
        name: the metric name (default "mean_squared_logarithmic_error").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.MeanSquaredLogarithmicError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> round(float(m.result()), 4)
        0.1201
    """

    _fn_ = staticmethod(mean_squared_logarithmic_error)

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name=name, dtype=dtype)


class LogCoshError(_LossMean):
    """Logarithm of the hyperbolic cosine of the prediction error.

    Args:
        name: the metric name (default "logcosh").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.LogCoshError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> round(float(m.result()), 4)
        0.1084
    """

    _fn_ = staticmethod(log_cosh)

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name=name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """Root mean squared error: `sqrt(mean(square(y_pred - y_true)))`.

    Args:
        name: the metric name (default "root_mean_squared_error").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.RootMeanSquaredError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Adds the squared errors of a batch.

        Args:
            y_true: targets.
            y_pred: predictions.
            sample_weight: optional weights broadcastable to `y_true`.
        """
        y_true = core.convert_to_tensor(y_true, dtype=self.dtype)
        y_pred = core.convert_to_tensor(y_pred, dtype=self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(ew.square(ew.subtract(y_pred, y_true)), sample_weight=sample_weight)

    def result(self):
        """The square root of the running mean."""
        return ew.sqrt(super().result())


class CosineSimilarity(MeanMetricWrapper):
    """Running mean of the cosine similarity between labels and predictions.

    Args:
        name: the metric name (default "cosine_similarity").
        dtype: the state dtype.
        axis: the feature axis (default -1).

    Example:
        >>> m = keras.metrics.CosineSimilarity(axis=1)
        >>> m.update_state([[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]])
        >>> round(float(m.result()), 4)
        0.5
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

    def get_config(self):
        # Keras 3.15.1 leaves `axis` out (a reloaded metric uses axis=-1).
        return {"name": self.name, "dtype": self.dtype}


def _nan_divide(x, y):
    """`x / y` with IEEE results (inf, nan) for zero `y`, but without numpy warnings."""
    zero = ew.equal(y, 0)
    quotient = ew.divide(x, ew.where(zero, 1.0, y))
    at_zero = ew.where(ew.greater(x, 0), float("inf"),
                       ew.where(ew.less(x, 0), float("-inf"), float("nan")))
    return ew.where(zero, at_zero, quotient)


class R2Score(Metric):
    """Coefficient of determination `1 - SS_res / SS_tot` (optionally adjusted).

    Args:
        class_aggregation: None (one score per output), "uniform_average"
            (default) or "variance_weighted_average".
        num_regressors: number of regressors for the adjusted R2 (0: plain R2).
        name: the metric name (default "r2_score").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.R2Score()
        >>> m.update_state(np.array([[1], [4], [3]], "float32"), np.array([[2], [4], [4]], "float32"))
        >>> round(float(m.result()), 4)
        0.5714
    """

    _AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score",
                 dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if class_aggregation not in self._AGGREGATIONS:
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of "
                             f"{self._AGGREGATIONS}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim). "
                             f"Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        num_classes = y_pred_shape[-1]
        self.squared_sum = self.add_variable((num_classes,), "zeros", name="squared_sum")
        self.sum = self.add_variable((num_classes,), "zeros", name="sum")
        self.total_mse = self.add_variable((num_classes,), "zeros", name="residual")
        self.count = self.add_variable((num_classes,), "zeros", name="count")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulates the sums behind R2 for a batch.

        Args:
            y_true: targets, shape `(batch, outputs)`.
            y_pred: predictions, same shape.
            sample_weight: optional per-sample (or per-entry) weights.
        """
        y_true = core.convert_to_tensor(y_true, dtype=self.dtype)
        y_pred = core.convert_to_tensor(y_pred, dtype=self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        weight = core.convert_to_tensor(1.0 if sample_weight is None else sample_weight,
                                        dtype=self.dtype)
        if weight.ndim == 1:
            weight = shape_ops.expand_dims(weight, 1)
        weight = shape_ops.broadcast_to(weight, y_true.shape)
        weighted_y_true = ew.multiply(y_true, weight)
        self.sum.assign_add(reduction.sum(weighted_y_true, axis=0))
        self.squared_sum.assign_add(reduction.sum(ew.multiply(y_true, weighted_y_true), axis=0))
        # Keras's `(y_true - y_pred) ** 2`: TensorFlow's Pow eagerly, a square in `fit`
        residuals = ew.multiply(ew.power(ew.subtract(y_true, y_pred), 2), weight)
        self.total_mse.assign_add(reduction.sum(residuals, axis=0))
        self.count.assign_add(reduction.sum(weight, axis=0))
        self.num_samples.assign_add(float(y_true.size))

    def result(self):
        """The (aggregated) R2 score."""
        mean = _nan_divide(self.sum, self.count)
        total = ew.subtract(self.squared_sum, ew.multiply(self.sum, mean))
        raw = ew.subtract(1.0, _nan_divide(self.total_mse, total))
        raw = ew.where(ew.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = reduction.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = ew.divide(reduction.sum(ew.multiply(total, raw)), reduction.sum(total))
        else:
            score = raw
        return self._adjust(score) if self.num_regressors else score

    def _adjust(self, score):
        n = float(self.num_samples)  # a host read, only for the adjusted score
        p = float(self.num_regressors)
        if p > n - 1:
            warnings.warn("More independent predictors than datapoints in adjusted R2 score. "
                          "Falling back to standard R2 score.", stacklevel=3)
            return score
        if p == n - 1:
            warnings.warn("Division by zero in Adjusted R2 score. "
                          "Falling back to standard R2 score.", stacklevel=3)
            return score
        return ew.subtract(1.0, ew.divide(ew.multiply(ew.subtract(1.0, score), n - 1.0),
                                          n - p - 1.0))

    def reset_state(self):
        for variable in self.variables:
            variable.assign(0)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype,
                "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}

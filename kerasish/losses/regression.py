"""Regression losses: squared, absolute, percentage, log errors, Huber, log-cosh, cosine.

Each function returns per-sample values (the last axis averaged or summed
away); the classes wrap them with `LossFunctionWrapper` for weighting and
reduction.
"""
import math

from kerasish.backend import config
from kerasish.losses.loss import LossFunctionWrapper, squeeze_or_expand_to_same_rank
from kerasish.ops import core, elementwise as ew, nn, reduction


def _prepare(y_true, y_pred):
    """Tensors with y_true in y_pred's dtype and ranks matched (Keras's prologue)."""
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    """Mean squared error over the last axis: `mean(square(y_true - y_pred), axis=-1)`.

    Args:
        y_true: targets, shape `(batch, ..., d)`.
        y_pred: predictions, same shape.

    Returns:
        Tensor of shape `(batch, ...)`.

    Example:
        >>> keras.losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])   # [0.5]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction.mean(ew.square(ew.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """Mean absolute error over the last axis: `mean(abs(y_true - y_pred), axis=-1)`.

    Args:
        y_true: targets.
        y_pred: predictions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.mean_absolute_error([[0.0, 1.0]], [[1.0, 1.0]])   # [0.5]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction.mean(ew.absolute(ew.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """`100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)`.

    Args:
        y_true: targets.
        y_pred: predictions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 4.0]])  # [25.]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    # as Keras: epsilon in y_pred's dtype (0 for ints) and the `/` operator (int / int is
    # float64), so integer inputs give inf / nan as in Keras
    epsilon = core.convert_to_tensor(config.epsilon(), dtype=y_pred.dtype)
    diff = ew.absolute((y_true - y_pred) / ew.maximum(ew.absolute(y_true), epsilon))
    return ew.multiply(reduction.mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """`mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)`.

    Args:
        y_true: targets (values <= 0 are replaced with epsilon).
        y_pred: predictions (likewise).

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.mean_squared_logarithmic_error([[0.0, 1.0]], [[1.0, 1.0]])  # [0.2402]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    eps = config.epsilon()
    first = ew.log(ew.add(ew.maximum(y_pred, eps), 1.0))
    second = ew.log(ew.add(ew.maximum(y_true, eps), 1.0))
    return reduction.mean(ew.square(ew.subtract(first, second)), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Negative cosine similarity: `-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`.

    Values lie in [-1, 1]; -1 means the vectors point the same way, so
    minimising it maximises similarity. A zero vector gives 0.

    Args:
        y_true: targets.
        y_pred: predictions.
        axis: the feature axis.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.losses.cosine_similarity([[0.0, 1.0]], [[0.0, 2.0]])   # [-1.]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    y_true = nn.normalize(y_true, axis=axis)
    y_pred = nn.normalize(y_pred, axis=axis)
    return ew.negative(reduction.sum(ew.multiply(y_true, y_pred), axis=axis))


def huber(y_true, y_pred, delta=1.0):
    """Huber loss: quadratic for |error| <= delta, linear beyond, averaged over the last axis.

    Args:
        y_true: targets.
        y_pred: predictions.
        delta: where the loss turns from quadratic to linear.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.huber([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])   # [0.18, 0.13]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    # delta and 1/2 in y_pred's dtype, as Keras (integer inputs truncate them)
    delta = core.convert_to_tensor(delta, dtype=y_pred.dtype)
    error = ew.subtract(y_pred, y_true)
    abs_error = ew.absolute(error)
    half = core.convert_to_tensor(0.5, dtype=abs_error.dtype)
    quadratic = ew.multiply(half, ew.square(error))
    linear = ew.subtract(ew.multiply(delta, abs_error), ew.multiply(half, ew.square(delta)))
    return reduction.mean(ew.where(ew.less_equal(abs_error, delta), quadratic, linear), axis=-1)


def log_cosh(y_true, y_pred):
    """`mean(log(cosh(y_pred - y_true)), axis=-1)`, computed without overflow.

    Args:
        y_true: targets.
        y_pred: predictions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.log_cosh([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]])  # [0.2169, 0.]
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    x = ew.subtract(y_pred, y_true)
    values = ew.subtract(ew.add(x, nn.softplus(ew.multiply(x, -2.0))), math.log(2.0))
    return reduction.mean(values, axis=-1)


class MeanSquaredError(LossFunctionWrapper):
    """Mean of squared errors: `loss = mean(square(y_true - y_pred))`.

    Args:
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        dtype: computation dtype (default floatx).

    Example:
        >>> float(keras.losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]))
        0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors: `loss = mean(abs(y_true - y_pred))`.

    Args:
        reduction: as for `MeanSquaredError`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> float(keras.losses.MeanAbsoluteError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]))
        0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """`loss = 100 * mean(abs((y_true - y_pred) / y_true))` (denominator floored at epsilon).

    Args:
        reduction: as for `MeanSquaredError`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> float(keras.losses.MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 4.0]]))
        25.0
    """

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction,
                         dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """`loss = mean(square(log(y_true + 1) - log(y_pred + 1)))`.

    Args:
        reduction: as for `MeanSquaredError`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.MeanSquaredLogarithmicError()
        >>> round(float(loss([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])), 4)
        0.2402
    """

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction,
                         dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity between targets and predictions.

    Args:
        axis: the feature axis (default -1).
        reduction: as for `MeanSquaredError`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.CosineSimilarity(axis=1)
        >>> round(float(loss([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])), 4)
        -0.5
    """

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(cosine_similarity, name=name, reduction=reduction, dtype=dtype,
                         axis=axis)
        self.axis = axis

    def get_config(self):
        # Keras 3.15.1 leaves `axis` out (a reloaded loss uses axis=-1).
        return {"name": self.name, "reduction": self.reduction}


class Huber(LossFunctionWrapper):
    """Huber loss: `0.5 * x**2` for `|x| <= delta`, else `delta * |x| - 0.5 * delta**2`.

    Args:
        delta: where the loss turns from quadratic to linear (default 1.0).
        reduction: as for `MeanSquaredError`.
        name: the loss name (default "huber_loss").
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.Huber()([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        0.155
    """

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=delta)
        self.delta = delta

    def get_config(self):
        # Keras 3.15.1 leaves `delta` out (a reloaded loss uses delta=1.0).
        return {"name": self.name, "reduction": self.reduction}


class LogCosh(LossFunctionWrapper):
    """Logarithm of the hyperbolic cosine of the prediction error.

    Args:
        reduction: as for `MeanSquaredError`.
        name: the loss name (default "log_cosh").
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.LogCosh()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]])), 3)
        0.108
    """

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

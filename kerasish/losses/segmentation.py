"""Overlap losses for segmentation masks: Dice and Tversky."""
from kerasish.backend import config
from kerasish.losses.loss import LossFunctionWrapper
from kerasish.ops import core, elementwise as ew, reduction


def dice(y_true, y_pred, axis=None):
    """Dice loss `1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps)`.

    Args:
        y_true: target masks.
        y_pred: predicted masks.
        axis: axes summed over (None: all, giving a scalar).

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.losses.dice([[1.0, 0.0]], [[1.0, 1.0]])   # 0.3333
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, y_pred.dtype)
    intersection = reduction.sum(ew.multiply(y_true, y_pred), axis=axis)
    total = ew.add(ew.add(reduction.sum(y_true, axis=axis), reduction.sum(y_pred, axis=axis)),
                   config.epsilon())
    return ew.subtract(1.0, ew.divide(ew.multiply(intersection, 2.0), total))


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """Tversky loss `1 - TP / (TP + alpha * FP + beta * FN + eps)` on soft masks.

    Following Keras, `FP = sum((1 - y_pred) * y_true)` and
    `FN = sum(y_pred * (1 - y_true))`; alpha = beta = 0.5 gives the Dice loss.

    Args:
        y_true: target masks.
        y_pred: predicted masks.
        alpha: weight of the `FP` term.
        beta: weight of the `FN` term.
        axis: axes summed over (None: all).

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.losses.tversky([[1.0, 0.0]], [[1.0, 1.0]])   # 0.3333
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, y_pred.dtype)
    intersection = reduction.sum(ew.multiply(y_true, y_pred), axis=axis)
    fp = reduction.sum(ew.multiply(ew.subtract(1.0, y_pred), y_true), axis=axis)
    fn = reduction.sum(ew.multiply(y_pred, ew.subtract(1.0, y_true)), axis=axis)
    denominator = ew.add(ew.add(ew.add(intersection, ew.multiply(fp, alpha)),
                                ew.multiply(fn, beta)), config.epsilon())
    return ew.subtract(1.0, ew.divide(intersection, denominator))


class Dice(LossFunctionWrapper):
    """Dice loss between target and predicted masks.

    Args:
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        axis: axes summed over (None: all).
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.Dice(axis=(1,), reduction=None)
        >>> loss([[1.0, 0.0]], [[1.0, 1.0]])   # [0.3333]
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "axis": self.axis}


class Tversky(LossFunctionWrapper):
    """Tversky loss, weighting false positives by `alpha` and false negatives by `beta`.

    Args:
        alpha: false-positive weight (default 0.5).
        beta: false-negative weight (default 0.5).
        reduction: as for `Dice`.
        name: the loss name.
        axis: axes summed over (None: all).
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.Tversky()([[1.0, 0.0]], [[1.0, 1.0]])), 4)
        0.3333
    """

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, name=name, reduction=reduction, dtype=dtype, alpha=alpha,
                         beta=beta, axis=axis)
        self.alpha = alpha
        self.beta = beta
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "alpha": self.alpha,
                "beta": self.beta, "axis": self.axis}

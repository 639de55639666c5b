"""Hinge losses for maximum-margin classifiers: hinge, squared hinge, categorical hinge."""
from kerasish.losses.loss import LossFunctionWrapper
from kerasish.ops import core, elementwise as ew, reduction


def convert_binary_labels_to_hinge(y_true):
    """Maps 0/1 labels to -1/1; labels that are not all 0/1 pass unchanged.

    The choice is made on the device (no transfer to the host).

    Args:
        y_true: float labels.

    Returns:
        Tensor of the same shape.

    Example:
        >>> convert_binary_labels_to_hinge(ops.convert_to_tensor([0.0, 1.0]))   # [-1., 1.]
    """
    is_binary = reduction.all(ew.logical_or(ew.equal(y_true, 0), ew.equal(y_true, 1)))
    return ew.where(is_binary, ew.subtract(ew.multiply(y_true, 2.0), 1.0), y_true)


def _margins(y_true, y_pred):
    y_pred = core.convert_to_tensor(y_pred)
    y_true = convert_binary_labels_to_hinge(core.cast(y_true, y_pred.dtype))
    return ew.maximum(ew.subtract(1.0, ew.multiply(y_true, y_pred)), 0.0)


def hinge(y_true, y_pred):
    """`mean(maximum(1 - y_true * y_pred, 0), axis=-1)`; 0/1 labels become -1/1.

    Args:
        y_true: -1/1 (or 0/1) targets.
        y_pred: predictions (scores).

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.hinge([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])   # [1.1, 1.5]
    """
    return reduction.mean(_margins(y_true, y_pred), axis=-1)


def squared_hinge(y_true, y_pred):
    """`mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`; 0/1 labels become -1/1.

    Args:
        y_true: -1/1 (or 0/1) targets.
        y_pred: predictions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.squared_hinge([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])  # [1.46, 2.26]
    """
    return reduction.mean(ew.square(_margins(y_true, y_pred)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """`maximum(neg - pos + 1, 0)` with `pos = sum(y_true * y_pred)` and
    `neg = max((1 - y_true) * y_pred)` over the last axis.

    Args:
        y_true: one-hot targets.
        y_pred: predictions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.categorical_hinge([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])  # [1.2, 1.6]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, y_pred.dtype)
    pos = reduction.sum(ew.multiply(y_true, y_pred), axis=-1)
    neg = reduction.max(ew.multiply(ew.subtract(1.0, y_true), y_pred), axis=-1)
    return ew.maximum(ew.add(ew.subtract(neg, pos), 1.0), 0.0)


class Hinge(LossFunctionWrapper):
    """Hinge loss: `loss = maximum(1 - y_true * y_pred, 0)`, targets -1/1 (0/1 converted).

    Args:
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.Hinge()([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        1.3
    """

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss: `loss = square(maximum(1 - y_true * y_pred, 0))`.

    Args:
        reduction: as for `Hinge`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.SquaredHinge()([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        1.86
    """

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class CategoricalHinge(LossFunctionWrapper):
    """Categorical hinge loss: `loss = maximum(neg - pos + 1, 0)`.

    Args:
        reduction: as for `Hinge`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.CategoricalHinge()
        >>> round(float(loss([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        1.4
    """

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

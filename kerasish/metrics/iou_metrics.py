"""Intersection-over-union metrics: IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU.

All accumulate one confusion matrix (rows: true class, columns: predicted
class) and report the mean over the chosen classes of
`tp / (true count + predicted count - tp)`, skipping classes that never
occur. As in Keras, the state is int64 unless a float `dtype` is given
(float sample weights are then truncated, with a warning), labels outside
`[0, num_classes)` and the `ignore_class` are skipped, and divisions add
`backend.epsilon()`.
"""
import warnings

import numpy as np

from kerasish.backend import config
from kerasish.metrics.metric import Metric
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops.integer_ops import bincount
from kerasish.ops.matrix import diagonal
from kerasish.ops.reduction import argmax


class _IoUBase(Metric):
    """The confusion-matrix state and update shared by the IoU metrics."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int64")
        if not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
            raise ValueError(f"{type(self).__name__}: `num_classes` must be a positive integer. "
                             f"Received: num_classes={num_classes!r}")
        self._direction = "up"
        self.num_classes = int(num_classes)
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable((num_classes, num_classes), "zeros",
                                          name="total_confusion_matrix")

    def _labels(self, values, sparse):
        values = core.convert_to_tensor(values)
        if not sparse:
            values = argmax(values, axis=self.axis)
        return shape_ops.reshape(values, (-1,))

    def _weights(self, sample_weight, size):
        if sample_weight is None:
            return np.ones(size)
        # Keras warns only for weights that carry a float dtype (arrays, tensors), not for
        # Python lists, which it casts silently.
        typed_float = "float" in str(getattr(sample_weight, "dtype", ""))
        weights = np.asarray(core.convert_to_numpy(sample_weight))
        weights = np.broadcast_to(weights.reshape(-1) if weights.size == size else weights, (size,))
        if typed_float and not self._float_state():
            warnings.warn("You are passing weight as `float`, but dtype is `int`. This may "
                          "result in an incorrect weight due to type casting Consider using "
                          "integer weights.", stacklevel=3)
        if weights.dtype.kind == "f" and not self._float_state():
            weights = weights.astype("int64")
        return weights.astype("float64")

    def _float_state(self):
        return self.total_cm.dtype.startswith(("float", "bfloat"))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Adds a batch to the confusion matrix.

        Args:
            y_true: class ids (or one-hot rows when `sparse_y_true=False`).
            y_pred: class ids (or scores when `sparse_y_pred=False`).
            sample_weight: optional weights broadcastable to the labels.

        Returns:
            The confusion-matrix variable, as Keras returns it.
        """
        true = self._labels(y_true, self.sparse_y_true)
        pred = self._labels(self._predictions(y_pred), self.sparse_y_pred)
        if true.shape != pred.shape:
            raise ValueError(f"{type(self).__name__}: `y_true` and `y_pred` must have the same "
                             f"number of labels. Received: {true.shape[0]} and {pred.shape[0]}")
        true_ids = np.asarray(core.convert_to_numpy(true)).astype("int64")
        pred_ids = np.asarray(core.convert_to_numpy(pred)).astype("int64")
        weights = self._weights(sample_weight, true_ids.shape[0])
        keep = (true_ids >= 0) & (true_ids < self.num_classes) & \
               (pred_ids >= 0) & (pred_ids < self.num_classes)
        if self.ignore_class is not None:
            keep &= true_ids != self.ignore_class
        flat = true_ids[keep] * self.num_classes + pred_ids[keep]
        counts = bincount(core.convert_to_tensor(flat), weights=weights[keep],
                          minlength=self.num_classes ** 2)
        batch_cm = shape_ops.reshape(core.cast(counts, self.total_cm.dtype),
                                     (self.num_classes, self.num_classes))
        self.total_cm.assign_add(batch_cm)
        return self.total_cm

    def _predictions(self, y_pred):
        return y_pred

    def reset_state(self):
        self.total_cm.assign(np.zeros((self.num_classes, self.num_classes)))

    def _iou_of(self, target_class_ids):
        cm = core.cast(self.total_cm, config.floatx())
        predicted = reduction.sum(cm, axis=0)
        actual = reduction.sum(cm, axis=1)
        tp = diagonal(cm)
        denominator = ew.subtract(ew.add(predicted, actual), tp)
        ids = np.asarray(target_class_ids, dtype="int32")
        tp = shape_ops.take(tp, ids)
        denominator = shape_ops.take(denominator, ids)
        valid = reduction.sum(core.cast(ew.not_equal(denominator, 0), config.floatx()))
        eps = config.epsilon()
        iou = ew.divide(tp, ew.add(denominator, eps))
        return ew.divide(reduction.sum(iou), ew.add(valid, eps))


class IoU(_IoUBase):
    """Mean intersection-over-union over `target_class_ids`.

    Args:
        num_classes: the number of classes.
        target_class_ids: the class ids whose IoU is averaged.
        name: the metric name.
        dtype: the confusion-matrix dtype (default int64).
        ignore_class: a class id to skip in `y_true` (e.g. a void label).
        sparse_y_true: `y_true` holds class ids (False: one-hot rows, argmax taken).
        sparse_y_pred: `y_pred` holds class ids (False: scores, argmax taken).
        axis: the class axis for the argmax.

    Example:
        >>> m = keras.metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> float(m([0, 0, 1, 1], [0, 1, 0, 1]))   # 1 / (2 + 2 - 1)
        0.333...
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(
                f"Target class id {max(target_class_ids)} is out of range, which is "
                f"[0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        """The mean IoU over the target classes that occur (0 when none does)."""
        return self._iou_of(self.target_class_ids)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class BinaryIoU(IoU):
    """IoU for binary labels; predictions `>= threshold` count as class 1.

    Args:
        target_class_ids: which of the classes 0 and 1 to average (default both).
        threshold: the decision threshold on `y_pred`.
        name: the metric name.
        dtype: the confusion-matrix dtype (default int64).

    Example:
        >>> m = keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.5)
        >>> float(m([0, 1, 1, 0], [0.5, 0.5, 0.7, 0.2]))   # (1/3 + 2/3) / 2
        0.583...
    """

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name,
                         dtype=dtype)
        self.threshold = threshold

    def _predictions(self, y_pred):
        y_pred = core.convert_to_tensor(y_pred)
        return core.cast(ew.greater_equal(y_pred, self.threshold), "int32")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Thresholds `y_pred`, casts `y_true` to ids and adds the batch."""
        y_true = core.cast(core.convert_to_tensor(y_true), "int32")
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


class MeanIoU(IoU):
    """IoU averaged over all `num_classes` classes.

    Args:
        num_classes: the number of classes.
        name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis: as in `IoU`.

    Example:
        >>> m = keras.metrics.MeanIoU(num_classes=2)
        >>> float(m([0, 0, 1, 1], [0, 1, 0, 1]))
        0.333...
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotIoU(IoU):
    """IoU for one-hot `y_true` and score `y_pred` (argmax of both taken).

    Args:
        num_classes, target_class_ids, name, dtype, ignore_class: as in `IoU`.
        sparse_y_pred: `y_pred` holds class ids already (default False).
        axis: the class axis.

    Example:
        >>> m = keras.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
        >>> m.update_state([[0, 0, 1], [1, 0, 0]], [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7]])
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """MeanIoU for one-hot `y_true` and score `y_pred` (argmax of both taken).

    Args:
        num_classes, name, dtype, ignore_class: as in `MeanIoU`.
        sparse_y_pred: `y_pred` holds class ids already (default False).
        axis: the class axis.

    Example:
        >>> m = keras.metrics.OneHotMeanIoU(num_classes=3)
        >>> m.update_state([[0, 0, 1], [1, 0, 0]], [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7]])
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}

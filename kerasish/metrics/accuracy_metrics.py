"""Accuracy metrics: exact, binary, categorical, sparse categorical and top-k."""
from kerasish.backend import config
from kerasish.losses.loss import squeeze_or_expand_to_same_rank
from kerasish.metrics.reduction_metrics import MeanMetricWrapper
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction


def _matches(a, b):
    return core.cast(ew.equal(a, b), config.floatx())


def accuracy(y_true, y_pred):
    """Elementwise 1.0 where `y_pred` equals `y_true` exactly, else 0.0.

    Args:
        y_true: targets.
        y_pred: predictions.

    Returns:
        Tensor of 0/1 matches (ranks matched by Keras's squeeze/expand rule).

    Example:
        >>> accuracy([[1], [2]], [[1], [3]])   # [[1.], [0.]]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _matches(y_true, y_pred)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Elementwise 1.0 where `y_pred > threshold` matches the 0/1 target, else 0.0.

    Args:
        y_true: 0/1 targets.
        y_pred: probabilities.
        threshold: the decision threshold.

    Returns:
        Tensor of 0/1 matches (ranks matched by Keras's squeeze/expand rule).

    Example:
        >>> keras.metrics.binary_accuracy([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
        >>> # [[1.], [1.], [1.], [0.]]
    """
    y_true = core.convert_to_tensor(y_true)
    y_pred = core.convert_to_tensor(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = core.cast(ew.greater(y_pred, threshold), y_true.dtype)
    return _matches(y_true, y_pred)


def categorical_accuracy(y_true, y_pred):
    """Whether `argmax(y_pred)` equals `argmax(y_true)` (one-hot targets).

    Args:
        y_true: one-hot targets, shape `(batch, ..., num_classes)`.
        y_pred: scores (probabilities or logits), same shape.

    Returns:
        Tensor of 0/1 matches with the class axis removed.

    Example:
        >>> keras.metrics.categorical_accuracy([[0, 0, 1], [0, 1, 0]],
        ...                                    [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])   # [0., 1.]
    """
    y_true = reduction.argmax(y_true, axis=-1)
    y_pred = core.convert_to_tensor(y_pred)
    original_shape = y_true.shape
    reshape_matches = False
    if y_true.ndim == y_pred.ndim:
        y_true = shape_ops.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = core.cast(reduction.argmax(y_pred, axis=-1), y_true.dtype)
    matches = _matches(y_true, y_pred)
    return shape_ops.reshape(matches, original_shape) if reshape_matches else matches


def sparse_categorical_accuracy(y_true, y_pred):
    """Whether `argmax(y_pred)` equals the integer label.

    Args:
        y_true: integer labels, shape `(batch, ...)` or `(batch, ..., 1)`.
        y_pred: scores, shape `(batch, ..., num_classes)`.

    Returns:
        Tensor of 0/1 matches, shape `(batch, ...)`.

    Example:
        >>> keras.metrics.sparse_categorical_accuracy([[2], [1]],
        ...                                           [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])  # [0., 1.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true)
    original_shape = y_true.shape
    reshape_matches = False
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = shape_ops.squeeze(y_true, -1)
        reshape_matches = True
    y_pred = core.cast(reduction.argmax(y_pred, axis=-1), y_true.dtype)
    matches = _matches(y_true, y_pred)
    if reshape_matches:
        matches = shape_ops.reshape(matches, original_shape)
    if matches.ndim > 1 and matches.shape[-1] == 1:
        matches = shape_ops.squeeze(matches, -1)
    return matches


def in_top_k(targets, predictions, k):
    """Whether each target's score is among the `k` largest of its row (ties count).

    Matches `keras.ops.in_top_k`: the target is in the top k when fewer than
    `k` scores are strictly larger than its own.

    Args:
        targets: integer labels, shape `(batch,)`.
        predictions: scores, shape `(batch, num_classes)`.
        k: how many top scores to accept.

    Returns:
        Boolean tensor of shape `(batch,)`.

    Example:
        >>> in_top_k(ops.convert_to_tensor([2]), ops.convert_to_tensor([[0.1, 0.9, 0.8]]), 2)  # [True]
    """
    labels = shape_ops.expand_dims(core.cast(targets, "int32"), -1)
    target_scores = shape_ops.take_along_axis(predictions, labels, axis=-1)
    larger = reduction.sum(core.cast(ew.greater(predictions, target_scores), "int32"), axis=-1)
    return ew.less(larger, k)


def _top_k_matches(labels, y_pred, k):
    original_shape = labels.shape
    if y_pred.ndim > 2:
        y_pred = shape_ops.reshape(y_pred, (-1, y_pred.shape[-1]))
    reshaped = labels.ndim > 1
    if reshaped:
        labels = shape_ops.reshape(labels, (-1,))
    matches = core.cast(in_top_k(labels, y_pred, k), config.floatx())
    return shape_ops.reshape(matches, original_shape) if reshaped else matches


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """Whether the one-hot target is among the `k` highest scores.

    Args:
        y_true: one-hot targets.
        y_pred: scores.
        k: number of top scores considered.

    Returns:
        Tensor of 0/1 matches with the class axis removed.

    Example:
        >>> keras.metrics.top_k_categorical_accuracy([[0, 0, 1], [0, 1, 0]],
        ...     [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], k=1)   # [0., 1.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    labels = reduction.argmax(y_true, axis=-1)
    return _top_k_matches(labels, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """Whether the integer target is among the `k` highest scores.

    Args:
        y_true: integer labels.
        y_pred: scores, shape `(batch, num_classes)`; with `from_sorted_ids`,
            class ids sorted by decreasing score, shape `(batch, n >= k)`.
        k: number of top scores considered.
        from_sorted_ids: whether `y_pred` already holds the sorted top ids.

    Returns:
        Tensor of 0/1 matches shaped like `y_true`.

    Example:
        >>> keras.metrics.sparse_top_k_categorical_accuracy([2, 1],
        ...     [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], k=1)   # [0., 1.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    labels = core.convert_to_tensor(y_true)
    if from_sorted_ids:
        return _sorted_ids_matches(labels, y_pred, k)
    return _top_k_matches(labels, y_pred, k)


def _sorted_ids_matches(labels, top_ids, k):
    original_shape = labels.shape
    labels = shape_ops.reshape(core.cast(labels, "int32"), (-1, 1))
    top_ids = core.cast(shape_ops.reshape(top_ids, (-1, top_ids.shape[-1]))[:, :k], "int32")
    matches = core.cast(reduction.any(ew.equal(top_ids, labels), axis=-1), config.floatx())
    return shape_ops.reshape(matches, original_shape)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly.

    Args:
        name: the metric name (default "accuracy").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Accuracy()
        >>> m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
        >>> float(m.result())
        0.75
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(fn=accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    """How often `y_pred > threshold` matches binary labels.

    Args:
        name: the metric name (default "binary_accuracy").
        dtype: the state dtype.
        threshold: decision threshold (default 0.5; any value, as Keras).

    Example:
        >>> m = keras.metrics.BinaryAccuracy()
        >>> m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
        >>> float(m.result())
        0.75
    """

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        # (Keras 3.15.1 takes any threshold: no (0, 1) check)
        super().__init__(fn=binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    """How often `argmax(y_pred)` matches one-hot labels.

    Args:
        name: the metric name (default "categorical_accuracy").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.CategoricalAccuracy()
        >>> m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(fn=categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often `argmax(y_pred)` matches integer labels.

    Args:
        name: the metric name (default "sparse_categorical_accuracy").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.SparseCategoricalAccuracy()
        >>> m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(fn=sparse_categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often one-hot targets are among the top `k` predictions.

    Args:
        k: number of top predictions considered (default 5).
        name: the metric name.
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.TopKCategoricalAccuracy(k=1)
        >>> m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(fn=top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often integer targets are among the top `k` predictions.

    Args:
        k: number of top predictions considered (default 5).
        name: the metric name.
        dtype: the state dtype.
        from_sorted_ids: `y_pred` holds class ids sorted by decreasing score.

    Example:
        >>> m = keras.metrics.SparseTopKCategoricalAccuracy(k=1)
        >>> m.update_state([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None,
                 from_sorted_ids=False):
        super().__init__(fn=sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)
        self.k = k
        self.from_sorted_ids = from_sorted_ids
        self._direction = "up"

    def get_config(self):
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config

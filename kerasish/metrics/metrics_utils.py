"""Confusion-matrix bookkeeping shared by TruePositives, Precision, Recall, AUC, ...

For each threshold `t` a prediction counts as positive when `y_pred > t`.
Evenly spaced thresholds (AUC's) use Keras's bucketed algorithm: each
prediction falls in one bucket (`ceil(p * (T - 1)) - 1`), bucket sums are
scatter-added and a reversed cumulative sum gives the counts at every
threshold, in O(N + T). Other thresholds compare every prediction with every
threshold. All arithmetic stays on the device.
"""
import numpy as np

from kerasish.backend import config
from kerasish.losses.loss import squeeze_or_expand_to_same_rank
from kerasish.ops import core, creation, elementwise as ew, manipulation as shape_ops, nn, reduction

NEG_INF = -1e10
CONFUSION_KEYS = ("tp", "fp", "tn", "fn")


def to_list(x):
    """`x` as a list (lists/tuples/arrays unpacked, scalars wrapped)."""
    if isinstance(x, (list, tuple)):
        return list(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return [x]


def parse_init_thresholds(thresholds, default_threshold=0.5):
    """Validates thresholds (each in [0, 1]) and returns them as a list.

    Args:
        thresholds: None, a float, or a list/tuple of floats.
        default_threshold: used when `thresholds` is None.

    Returns:
        list of floats.

    Example:
        >>> parse_init_thresholds(None)
        [0.5]
    """
    if thresholds is not None:
        invalid = [t for t in to_list(thresholds) if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return to_list(default_threshold if thresholds is None else thresholds)


def is_evenly_distributed_thresholds(thresholds):
    """True when `thresholds` are `[0, 1/(n-1), ..., 1]` (n >= 3) up to epsilon.

    Args:
        thresholds: a list or 1-D numpy array (host values).

    Returns:
        bool.
    """
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=config.epsilon()))


def filter_top_k(x, k):
    """Keeps the `k` largest values on the last axis and sets the others to `NEG_INF`.

    Ties go to the lower index, like `top_k`.

    Args:
        x: tensor of scores.
        k: how many to keep.

    Returns:
        Tensor shaped like `x`.
    """
    xi = shape_ops.expand_dims(x, -1)
    xj = shape_ops.expand_dims(x, -2)
    n = x.shape[-1]
    index = creation.arange(n, dtype="int32")
    earlier = ew.less(shape_ops.reshape(index, (1, n)), shape_ops.reshape(index, (n, 1)))
    ahead = ew.logical_or(ew.greater(xj, xi), ew.logical_and(ew.equal(xj, xi), earlier))
    rank = reduction.sum(core.cast(ahead, "int32"), axis=-1)
    keep = core.cast(ew.less(rank, k), x.dtype)
    return ew.add(ew.multiply(x, keep), ew.multiply(ew.subtract(1.0, keep), NEG_INF))


def _check_variables(variables):
    unknown = [key for key in variables if key not in CONFUSION_KEYS]
    if unknown or not variables:
        raise ValueError(
            f"Invalid confusion-matrix keys {unknown or list(variables)}. Valid keys are "
            f"{list(CONFUSION_KEYS)}."
        )


def _weights(sample_weight, label_weights, shape, dtype):
    """Per-entry weights broadcast to the predictions' shape (None: all ones)."""
    weights = None
    if sample_weight is not None:
        weights = shape_ops.broadcast_to(core.cast(sample_weight, dtype), shape)
    if label_weights is not None:
        label_weights = core.convert_to_tensor(label_weights, dtype=dtype)
        label_weights = shape_ops.broadcast_to(shape_ops.expand_dims(label_weights, 0), shape)
        weights = label_weights if weights is None else ew.multiply(weights, label_weights)
    return weights


def _reverse_cumsum(x):
    return shape_ops.flip(reduction.cumsum(shape_ops.flip(x, 0), axis=0), 0)


def _bucket_sums(values, buckets, num_thresholds, multi_label):
    """Scatter-adds `values` into `num_thresholds` buckets (negative buckets dropped)."""
    valid = ew.greater_equal(buckets, 0)
    values = ew.where(valid, values, 0.0)
    buckets = ew.where(valid, buckets, 0)
    if not multi_label:
        return shape_ops.scatter(shape_ops.expand_dims(buckets, -1), values, (num_thresholds,))
    num_labels = values.shape[-1]
    labels = shape_ops.broadcast_to(creation.arange(num_labels, dtype="int32"), buckets.shape)
    indices = shape_ops.stack([buckets, labels], axis=-1)
    return shape_ops.scatter(indices, values, (num_thresholds, num_labels))


def _update_bucketed(variables, y_true, y_pred, weights, num_thresholds, multi_label,
                     with_epsilon):
    """Keras's O(N + T) update for evenly spaced thresholds."""
    y_pred = ew.clip(y_pred, 0.0, 1.0)
    if not multi_label:
        y_true, y_pred = shape_ops.reshape(y_true, (-1,)), shape_ops.reshape(y_pred, (-1,))
        weights = None if weights is None else shape_ops.reshape(weights, (-1,))
    true_labels = y_true if weights is None else ew.multiply(y_true, weights)
    false_labels = ew.subtract(1.0, y_true)
    false_labels = false_labels if weights is None else ew.multiply(false_labels, weights)
    buckets = ew.subtract(ew.ceil(ew.multiply(y_pred, float(num_thresholds - 1))), 1.0)
    if with_epsilon:
        buckets = nn.relu(buckets)
    buckets = core.cast(buckets, "int32")
    tp = _reverse_cumsum(_bucket_sums(true_labels, buckets, num_thresholds, multi_label))
    fp = _reverse_cumsum(_bucket_sums(false_labels, buckets, num_thresholds, multi_label))
    axis = 0 if multi_label else None
    counts = {"tp": tp, "fp": fp}
    if "fn" in variables:
        counts["fn"] = ew.subtract(reduction.sum(true_labels, axis=axis), tp)
    if "tn" in variables:
        counts["tn"] = ew.subtract(reduction.sum(false_labels, axis=axis), fp)
    for key, variable in variables.items():
        variable.assign_add(counts[key])


def _update_thresholded(variables, y_true, y_pred, weights, thresholds, multi_label):
    """Compares every prediction with every threshold (any thresholds)."""
    if multi_label:
        preds = shape_ops.expand_dims(y_pred, 0)
        labels = shape_ops.expand_dims(core.cast(y_true, "bool"), 0)
        thresholds = shape_ops.reshape(thresholds, (-1, 1, 1))
        weights = None if weights is None else shape_ops.expand_dims(weights, 0)
    else:
        preds = shape_ops.reshape(y_pred, (1, -1))
        labels = shape_ops.reshape(core.cast(y_true, "bool"), (1, -1))
        thresholds = shape_ops.reshape(thresholds, (-1, 1))
        weights = None if weights is None else shape_ops.reshape(weights, (1, -1))
    pred_pos = ew.greater(preds, thresholds)
    pred_neg = ew.logical_not(pred_pos)
    label_neg = ew.logical_not(labels)
    cases = {"tp": (labels, pred_pos), "fp": (label_neg, pred_pos),
             "tn": (label_neg, pred_neg), "fn": (labels, pred_neg)}
    for key, variable in variables.items():
        label, pred = cases[key]
        hits = core.cast(ew.logical_and(label, pred), variable.dtype)
        if weights is not None:
            hits = ew.multiply(hits, weights)
        variable.assign_add(reduction.sum(hits, axis=1))


def _prepare_weights(sample_weight, y_true, dtype):
    """Keras's rank adjustment: the weights gain a last axis, then follow `y_true`."""
    if sample_weight is None:
        return None
    sample_weight = shape_ops.expand_dims(core.cast(sample_weight, dtype), -1)
    _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    return sample_weight


def update_confusion_matrix_variables(variables, y_true, y_pred, thresholds, top_k=None,
                                      class_id=None, sample_weight=None, multi_label=False,
                                      label_weights=None, thresholds_distributed_evenly=False):
    """Adds the (weighted) confusion counts of a batch to the given variables.

    For every threshold `t`: TP = label and `y_pred > t`, FP = not label and
    `y_pred > t`, TN = not label and `y_pred <= t`, FN = label and `y_pred <= t`.

    Args:
        variables: dict with keys among "tp", "fp", "tn", "fn" mapping to
            Variables of shape `(num_thresholds,)` (or `(num_thresholds,
            num_labels)` with `multi_label`).
        y_true: labels (cast to bool: any nonzero label is positive).
        y_pred: predictions in [0, 1].
        thresholds: list or array of thresholds (host values).
        top_k: keep only the `top_k` largest predictions per row as candidates.
        class_id: restrict to one class (column) of 2-D data.
        sample_weight: optional weights broadcastable to `y_true`.
        multi_label: count each label (column) separately.
        label_weights: optional per-label weights (not with `multi_label`).
        thresholds_distributed_evenly: use the bucketed O(N + T) algorithm.
    """
    if multi_label and label_weights is not None:
        raise ValueError("`label_weights` for multilabel data should be handled outside of "
                         "`update_confusion_matrix_variables` when `multi_label` is True.")
    _check_variables(variables)
    dtype = next(iter(variables.values())).dtype
    y_true = core.cast(core.convert_to_tensor(y_true), dtype)
    y_pred = core.cast(core.convert_to_tensor(y_pred), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    sample_weight = _prepare_weights(sample_weight, y_true, dtype)
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.ndim == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape "
                             f"(num_samples, num_classes), found shape: {y_pred.shape}")
        y_true = y_true[..., class_id:class_id + 1]
        y_pred = y_pred[..., class_id:class_id + 1]
    weights = _weights(sample_weight, label_weights, y_pred.shape, dtype)
    if thresholds_distributed_evenly:
        with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
        y_true = core.cast(core.cast(y_true, "bool"), dtype)
        _update_bucketed(variables, y_true, y_pred, weights, len(thresholds), multi_label,
                         with_epsilon)
        return
    thresholds = core.convert_to_tensor(np.asarray(thresholds), dtype=dtype)
    _update_thresholded(variables, y_true, y_pred, weights, thresholds, multi_label)

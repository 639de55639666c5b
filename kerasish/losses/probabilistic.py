"""Probabilistic losses: cross-entropies (plain and focal), KL divergence, Poisson."""
import warnings

from kerasish.backend import config
from kerasish.losses.loss import LossFunctionWrapper
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, nn, reduction


def _check_axis(axis):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis!r} of type {type(axis)}")


def _warn_single_class(name, y_pred):
    if y_pred.ndim and y_pred.shape[-1] == 1:
        warnings.warn(
            f"In loss {name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.", SyntaxWarning, stacklevel=3)


def _smooth_binary(y_true, label_smoothing):
    if not label_smoothing:
        return y_true
    return ew.add(ew.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)


def _smooth_categorical(y_true, label_smoothing):
    if not label_smoothing:
        return y_true
    num_classes = float(y_true.shape[-1])
    return ew.add(ew.multiply(y_true, 1.0 - label_smoothing), label_smoothing / num_classes)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy, averaged over `axis`.

    Args:
        y_true: 0/1 targets, shape `(batch, ..., d)`.
        y_pred: probabilities (or logits with `from_logits=True`), same shape.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; targets become `y * (1 - s) + 0.5 * s`.
        axis: the axis averaged over.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.losses.binary_crossentropy([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> # [0.916, 0.714]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = _smooth_binary(core.cast(y_true, y_pred.dtype), label_smoothing)
    return reduction.mean(nn.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary focal cross-entropy: `(1 - p_t) ** gamma * bce`, averaged over `axis`.

    Args:
        y_true: 0/1 targets.
        y_pred: probabilities (or logits with `from_logits=True`).
        apply_class_balancing: weight class 1 by `alpha` and class 0 by `1 - alpha`.
        alpha: the class-1 weight when balancing.
        gamma: the focusing exponent (0 gives plain binary cross-entropy).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1], as for `binary_crossentropy`.
        axis: the axis averaged over.

    Returns:
        Tensor with `axis` reduced.

    Example:
        >>> keras.losses.binary_focal_crossentropy([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]],
        ...                                        gamma=2)   # [0.330, 0.206]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = _smooth_binary(core.cast(y_true, y_pred.dtype), label_smoothing)
    if from_logits:
        y_pred = nn.sigmoid(y_pred)
    bce = nn.binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = ew.add(ew.multiply(y_true, y_pred),
                 ew.multiply(ew.subtract(1.0, y_true), ew.subtract(1.0, y_pred)))
    focal = ew.multiply(ew.power(ew.subtract(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        weight = ew.add(ew.multiply(y_true, alpha), ew.multiply(ew.subtract(1.0, y_true), 1.0 - alpha))
        focal = ew.multiply(weight, focal)
    return reduction.mean(focal, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Categorical cross-entropy between one-hot (or soft) targets and predictions.

    Args:
        y_true: one-hot targets, shape `(batch, ..., num_classes)`.
        y_pred: probabilities (renormalised to sum to 1) or logits.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; targets become `y * (1 - s) + s / num_classes`.
        axis: the class axis.

    Returns:
        Tensor with the class axis reduced.

    Example:
        >>> keras.losses.categorical_crossentropy([[0, 1, 0], [0, 0, 1]],
        ...                                       [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])
        >>> # [0.0513, 2.303]
    """
    _check_axis(axis)
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, y_pred.dtype)
    _warn_single_class("categorical_crossentropy", y_pred)
    y_true = _smooth_categorical(y_true, label_smoothing)
    return nn.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Alpha-balanced focal cross-entropy: `sum(alpha * (1 - p) ** gamma * -y * log(p))`.

    Args:
        y_true: one-hot targets.
        y_pred: probabilities or logits.
        alpha: class weight, a float or a list with one float per class.
        gamma: the focusing exponent.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1], as for `categorical_crossentropy`.
        axis: the class axis.

    Returns:
        Tensor with the class axis reduced.

    Example:
        >>> keras.losses.categorical_focal_crossentropy([[0, 1, 0], [0, 0, 1]],
        ...     [[0.05, 0.9, 0.05], [0.1, 0.85, 0.05]])   # [2.634e-04, 6.759e-01]
    """
    _check_axis(axis)
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.cast(y_true, y_pred.dtype)
    _warn_single_class("categorical_focal_crossentropy", y_pred)
    y_true = _smooth_categorical(y_true, label_smoothing)
    if from_logits:
        y_pred = nn.softmax(y_pred, axis=axis)
    eps = config.epsilon()
    output = ew.divide(y_pred, reduction.sum(y_pred, axis=axis, keepdims=True))
    output = ew.clip(output, eps, 1.0 - eps)
    cce = ew.negative(ew.multiply(y_true, ew.log(output)))
    alpha = alpha if isinstance(alpha, (int, float)) else core.convert_to_tensor(alpha, y_pred.dtype)
    weighting = ew.multiply(ew.power(ew.subtract(1.0, output), gamma), alpha)
    return reduction.sum(ew.multiply(weighting, cce), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy with integer labels.

    Args:
        y_true: integer labels, shape `(batch, ...)` or `(batch, ..., 1)`.
        y_pred: probabilities or logits, shape `(batch, ..., num_classes)`.
        from_logits: whether `y_pred` holds logits.
        ignore_class: optional label to skip (e.g. a "void" class such as
            -1 or 255); its entries get loss 0 and a Keras mask, so averaging
            reductions divide by the number of valid entries only.
        axis: the class axis.

    Returns:
        Tensor with the class axis reduced.

    Raises:
        ValueError: when a label is outside `[0, num_classes)`.

    Example:
        >>> keras.losses.sparse_categorical_crossentropy([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])
        >>> # [0.0513, 2.303]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = shape_ops.squeeze(y_true, -1)
    if ignore_class is None:
        return nn.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)
    valid = ew.not_equal(y_true, ignore_class)
    labels = ew.where(valid, y_true, 0)
    # As Keras, the ignored entries' predictions are replaced first, which also makes a
    # softmax's output a plain tensor (scored as probabilities, not from its logits).
    # Keras puts zeros there (0 / 0 for probabilities, masked below); ones give the
    # same losses and gradients without forming a NaN.
    y_pred = ew.where(shape_ops.expand_dims(valid, axis), y_pred, 1.0)
    values = nn.sparse_categorical_crossentropy(labels, y_pred, from_logits=from_logits, axis=axis)
    values = ew.where(valid, values, 0.0)
    values._keras_mask = valid
    return values


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Generalized cross-entropy `(1 - p ** q) / q`, p the probability of the true class.

    Robust to noisy labels: q -> 0 behaves like cross-entropy, q = 1 like MAE.

    Args:
        y_true: integer labels, shape `(batch,)`.
        y_pred: class probabilities, shape `(batch, num_classes)`.
        q: in (0, 1).

    Returns:
        Tensor of shape `(batch,)`.

    Example:
        >>> keras.losses.categorical_generalized_cross_entropy([0, 1], [[0.7, 0.3], [0.2, 0.8]],
        ...                                                    q=0.5)   # [0.3267, 0.2111]
    """
    y_pred = core.convert_to_tensor(y_pred)
    labels = core.cast(core.convert_to_tensor(y_true), "int32")
    one_hot = shape_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = reduction.sum(ew.multiply(y_pred, one_hot), axis=-1)
    return ew.divide(ew.subtract(1.0, ew.power(p, q)), q)


def kl_divergence(y_true, y_pred):
    """Kullback-Leibler divergence `sum(y_true * log(y_true / y_pred), axis=-1)`.

    Both inputs are clipped to `[epsilon, 1]`.

    Args:
        y_true: target distributions.
        y_pred: predicted distributions.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.kl_divergence([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])   # [0.916, 0.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    eps = config.epsilon()
    y_true = ew.clip(y_true, eps, 1.0)
    y_pred = ew.clip(y_pred, eps, 1.0)
    return reduction.sum(ew.multiply(y_true, ew.log(ew.divide(y_true, y_pred))), axis=-1)


def poisson(y_true, y_pred):
    """Poisson loss `mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)`.

    Args:
        y_true: observed counts.
        y_pred: predicted rates.

    Returns:
        Tensor with the last axis reduced.

    Example:
        >>> keras.losses.poisson([[0, 1], [0, 0]], [[1, 1], [0, 0]])   # [1., 0.]
    """
    y_pred = core.convert_to_tensor(y_pred)
    y_true = core.convert_to_tensor(y_true, dtype=y_pred.dtype)
    log_pred = ew.log(ew.add(y_pred, config.epsilon()))
    return reduction.mean(ew.subtract(y_pred, ew.multiply(y_true, log_pred)), axis=-1)


class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy for binary (0/1) targets.

    Args:
        from_logits: whether `y_pred` holds logits (recommended) or probabilities.
        label_smoothing: in [0, 1]; squeezes targets towards 0.5.
        axis: the axis averaged over (default -1).
        reduction: "sum_over_batch_size" (default), "sum", "mean",
            "mean_with_sample_weight" or None.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> bce = keras.losses.BinaryCrossentropy(from_logits=True)
        >>> round(float(bce(np.array([0, 1, 0, 0]), np.array([-18.6, 0.51, 2.94, -12.8]))), 3)
        0.865
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Focal cross-entropy for binary targets (Lin et al., 2018).

    Args:
        apply_class_balancing: weight classes by `alpha` / `1 - alpha`.
        alpha: class-1 weight when balancing (default 0.25).
        gamma: focusing exponent (default 2.0).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1].
        axis: the axis averaged over.
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.BinaryFocalCrossentropy(gamma=2, from_logits=True)
        >>> round(float(loss(np.array([0, 1, 0, 0]), np.array([-18.6, 0.51, 2.94, -12.8]))), 3)
        0.691
    """

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy", dtype=None):
        super().__init__(binary_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis,
                "apply_class_balancing": self.apply_class_balancing, "alpha": self.alpha,
                "gamma": self.gamma}


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for one-hot targets (use `SparseCategoricalCrossentropy` for integers).

    Args:
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; `0.1` uses `0.1 / num_classes` for the
            other classes and `0.9 + 0.1 / num_classes` for the target.
        axis: the class axis (default -1).
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> cce = keras.losses.CategoricalCrossentropy()
        >>> round(float(cce([[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])), 3)
        1.177
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Alpha-balanced focal cross-entropy for one-hot targets.

    Args:
        alpha: class weight, a float (default 0.25) or one float per class.
        gamma: focusing exponent (default 2.0).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1].
        axis: the class axis.
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> cce = keras.losses.CategoricalFocalCrossentropy()
        >>> round(float(cce([[0., 1., 0.], [0., 0., 1.]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])), 4)
        0.2332
    """

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy",
                 dtype=None):
        super().__init__(categorical_focal_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.alpha = alpha
        self.gamma = gamma
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis,
                "alpha": self.alpha, "gamma": self.gamma}


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for integer targets.

    Args:
        from_logits: whether `y_pred` holds logits.
        ignore_class: optional label whose entries are skipped (masked).
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> scce = keras.losses.SparseCategoricalCrossentropy()
        >>> round(float(scce([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])), 3)
        1.177
    """

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "ignore_class": self.ignore_class}


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized cross-entropy (Zhang & Sabuncu, 2018) for integer labels.

    Args:
        q: in (0, 1) (default 0.5); near 0 it acts like cross-entropy, near 1 like MAE.
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> loss = keras.losses.CategoricalGeneralizedCrossEntropy(q=0.5)
        >>> round(float(loss([0, 1], [[0.7, 0.3], [0.2, 0.8]])), 4)
        0.2689
    """

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError(f"q must be in the interval (0, 1). Received: q={q}")
        super().__init__(categorical_generalized_cross_entropy, name=name, reduction=reduction,
                         dtype=dtype, q=q)
        self.q = q

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "q": self.q}


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence: `loss = y_true * log(y_true / y_pred)`.

    Args:
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> kl = keras.losses.KLDivergence()
        >>> round(float(kl([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        0.458
    """

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class Poisson(LossFunctionWrapper):
    """Poisson loss: `loss = y_pred - y_true * log(y_pred)`.

    Args:
        reduction: as for `BinaryCrossentropy`.
        name: the loss name.
        dtype: computation dtype.

    Example:
        >>> round(float(keras.losses.Poisson()([[0, 1], [0, 0]], [[1, 1], [0, 0]])), 3)
        0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

"""Reduction metrics: `Sum`, `Mean`, and `MeanMetricWrapper` (the mean of a function)."""
from kerasish import losses
from kerasish.losses import loss as loss_utils
from kerasish.metrics.metric import Metric
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction, unary
from kerasish.utils import registry


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """Weights `values` and reduces them to one value per sample, as Keras does.

    Values with more axes than the weights are first reduced (with
    `reduce_fn`) down to the weights' rank; the weighted values and the
    weights are then reduced to shape `(batch,)`.

    Args:
        values: tensor-like, shape `(batch, ...)` (or a scalar).
        sample_weight: None or weights broadcastable after Keras's rank rule.
        reduce_fn: `ops.mean` (for `Mean`) or `ops.sum` (for `Sum`).
        dtype: the metric dtype.

    Returns:
        (values, sample_weight) reduced to at most one axis.
    """
    mask = loss_utils.get_keras_mask(values)
    values = core.cast(core.convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = core.convert_to_tensor(sample_weight, dtype=dtype)
        if mask is not None:
            sample_weight = loss_utils.apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = loss_utils.squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = sample_weight.ndim, values.ndim
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=tuple(range(weight_ndim, values_ndim)))
        sample_weight = shape_ops.broadcast_to(sample_weight, values.shape)
        values = ew.multiply(values, sample_weight)
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, weight_ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, values.ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values seen.

    Args:
        name: the metric name (default "sum").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Sum()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())
        4.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", dtype=self.dtype, name="total")

    def update_state(self, values, sample_weight=None):
        """Adds the (weighted) values to the total.

        Args:
            values: tensor-like.
            sample_weight: optional weights.
        """
        values, _ = reduce_to_samplewise_values(values, sample_weight, reduction.sum, self.dtype)
        self.total.assign_add(reduction.sum(values))

    def result(self):
        """The total, as a Tensor (a copy, as Keras's read of the variable: later updates
        do not change it)."""
        return unary.copy(self.total)


class Mean(Metric):
    """The (weighted) mean of the values seen: `total / count`.

    Each sample contributes its weight to `count` (1 without weights);
    values with extra axes are first averaged per sample.

    Args:
        name: the metric name (default "mean").
        dtype: the state dtype.

    Example:
        >>> m = keras.metrics.Mean()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())
        2.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable((), "zeros", dtype=self.dtype, name="count")

    def update_state(self, values, sample_weight=None):
        """Adds the values (and their weights) to the running mean.

        Args:
            values: tensor-like, a scalar or shape `(batch, ...)`.
            sample_weight: optional weights; a Python number weights a scalar value.
        """
        if isinstance(sample_weight, (int, float)) and getattr(values, "ndim", None) == 0:
            self.total.assign_add(ew.multiply(core.cast(values, self.dtype), sample_weight))
            self.count.assign_add(float(sample_weight))
            return
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight,
                                                            reduction.mean, self.dtype)
        self.total.assign_add(reduction.sum(values))
        if sample_weight is not None:
            self.count.assign_add(reduction.sum(sample_weight))
        elif values.ndim >= 1 and values.shape[0] is None:
            return  # traced on KerasTensors (a layer's symbolic call): nothing to count
        else:
            self.count.assign_add(float(values.shape[0]) if values.ndim >= 1 else 1.0)

    def result(self):
        """`total / count` (0 before any update), as a Tensor on the device."""
        return loss_utils.divide_no_nan(self.total, self.count)


def _is_loss(fn):
    return fn in losses.ALL_OBJECTS or type(fn) in losses.ALL_OBJECTS


class MeanMetricWrapper(Mean):
    """The running mean of a per-sample function `fn(y_true, y_pred, **kwargs)`.

    Wrapping a Keras loss sets the metric's direction to "down".

    Args:
        fn: the function, returning one value per sample.
        name: the metric name.
        dtype: the state dtype.
        **kwargs: keyword arguments passed to `fn`.

    Example:
        >>> m = keras.metrics.MeanMetricWrapper(keras.losses.mean_absolute_error, name="mae")
        >>> m.update_state([[0.0, 1.0]], [[1.0, 1.0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        if not callable(fn):
            raise TypeError(f"MeanMetricWrapper: `fn` must be callable; received {fn!r}.")
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        if _is_loss(fn):
            self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Evaluates `fn` on the batch and adds its values to the mean.

        Args:
            y_true: targets.
            y_pred: predictions (a Keras mask on them is honoured).
            sample_weight: optional per-sample weights.
        """
        mask = loss_utils.get_keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if sample_weight is not None:
            sample_weight = core.convert_to_tensor(sample_weight, dtype=self.dtype)
        sample_weight = loss_utils.apply_mask(sample_weight, mask, self.dtype, "sum")
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        """Name, dtype, the serialized `fn` and its keyword arguments."""
        config = super().get_config()
        config["fn"] = registry.serialize_keras_object(self._fn)
        config.update(registry.serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config_dict):
        """Rebuilds the wrapper, resolving `fn` by name among the losses and metrics."""
        config_dict = dict(config_dict)
        if isinstance(config_dict.get("fn"), (str, dict)):
            config_dict["fn"] = registry.REGISTRY.catalog("metrics").deserialize(
                config_dict["fn"])
        return cls(**config_dict)

"""The `Loss` base class, `LossFunctionWrapper` and Keras's reduction rules.

A loss maps `(y_true, y_pred)` to per-sample values with `call`; `__call__`
then applies `sample_weight`, any Keras mask and the `reduction`:

* `"sum_over_batch_size"` (default) and `"mean"`: sum / number of elements
  (sample weights do not change the divisor);
* `"mean_with_sample_weight"`: sum / sum of the sample weights;
* `"sum"`: the plain sum;
* `None` / `"none"`: the per-sample values.
"""
import math

from kerasish import dtype_policies
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config as backend_config
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.utils import naming, registry, tree

REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None)


def standardize_reduction(reduction_name):
    """Checks a `reduction` argument and returns it unchanged.

    Args:
        reduction_name: one of `REDUCTIONS`.

    Returns:
        The same value.

    Example:
        >>> standardize_reduction("sum")
        'sum'
    """
    if reduction_name not in REDUCTIONS:
        raise ValueError(
            # Keras prints a set here (its order follows Python's string hashing)
            "Invalid value for argument `reduction`. Expected one of "
            f"{set(REDUCTIONS)}. Received: reduction={reduction_name}"
        )
    return reduction_name


def divide_no_nan(x, y):
    """`x / y`, with 0 wherever `y == 0` (Keras `ops.divide_no_nan`).

    Args:
        x: numerator (tensor-like).
        y: denominator (tensor-like).

    Returns:
        Tensor.

    Example:
        >>> divide_no_nan(ops.ones(2), ops.convert_to_tensor([2.0, 0.0]))  # [0.5, 0.]
    """
    zero = ew.equal(y, 0)
    safe = ew.where(zero, 1.0, y)
    return ew.where(zero, 0.0, ew.divide(x, safe))


def get_keras_mask(x):
    """The Keras mask attached to a tensor (`x._keras_mask`), or None."""
    return getattr(x, "_keras_mask", None)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Squeezes or expands the last axis when the ranks differ by exactly one.

    Keras's rule: when one tensor has an extra trailing axis of size 1 it is
    squeezed, except that a rank-1 partner is expanded instead when
    `expand_rank_1` is True.

    Args:
        x1, x2: tensors.
        expand_rank_1: expand a rank-1 partner instead of squeezing.

    Returns:
        (x1, x2) with matching ranks where the rule applies.

    Example:
        >>> a, b = squeeze_or_expand_to_same_rank(ops.ones((4, 1)), ops.ones(4))
        >>> a.shape, b.shape
        ((4, 1), (4, 1))
    """
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = shape_ops.expand_dims(x2, -1)
        else:
            x1 = shape_ops.squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = shape_ops.expand_dims(x1, -1)
        else:
            x2 = shape_ops.squeeze(x2, -1)
    return x1, x2


def reduce_values(values, sample_weight=None, reduction_name="sum_over_batch_size"):
    """Reduces (already weighted) loss values as Keras does.

    Args:
        values: per-sample loss tensor.
        sample_weight: the weights (only read by "mean_with_sample_weight").
        reduction_name: one of `REDUCTIONS`.

    Returns:
        A scalar Tensor, or `values` for None/"none" or scalar input.
    """
    if reduction_name in (None, "none") or values.shape in ((), (0,)):
        return values
    loss = reduction.sum(values)
    if reduction_name == "sum":
        return loss
    if reduction_name == "mean_with_sample_weight" and sample_weight is not None:
        return divide_no_nan(loss, core.cast(reduction.sum(sample_weight), loss.dtype))
    if None in values.shape:  # symbolic (a loss inside a traced call): only the spec matters
        return ew.divide(loss, core.cast(shape_ops.size(values), loss.dtype))
    count = math.prod(values.shape)
    return ew.divide(loss, float(count)) if count > 0 else loss


def apply_mask(sample_weight, mask, dtype, reduction_name):
    """Merges a Keras mask into the sample weights.

    For the averaging reductions the valid entries are re-weighted by
    `total / valid`, so the mean runs over valid entries only.

    Args:
        sample_weight: tensor or None.
        mask: boolean tensor or None.
        dtype: the computation dtype.
        reduction_name: the loss reduction.

    Returns:
        The combined weights (or `sample_weight` when `mask` is None).
    """
    if mask is None:
        return sample_weight
    mask = core.cast(mask, dtype)
    if reduction_name in ("mean", "sum_over_batch_size"):
        total = float(math.prod(mask.shape))
        mask = ew.multiply(mask, divide_no_nan(total, reduction.sum(mask)))
    if sample_weight is None:
        return mask
    sample_weight = core.cast(sample_weight, dtype)
    mask, sample_weight = squeeze_or_expand_to_same_rank(mask, sample_weight)
    return ew.multiply(sample_weight, mask)


def reduce_weighted_values(values, sample_weight=None, mask=None,
                           reduction_name="sum_over_batch_size", dtype=None):
    """Applies sample weights and a mask to loss values, then reduces them.

    Args:
        values: per-sample loss values.
        sample_weight: optional weights, broadcastable to `values` after
            Keras's squeeze/expand rank rule.
        mask: optional boolean mask.
        reduction_name: one of `REDUCTIONS`.
        dtype: computation dtype (defaults to the values' dtype).

    Returns:
        Tensor: scalar unless the reduction is None/"none".
    """
    standardize_reduction(reduction_name)
    values = core.convert_to_tensor(values, dtype=dtype)
    if sample_weight is not None:
        sample_weight = core.convert_to_tensor(sample_weight, dtype=dtype)
    sample_weight = apply_mask(sample_weight, mask, values.dtype, reduction_name)
    if sample_weight is not None:
        sample_weight = core.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = ew.multiply(values, sample_weight)
    return reduce_values(values, sample_weight, reduction_name)


def _combine_masks(in_mask, out_mask):
    if in_mask is not None and out_mask is not None:
        return ew.logical_and(in_mask, out_mask)
    return in_mask if in_mask is not None else out_mask


class Loss:
    """Base class of losses: subclass it and implement `call(y_true, y_pred)`.

    Args:
        name: the loss name (a snake-case class name by default).
        reduction: `"sum_over_batch_size"` (default), `"sum"`, `"mean"`,
            `"mean_with_sample_weight"`, or None/`"none"`.
        dtype: computation dtype or `DTypePolicy` (default `floatx()`);
            `y_true` and `y_pred` are cast to it.

    Example:
        >>> class MyMSE(keras.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return keras.ops.mean(keras.ops.square(y_pred - y_true), axis=-1)
        >>> float(MyMSE()([[0.0, 1.0]], [[1.0, 1.0]]))
        0.5
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or naming.auto_name(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype_policy = dtype_policies.get(dtype or backend_config.floatx())
        self._dtype = self._dtype_policy.compute_dtype

    @property
    def dtype(self):
        """The computation dtype, e.g. "float32"."""
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        """Computes the reduced loss.

        Args:
            y_true: targets.
            y_pred: predictions (a mask attached to them is honoured).
            sample_weight: optional per-sample (or per-timestep) weights.

        Returns:
            Tensor: scalar, or per-sample values when `reduction` is None.
        """
        in_mask = get_keras_mask(y_pred)
        y_pred = tree.map_structure(lambda x: core.convert_to_tensor(x, dtype=self.dtype), y_pred)
        y_true = tree.map_structure(lambda x: core.convert_to_tensor(x, dtype=self.dtype), y_true)
        try:
            values = self.call(y_true, y_pred)
        except ValueError as error:
            shapes = [tuple(getattr(t, "shape", ())) for t in (y_true, y_pred)]
            if shapes[0] == shapes[1] or hasattr(error, "keras_shapes") or not all(
                    isinstance(t, Tensor) for t in (y_true, y_pred)) or \
                    type(error).__name__ == "InvalidArgumentError":
                raise   # equal shapes, or already Keras's own words (TensorFlow's eagerly)
            raise ValueError(
                f"Loss '{self.name}' ({type(self).__name__}): the targets `y` of shape "
                f"{shapes[0]} do not match the model output of shape {shapes[1]}. "
                f"Details: {error}") from error
        mask = _combine_masks(in_mask, get_keras_mask(values))
        return reduce_weighted_values(values, sample_weight=sample_weight, mask=mask,
                                      reduction_name=self.reduction, dtype=self.dtype)

    def call(self, y_true, y_pred):
        """Per-sample loss values; subclasses implement it."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement `call(y_true, y_pred)`."
        )

    def get_config(self):
        """The constructor arguments as a dict."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """Rebuilds a loss from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


class LossFunctionWrapper(Loss):
    """Turns a function `fn(y_true, y_pred, **kwargs)` into a `Loss`.

    Args:
        fn: the per-sample loss function.
        reduction: as for `Loss`.
        name: the loss name.
        dtype: computation dtype.
        **kwargs: extra keyword arguments passed to `fn`.

    Example:
        >>> loss = keras.losses.LossFunctionWrapper(keras.losses.mean_absolute_error)
        >>> float(loss([[0.0, 2.0]], [[1.0, 1.0]]))
        1.0
    """

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        if not callable(fn):
            raise TypeError(f"LossFunctionWrapper: `fn` must be callable; received {fn!r}.")
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        """Matches the ranks of `y_true`/`y_pred`, then applies `fn`."""
        if core.is_tensor(y_true) and core.is_tensor(y_pred):
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        """Base config plus the serialized `fn` and its keyword arguments."""
        config = super().get_config()
        config["fn"] = registry.serialize_keras_object(self.fn)
        config.update(registry.serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config):
        """Rebuilds the wrapper, resolving `fn` by name among the losses."""
        config = dict(config)
        if isinstance(config.get("fn"), (str, dict)):
            config["fn"] = registry.REGISTRY.catalog("losses").deserialize(config["fn"])
        return cls(**config)

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"

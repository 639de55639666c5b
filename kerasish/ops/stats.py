"""Statistics and normalisation: moments, normalize, batch/layer/RMS normalisation (ops).

All are compositions of differentiable ops (second order works).
"""
import warnings

import numpy as np

from kerasish.backend import config
from kerasish.ops import core, creation, elementwise as ew, linalg, reduction, manipulation as shape_ops
from kerasish.ops.core import float_operand
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.ops.symbolic import keras_op


@keras_op
def moments(x, axes, keepdims=False, synchronized=False):
    """Mean and (biased) variance of `x` over `axes`.

    float16 inputs are computed in float32 and cast back, like Keras; int32 and
    int64 inputs give integer statistics (truncated means), as TensorFlow's.

    Args:
        x: tensor.
        axes: int or list of axes to reduce.
        keepdims: keep reduced axes with length 1.
        synchronized: as Keras on TensorFlow in the default (single-device)
            replica context: `E[x^2] - E[x]^2` from sums (clipped at 0), the
            formula of its cross-replica path, instead of the mean of squared
            deviations. kerasish's strategies cannot all-reduce inside a
            replica, so there is no cross-device version.

    Returns:
        (mean, variance) tensors.

    Example:
        >>> mean, var = ops.moments(ops.convert_to_tensor([1.0, 3.0]), axes=[0])   # 2.0, 1.0
    """
    x = core.convert_to_tensor(x)
    axes = tuple(axes) if isinstance(axes, (list, tuple)) else (axes,)
    if x.dtype in ("int32", "int64") and not synchronized:
        return _integer_moments(x, axes, keepdims)
    x = float_operand(x)
    dtype = x.dtype
    if dtype == "float16":
        x = core.cast(x, "float32")
    if synchronized:
        mean, variance = _summed_moments(x, axes)
    else:
        mean = reduction.mean(x, axis=axes, keepdims=True)
        centred = ew.subtract(x, core.stop_gradient(mean))
        variance = reduction.mean(ew.square(centred), axis=axes, keepdims=True)
        variance = ew.subtract(variance, ew.square(ew.subtract(mean, core.stop_gradient(mean))))
    if not keepdims:
        mean = shape_ops.squeeze(mean, axes)
        variance = shape_ops.squeeze(variance, axes)
    if dtype == "float16":
        # clipped to float16's range first, so an overflow saturates (as Keras)
        limit = float(np.finfo(np.float16).max)
        mean = core.cast(ew.clip(mean, -limit, limit), dtype)
        variance = core.cast(ew.clip(variance, -limit, limit), dtype)
    return mean, variance


def _integer_moments(x, axes, keepdims):
    """tf.nn.moments of int32/int64 (Keras passes them through): integer means, sums
    divided with truncation toward zero, in the input dtype (no gradient)."""
    axes = tuple(a % x.ndim for a in axes)
    kept = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    if x.__class__ is KerasTensor:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims \
            else kept
        return KerasTensor(shape, x.dtype), KerasTensor(shape, x.dtype)
    xp, a = x._device.xp, x._value
    count = int(np.prod([a.shape[i] for i in axes], dtype=np.int64)) or 1

    def mean(values):
        total = values.sum(axis=axes, keepdims=True, dtype=values.dtype)
        return (xp.abs(total) // count * xp.sign(total)).astype(values.dtype)

    m = mean(a)
    v = mean(xp.square(a - m))
    if not keepdims:
        m, v = m.reshape(kept), v.reshape(kept)
    return Tensor(m, x._device), Tensor(v, x._device)


def _summed_moments(x, axes):
    """Keras's `_compute_moments_sync` with one replica: sums, count, E[x^2] - E[x]^2."""
    count = reduction.sum(creation.ones_like(x), axis=axes, keepdims=True)
    mean = ew.divide_no_nan(reduction.sum(x, axis=axes, keepdims=True), count)
    squared_mean = ew.divide_no_nan(reduction.sum(ew.square(x), axis=axes, keepdims=True), count)
    return mean, ew.maximum(ew.subtract(squared_mean, ew.square(mean)), 0.0)


@keras_op
def normalize(x, axis=-1, order=2, epsilon=None):
    """x divided by its `order`-norm along `axis` (Keras ops.normalize).

    Example:
        >>> ops.normalize(ops.convert_to_tensor([3.0, 4.0]))   # [0.6, 0.8]
    """
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"ops.normalize: Argument `order` must be an int >= 1. "
                         f"Received: order={order}")
    x = float_operand(x)
    eps = config.epsilon() if epsilon is None else epsilon
    if order == 2:
        # Keras's bound: min(rsqrt(sum of squares), 1 / epsilon). A zero sum takes the
        # bound through `where` (rsqrt(0) = inf is never formed), so its gradient is 0
        # there, as TensorFlow's (whose rsqrt gradient is 0 for a zero upstream).
        sq = reduction.sum(ew.square(x), axis=axis, keepdims=True)
        zero = ew.equal(sq, 0.0)
        with np.errstate(over="ignore"):   # 1 / epsilon is inf in float16, as in TensorFlow
            bound = np.asarray(1.0 / eps).astype(config.to_numpy_dtype(x.dtype))
        bounded = ew.minimum(ew.rsqrt(ew.where(zero, 1.0, sq)), bound)
        return ew.multiply(x, ew.where(zero, bound, bounded))
    norm = linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return ew.divide(x, ew.maximum(norm, eps))


def _along(v, axis, ndim):
    """Reshapes a 1-D per-channel tensor to broadcast along `axis`."""
    if v is None:
        return None
    v = core.convert_to_tensor(v)
    if v.ndim != 1:
        return v
    shape = [1] * ndim
    shape[axis] = v.shape[0]
    return shape_ops.reshape(v, shape)


def _along_axes(v, axes, shape):
    """Keras's broadcast of gamma/beta: a lower-rank vector is laid along `axes`
    unless only the last axis is normalized."""
    if v.ndim == len(shape) or axes == (len(shape) - 1,):
        return v
    target = [1] * len(shape)
    for a in axes:
        target[a] = shape[a]
    return shape_ops.reshape(v, tuple(target))


@keras_op
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """`(x - mean) / sqrt(variance + epsilon) * scale + offset` with per-`axis` statistics.

    Args:
        x: tensor.
        mean, variance: 1-D tensors of length `x.shape[axis]`.
        axis: the channel axis.
        offset, scale: optional 1-D tensors (beta and gamma).
        epsilon: added to the variance.

    Returns:
        Tensor shaped like `x`.

    Example:
        >>> ops.batch_normalization(ops.ones((2, 3)), ops.ones(3), ops.ones(3), axis=-1)
    """
    x = float_operand(x)
    axis = axis % x.ndim
    if KerasTensor in map(type, (x, mean, variance, offset, scale)):
        for name, v in (("offset", offset), ("scale", scale)):  # Keras's symbolic checks
            if v is not None and tuple(v.shape) != (x.shape[axis],) and None not in v.shape \
                    and x.shape[axis] is not None:
                raise ValueError(f"ops.batch_normalization: `{name}` must be a vector of "
                                 f"length {x.shape[axis]} (x.shape[axis]); received "
                                 f"{name}.shape={tuple(v.shape)}.")
        return KerasTensor(x.shape, x.dtype)
    for name, vector in (("offset", offset), ("scale", scale)):
        shape = None if vector is None else tuple(core.convert_to_tensor(vector).shape)
        if shape is not None and len(shape) == 1 and shape[0] != x.shape[axis]:
            raise ValueError(f"ops.batch_normalization: `{name}` must be a vector of length "
                             f"{x.shape[axis]}. Received: {name}.shape={shape}")
    mean, variance = _along(mean, axis, x.ndim), _along(variance, axis, x.ndim)
    inv = ew.rsqrt(ew.add(variance, epsilon))
    if scale is not None:
        inv = ew.multiply(inv, _along(scale, axis, x.ndim))
    res = ew.negative(ew.multiply(mean, inv))
    if offset is not None:
        res = ew.add(res, _along(offset, axis, x.ndim))
    # As tf.nn.batch_normalization: the statistics' terms are cast to x's dtype, so the
    # result has x's dtype whatever the statistics' (float64 numpy vectors included)
    return ew.add(ew.multiply(x, core.cast(inv, x.dtype)), core.cast(res, x.dtype))


@keras_op
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """Normalises over `axis` to zero mean and unit variance, then scales and shifts.

    The result has the dtype of `x` (gamma and beta are cast to it, as Keras);
    float16 inputs are computed in float32.

    Args:
        x: tensor.
        gamma, beta: optional scale and offset broadcastable along `axis`.
        axis: int or tuple of axes.
        epsilon: added to the variance (Keras's epsilon() if None).
        **kwargs: `rms_scaling=True` (deprecated in Keras, with its warning)
            scales by the variance instead of normalizing.

    Returns:
        Tensor shaped like `x`.

    Example:
        >>> ops.layer_normalization(ops.convert_to_tensor([[1.0, 3.0]]))   # [[-1., 1.]]
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"ops.layer_normalization: unexpected arguments {sorted(kwargs)}.")
    if rms_scaling:
        warnings.warn(
            "You passed `rms_scaling=True`, which is deprecated. This argument incorrectly "
            "scales the input by the variance, not the root mean square. To correctly use "
            "RMS Normalization, please use `keras.ops.rms_normalization` / "
            "`keras.ops.nn.rms_normalization` instead.")
    x = float_operand(x)
    if x.__class__ is KerasTensor:  # Keras's rule: shaped like `x`
        return KerasTensor(x.shape, x.dtype)
    dtype = x.dtype
    if dtype == "float16":
        x = core.cast(x, "float32")
    eps = config.epsilon() if epsilon is None else epsilon
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    axes = tuple(a % x.ndim for a in axes)
    gamma, beta = (None if v is None else _along_axes(core.cast(core.convert_to_tensor(v), x.dtype),
                                                       axes, x.shape) for v in (gamma, beta))
    if rms_scaling:
        variance = reduction.var(x, axis=axes, keepdims=True)
        out = ew.multiply(x, ew.rsqrt(ew.add(variance, eps)))
        out = out if gamma is None else ew.multiply(out, gamma)
        return core.cast(out, dtype)
    mean, variance = moments(x, axes, keepdims=True)
    out = ew.multiply(ew.subtract(x, mean), ew.rsqrt(ew.add(variance, eps)))
    if gamma is not None:
        out = ew.multiply(out, gamma)
    if beta is not None:
        out = ew.add(out, beta)
    return core.cast(out, dtype)


@keras_op
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """x / sqrt(mean(x^2) + epsilon) * scale over `axis`.

    Example:
        >>> ops.rms_normalization(ops.convert_to_tensor([[3.0, 4.0]]))
    """
    x = float_operand(x)
    eps = config.epsilon() if epsilon is None else epsilon
    ms = reduction.mean(ew.square(x), axis=axis, keepdims=True)
    out = ew.multiply(x, ew.rsqrt(ew.add(ms, eps)))
    if scale is None:
        return out
    # the scale is cast to the input's dtype: the result keeps it (Keras)
    return ew.multiply(out, core.cast(core.convert_to_tensor(scale), x.dtype))

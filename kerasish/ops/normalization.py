"""Fused normalization: `normalize_moments` (BatchNormalization / LayerNormalization /
GroupNormalization in training).

It computes the mean and the (biased) variance over `axes`, normalizes,
scales and shifts in one pass and returns the statistics too (for the
moving averages of BatchNormalization). Its backward is the closed form

    gx = inv_std * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)),
    gxhat = g * scale,

on raw arrays when no outer tape records, and the same formula written with
ops (recomputing xhat from x) otherwise, so second-order gradients work.
Normalizing with given statistics is `ops.batch_normalization`.
"""
import math

import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core


def _axes(op, axes, ndim):
    if isinstance(axes, int):
        axes = (axes,)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{op}: axis {a} is out of bounds for inputs of rank {ndim}.")
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


def _unbroadcast_raw(g, shape):
    """Sums a raw gradient down to `shape` (which broadcasts to g.shape)."""
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, n in enumerate(shape)
                                       if n == 1 and g.shape[extra + i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def normalize_moments(x, axes, scale=None, offset=None, epsilon=1e-3):
    """Normalizes `x` with its own mean and variance over `axes`, fused.

    Computes `mean`, biased `variance` over `axes`, then
    `(x - mean) / sqrt(variance + epsilon) * scale + offset`.

    Args:
        x: the input tensor (float).
        axes: int or sequence of the axes to reduce.
        scale: None or a tensor broadcastable to `x` (e.g. shape (1, 1, 1, C)).
        offset: None or a tensor broadcastable to `x`.
        epsilon: added to the variance.

    Returns:
        (outputs, mean, variance); the statistics have the reduced axes removed.

    Example:
        >>> y, mean, var = ops.normalize_moments(x, axes=(0, 1, 2))   # batch norm of NHWC
    """
    op = "ops.normalize_moments"
    x = core.float_operand(x)
    axes = _axes(op, axes, x.ndim)
    args = [x] + [t for t in (scale, offset) if t is not None]
    values, tensors, dev = core.operands("normalize_moments", *args)
    xp, xa = dev.xp, values[0]
    scale_a = values[1] if scale is not None else None
    offset_a = values[-1] if offset is not None else None
    for name, value in (("scale", scale_a), ("offset", offset_a)):
        if value is not None and not _broadcasts_to(value.shape, xa.shape):
            raise ValueError(f"{op}: `{name}` of shape {tuple(value.shape)} does not "
                             f"broadcast to the inputs' shape {tuple(xa.shape)}.")
    count = math.prod(xa.shape[a] for a in axes)
    mean = xa.mean(axis=axes, keepdims=True)
    xhat = xa - mean
    var = xp.square(xhat).mean(axis=axes, keepdims=True)
    inv = 1.0 / xp.sqrt(var + epsilon)
    xhat *= inv
    y = xhat * scale_a if scale_a is not None else xhat.copy()
    if offset_a is not None:
        y += offset_a
    kept = tuple(n for i, n in enumerate(xa.shape) if i not in axes)
    outputs = (Tensor(y, dev), Tensor(mean.reshape(kept), dev), Tensor(var.reshape(kept), dev))
    if _tape._active:
        x_t = tensors[0]
        scale_t = tensors[1] if scale is not None else None
        offset_t = tensors[-1] if offset is not None else None

        def backward(grads):
            gy, gmean, gvar = grads
            if _tape._active:  # an outer tape watches: stay in ops for higher order
                return _backward_ops(x_t, scale_t, offset_t, axes, epsilon, gy, gmean, gvar)
            g = gy._value
            gxhat = g * scale_a if scale_a is not None else g
            gx = gxhat - gxhat.mean(axis=axes, keepdims=True)
            gx -= xhat * (gxhat * xhat).mean(axis=axes, keepdims=True)
            gx *= inv
            gx += gmean._value.reshape(mean.shape) / count
            gx += (2.0 / count) * gvar._value.reshape(var.shape) * (xhat / inv)
            out = [Tensor(gx, dev)]
            if scale_t is not None:
                out.append(Tensor(_unbroadcast_raw(g * xhat, scale_a.shape), dev))
            if offset_t is not None:
                out.append(Tensor(_unbroadcast_raw(g, offset_a.shape), dev))
            return out

        _tape.record("normalize_moments", tuple(tensors), outputs, backward)
    return outputs


def _backward_ops(x, scale, offset, axes, epsilon, gy, gmean, gvar):
    """normalize_moments' backward written with ops (differentiable again)."""
    from kerasish import ops
    from kerasish.ops.elementwise import unbroadcast
    count = float(math.prod(x.shape[a] for a in axes))
    mean = ops.mean(x, axis=axes, keepdims=True)
    centered = ops.subtract(x, mean)
    var = ops.mean(ops.square(centered), axis=axes, keepdims=True)
    inv = ops.rsqrt(ops.add(var, epsilon))
    xhat = ops.multiply(centered, inv)
    gxhat = ops.multiply(gy, scale) if scale is not None else gy
    gx = ops.subtract(gxhat, ops.mean(gxhat, axis=axes, keepdims=True))
    gx = ops.subtract(gx, ops.multiply(xhat, ops.mean(ops.multiply(gxhat, xhat), axis=axes,
                                                      keepdims=True)))
    gx = ops.multiply(gx, inv)
    gx = ops.add(gx, ops.divide(ops.reshape(gmean, mean.shape), count))
    gx = ops.add(gx, ops.multiply(ops.reshape(gvar, var.shape),
                                  ops.multiply(centered, 2.0 / count)))
    out = [gx]
    if scale is not None:
        out.append(unbroadcast(ops.multiply(gy, xhat), scale.shape))
    if offset is not None:
        out.append(unbroadcast(gy, offset.shape))
    return out

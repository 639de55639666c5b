"""Fused normalization: `normalize_moments` (BatchNormalization / LayerNormalization /
GroupNormalization in training).

It computes the mean and the (biased) variance over `axes`, normalizes,
scales and shifts in one pass and returns the statistics too (for the
moving averages of BatchNormalization). Its backward is the Op
`NormalizeMomentsGrad`: the closed form

    gx = inv_std * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)),
    gxhat = g * scale,

on raw arrays, whose own backward (the second-order rule, derived once) is
written with ops, so gradients of any order work.
Normalizing with given statistics is `ops.batch_normalization`.
"""
import math

import numpy as np

from kerasish.autodiff.op import Op
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops.symbolic import keras_op


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


def _unbroadcast_raw(g, shape, ordered_sum):
    """Sums a raw gradient down to `shape` (which broadcasts to g.shape) with
    `ordered_sum` (the device's kernel: TensorFlow's order of additions)."""
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, n in enumerate(shape)
                                       if n == 1 and g.shape[extra + i] != 1)
    if axes:
        g = ordered_sum(g, axes, keepdims=True)
    return g.reshape(shape)


@keras_op
def normalize_moments(x, axes, scale=None, offset=None, epsilon=1e-3):
    """Normalizes `x` with its own mean and variance over `axes`, fused.

    Computes `mean`, biased `variance` over `axes`, then
    `(x - mean) / sqrt(variance + epsilon) * scale + offset`, rounded as Keras
    computes it: `x * a + (offset - mean * a)` with `a = scale / sqrt(variance + epsilon)`.

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
    xa = values[0]
    scale_a = values[1] if scale is not None else None
    offset_a = values[-1] if offset is not None else None
    for name, value in (("scale", scale_a), ("offset", offset_a)):
        if value is not None and not _broadcasts_to(value.shape, xa.shape):
            raise ValueError(f"{op}: `{name}` of shape {tuple(value.shape)} does not "
                             f"broadcast to the inputs' shape {tuple(xa.shape)}.")
    op = NormalizeMoments(axes, epsilon, scale is not None, offset is not None)
    return op(*tensors)


class NormalizeMoments(Op):
    """Mean, biased variance, and `(x - mean) / sqrt(var + eps) * scale + offset`, fused.

    Inputs (x[, scale][, offset]); outputs (y, mean, variance) with the
    reduced axes removed from the statistics. The normalized input and the
    inverse deviation of the forward are kept (on the instance, one per call)
    for the backward, the Op `NormalizeMomentsGrad`.
    """

    name = "normalize_moments"

    def __init__(self, axes, epsilon, has_scale, has_offset):
        self.axes, self.epsilon = axes, epsilon
        self.has_scale, self.has_offset = has_scale, has_offset
        self._stats = None

    def forward(self, device, x, *params):
        xp, axes = device.xp, self.axes
        scale = params[0] if self.has_scale else None
        offset = params[-1] if self.has_offset else None
        ordered_mean = device.kernel("ordered_mean")   # TensorFlow's order of additions
        mean = ordered_mean(x, axes, keepdims=True)
        xhat = x - mean
        var = ordered_mean(xp.square(xhat), axes, keepdims=True)
        inv = 1.0 / xp.sqrt(var + self.epsilon)
        # Keras's (TensorFlow's) formula, whose rounding differs from (x - mean) * inv:
        # x * a + (offset - mean * a), a = inv * scale.
        a = inv * scale if scale is not None else inv
        shift = -(mean * a)
        if offset is not None:
            shift = shift + offset   # not in place: without a scale, it may broadcast wider
        y = x * a
        y += shift
        xhat *= inv
        self._stats = (xhat, inv)
        kept = tuple(n for i, n in enumerate(x.shape) if i not in axes)
        return y, mean.reshape(kept), var.reshape(kept)

    def save(self, inputs, outputs):
        stats, self._stats = self._stats, None
        scale = inputs[1] if self.has_scale else None
        offset_shape = inputs[-1].shape if self.has_offset else None
        return inputs[0], scale, offset_shape, stats

    def backward(self, saved, needs, grads):
        x, scale, offset_shape, stats = saved
        gy, gmean, gvar = grads
        grad = NormalizeMomentsGrad(self.axes, self.epsilon, offset_shape, stats)
        gx, gscale, goffset = grad(x, gy, gmean, gvar) if scale is None else \
            grad(x, gy, gmean, gvar, scale)
        return [gx] + [gscale] * self.has_scale + [goffset] * self.has_offset

    def compute_output_spec(self, x, *params):
        shape, dtype = x
        kept = tuple(n for i, n in enumerate(shape) if i not in self.axes)
        return [(tuple(shape), dtype), (kept, dtype), (kept, dtype)]


class NormalizeMomentsGrad(Op):
    """The gradients of `NormalizeMoments` for (x, scale, offset) in one pass.

    Inputs (x, gy, gmean, gvar[, scale]); outputs (gx, gscale, goffset),
    gscale and goffset being zeros when there is no scale/offset. The first
    order is the closed form

        gx = inv * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat))
             + gmean / n + 2 / n * gvar * (x - mean),      gxhat = gy * scale,

    on raw arrays from the forward's xhat and inv (a parameter); its backward
    (the second-order rule) is written with ops.
    """

    name = "normalize_moments_grad"

    def __init__(self, axes, epsilon, offset_shape, stats):
        self.axes, self.epsilon, self.offset_shape = axes, epsilon, offset_shape
        self.stats = stats

    def forward(self, device, x, gy, gmean, gvar, scale=None):
        axes = self.axes
        count = math.prod(x.shape[a] for a in axes)
        xhat, inv = self.stats
        gxhat = gy * scale if scale is not None else gy
        gx = gxhat - gxhat.mean(axis=axes, keepdims=True)
        gx -= xhat * (gxhat * xhat).mean(axis=axes, keepdims=True)
        gx *= inv
        # The statistics are usually not differentiated (the tape hands zeros):
        # skip the two full-size passes that would add zeros.
        if gmean.any():
            gx += gmean.reshape(inv.shape) / count
        if gvar.any():
            gx += (2.0 / count) * gvar.reshape(inv.shape) * (xhat / inv)
        ordered_sum = device.kernel("ordered_sum")
        gscale = _unbroadcast_raw(gy * xhat, scale.shape, ordered_sum) if scale is not None \
            else device.xp.zeros((), x.dtype)
        goffset = _unbroadcast_raw(gy, self.offset_shape, ordered_sum) \
            if self.offset_shape is not None \
            else device.xp.zeros((), x.dtype)
        return gx, gscale, goffset

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, grads):
        x, gy, gmean, gvar = saved[:4]
        scale = saved[4] if len(saved) > 4 else None
        ggx, ggscale, ggoffset = grads
        axes = self.axes

        def avg(t):
            return reduction.mean(t, axis=axes, keepdims=True)

        def project(z):   # P(z) = z - <z> - xhat <xhat z>, self-adjoint
            return ew.subtract(ew.subtract(z, avg(z)), ew.multiply(xhat, avg(ew.multiply(xhat, z))))

        centered = ew.subtract(x, avg(x))
        inv = ew.rsqrt(ew.add(avg(ew.square(centered)), self.epsilon))
        xhat = ew.multiply(centered, inv)
        a = ew.multiply(gy, scale) if scale is not None else gy
        p_ggx = ew.multiply(inv, project(ggx))
        stat_shape = inv.shape
        # d/d gy: the normalizing map is self-adjoint; plus the scale and offset terms.
        ggy = ew.multiply(p_ggx, scale) if scale is not None else p_ggx
        if scale is not None:
            ggy = ew.add(ggy, ew.multiply(ggscale, xhat))
        if self.offset_shape is not None:
            ggy = ew.add(ggy, ggoffset)
        g_gmean = shape_ops.reshape(avg(ggx), gmean.shape)
        g_gvar = shape_ops.reshape(ew.multiply(avg(ew.multiply(ggx, centered)), 2.0), gvar.shape)
        # d/dx through xhat and inv (d xhat = inv * P(dx), d inv = -inv^2 <xhat dx>).
        m1, t = avg(ew.multiply(ggx, xhat)), avg(ew.multiply(a, xhat))
        m2 = ew.subtract(avg(ew.multiply(ggx, a)), ew.multiply(avg(ggx), avg(a)))
        inner = ew.add(project(ew.add(ew.multiply(m1, a), ew.multiply(t, ggx))),
                        ew.multiply(ew.subtract(m2, ew.multiply(t, m1)), xhat))
        gx = ew.negative(ew.multiply(ew.square(inv), inner))
        gv = shape_ops.reshape(gvar, stat_shape)
        count = float(math.prod(x.shape[i] for i in axes))
        gx = ew.add(gx, ew.multiply(ew.multiply(gv, 2.0 / count),
                                      ew.subtract(ggx, avg(ggx))))
        if scale is not None:
            gx = ew.add(gx, ew.multiply(inv, project(ew.multiply(ggscale, gy))))
        result = [gx, ggy, g_gmean, g_gvar]
        if scale is not None:
            result.append(ew.unbroadcast(ew.multiply(gy, p_ggx), scale.shape))
        return result

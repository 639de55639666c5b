"""softmax and log_softmax as Ops (shared by `nn` and the cross-entropies)."""
import warnings

import numpy as np

from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.backend.kernels import eigen_math, onednn_math
from kerasish.ops import elementwise as ew, reduction
from kerasish.ops.core import float_operand
from kerasish.ops.symbolic import keras_op

EXACT_MAX_ELEMENTS = 1 << 16


def exact_softmax_kernel(xp, dtype, size):
    """TensorFlow's softmax over rows (`fn(rows)`, oneDNN's kernel) for a softmax of
    `size` values in all, or None: other dtypes or devices, off x86, and above
    `EXACT_MAX_ELEMENTS` values (numpy's formula then, for its cost).

    Args:
        xp: the array module.
        dtype: the logits' dtype.
        size: how many logits the softmax covers.

    Returns:
        callable or None.
    """
    if size > EXACT_MAX_ELEMENTS:
        return None
    return onednn_math.softmax_kernel(xp, dtype)


class Softmax(Op):
    """exp(x) / sum(exp(x)) over `axis`, max-shifted; backward `out * (g - sum(g * out))`.

    float32 softmaxes of up to `EXACT_MAX_ELEMENTS` values take TensorFlow's values
    on x86 (oneDNN's kernel, `backend/kernels/onednn_math.py`): a classifier's
    printed probabilities match Keras's to the last digit. The emulation costs
    about ten times numpy's formula, so larger ones (attention over long
    sequences, whose products differ from TensorFlow's in the last bits anyway)
    keep numpy's formula.
    """

    elementwise = True  # shaped like its (broadcast) inputs

    name = "softmax"

    def __init__(self, axis):
        self.axis = axis

    def compute_output_spec(self, spec):
        _check_axis(self.name, self.axis, len(spec[0]))
        return spec

    def forward(self, device, x):
        xp = device.xp
        kernel = exact_softmax_kernel(xp, x.dtype, x.size) if x.ndim else None
        if kernel is not None:
            return _over_last_axis(xp, x, self.axis, kernel)
        e = xp.exp(x - xp.max(x, axis=self.axis, keepdims=True))
        return e / xp.sum(e, axis=self.axis, keepdims=True)

    def save(self, inputs, outputs):
        return (outputs[0],)

    def backward(self, saved, needs, g):
        out = saved[0]
        inner = reduction.sum(ew.multiply(g, out), axis=self.axis, keepdims=True)
        return (ew.multiply(out, ew.subtract(g, inner)),)


class LogSoftmax(Op):
    """x - logsumexp(x) over `axis`; backward `g - exp(out) * sum(g)`.

    float32 follows TensorFlow's (Eigen) kernel operation for operation: the
    shifted logits' exponentials summed along each row in Eigen's order (a row's
    values after its last packet of 8 take the scalar exp), then Eigen's log of
    the sums (docs/fidelity.md).
    """

    elementwise = True  # shaped like its (broadcast) inputs

    name = "log_softmax"

    def __init__(self, axis):
        self.axis = axis

    def compute_output_spec(self, spec):
        _check_axis(self.name, self.axis, len(spec[0]))
        return spec

    def forward(self, device, x):
        xp = device.xp
        if x.dtype == xp.float32 and x.ndim:
            return _over_last_axis(xp, x, self.axis, lambda rows: _eigen_log_softmax(device, rows))
        shifted = x - xp.max(x, axis=self.axis, keepdims=True)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=self.axis, keepdims=True))

    def save(self, inputs, outputs):
        return (outputs[0],)

    def backward(self, saved, needs, g):
        total = reduction.sum(g, axis=self.axis, keepdims=True)
        return (ew.subtract(g, ew.multiply(ew.exp(saved[0]), total)),)


def _eigen_log_softmax(device, rows):
    xp = device.xp
    shifted = rows - xp.max(rows, axis=-1, keepdims=True)
    exps = eigen_math.exp_for_row_sums(xp, shifted)
    sums = device.kernel("ordered_sum")(exps, (rows.ndim - 1,), keepdims=True)
    return shifted - eigen_math.log(xp, sums)


def _over_last_axis(xp, x, axis, fn):
    """`fn` of `x` as a 2-D array of rows: `axis` (an int, a tuple flattened into one,
    or None for all) moved last, as Keras's TensorFlow backend reduces it; the
    result moved back."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        a % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = xp.transpose(x, kept + list(axes))
    count = int(np.prod([x.shape[a] for a in kept]))
    rows = moved.reshape(count, int(np.prod([x.shape[a] for a in axes])))
    out = fn(rows).reshape(moved.shape)
    return xp.transpose(out, [int(i) for i in np.argsort(kept + list(axes))])


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@keras_op
def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis` (an int or tuple), max-shifted for stability.

    Args:
        x: tensor-like (ints become floatx).
        axis: int or tuple of ints.

    Returns:
        Tensor of the same shape.

    Example:
        >>> ops.softmax(ops.convert_to_tensor([1.0, 1.0]))   # [0.5, 0.5]
    """
    x = float_operand(x)
    if isinstance(axis, int) and -x.ndim <= axis < x.ndim and x.shape[axis] == 1:
        warnings.warn(
            f"You are using a softmax over axis {axis} of a tensor of shape {tuple(x.shape)}. "
            "This axis has size 1. The softmax operation will always return the value 1, "
            "which is likely not what you intended. Did you mean to use a sigmoid instead?")
    out = Softmax(_axis(axis))(x)
    if isinstance(out, Tensor):
        out._keras_logits = x   # the cross-entropies use the logits, as Keras on TensorFlow
    return out


@keras_op
def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`.

    Args:
        x: tensor-like (ints become floatx).
        axis: int or tuple of ints.

    Returns:
        Tensor of the same shape.

    Example:
        >>> ops.log_softmax(ops.convert_to_tensor([0.0, 0.0]))   # [-0.6931, -0.6931]
    """
    return LogSoftmax(_axis(axis))(float_operand(x))


def _check_axis(name, axis, ndim):
    """Keras's symbolic check: an axis out of range is a ValueError."""
    for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
        if a is not None and not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"ops.{name}: axis {a} is out of bounds for a tensor of rank {ndim}.")

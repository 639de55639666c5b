"""Cross-entropies with Keras 3 `ops` semantics (no reduction over the batch).

Probabilities are clipped to [epsilon, 1 - epsilon] like Keras. From logits,
binary cross-entropy uses the exact `max(x, 0) - x t + log1p(exp(-|x|))` and
the categorical ones a fused log-softmax, so logits of +-1e4 give finite
losses and gradients. The fused ops' gradients are Ops of their own (first
order on raw arrays, second order written with ops).
"""
from kerasish.backend.config import is_float
from kerasish.autodiff.capture import host_check
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, float_operand
from kerasish.ops.softmax import log_softmax, softmax
from kerasish.ops.symbolic import keras_op


def _clip_probs(output):
    eps = config.epsilon()
    return ew.clip(output, eps, 1.0 - eps)


def _check_same_shape(name, target, output):
    if len(target.shape) == len(output.shape) and all(
            a is None or b is None or a == b for a, b in zip(target.shape, output.shape)):
        return  # equal, or unknown (None) where they differ
    if target.shape != output.shape:
        raise ValueError(
            f"ops.{name}: `target` and `output` must have the same shape. "
            f"Received: target {core.describe(target)}, output {core.describe(output)}.")


@keras_op
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy (no reduction), as Keras ops.

    Args:
        target: labels in [0, 1], same shape as `output`.
        output: probabilities, or logits with `from_logits=True`.
        from_logits: whether `output` holds logits.

    Returns:
        Tensor shaped like `output`.

    Example:
        >>> ops.binary_crossentropy(ops.convert_to_tensor([1.0]), ops.convert_to_tensor([0.5]))
        >>> # [0.6931]
    """
    output = float_operand(output)
    target = core.cast(convert_to_tensor(target), output.dtype)
    _check_same_shape("binary_crossentropy", target, output)
    if from_logits:
        x = output
        return ew.add(ew.subtract(ew.maximum(x, 0.0), ew.multiply(x, target)),
                      ew.log1p(ew.exp(ew.negative(ew.absolute(x)))))
    p = _clip_probs(output)
    return ew.negative(ew.add(ew.multiply(target, ew.log(p)),
                              ew.multiply(ew.subtract(1.0, target), ew.log(ew.subtract(1.0, p)))))


@keras_op
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between one-hot/soft targets and predictions, reduced over `axis`.

    Args:
        target: one-hot or soft labels, same shape as `output`.
        output: probabilities (renormalised), or logits with `from_logits=True`.
        from_logits: whether `output` holds logits.
        axis: the class axis.

    Returns:
        Tensor with `axis` removed.

    Example:
        >>> ops.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]])   # [0.6931]
    """
    output = float_operand(output)
    target = core.cast(convert_to_tensor(target), output.dtype)
    _check_same_shape("categorical_crossentropy", target, output)
    if output.ndim < 1:
        raise ValueError("ops.categorical_crossentropy: inputs must be at least rank 1.")
    if from_logits:
        return _softmax_xent(target, output, axis)
    probs = ew.divide(output, reduction.sum(output, axis=axis, keepdims=True))
    return ew.negative(reduction.sum(ew.multiply(target, ew.log(_clip_probs(probs))), axis=axis))


def _softmax_xent(target, logits, axis):
    """Fused softmax cross-entropy from logits (soft targets)."""
    return SoftmaxXent(axis)(logits, target)


class SoftmaxXent(Op):
    """`-sum(target * log_softmax(logits))` over `axis`. Inputs (logits, target).

    The forward's log-probabilities are kept (on the instance, one per call)
    for the backward, the Op `SoftmaxXentGrad`.
    """

    name = "softmax_cross_entropy"

    def __init__(self, axis):
        self.axis = axis
        self._log_probs = None

    def compute_output_spec(self, logits, target):
        shape, dtype = logits
        axis = self.axis % len(shape)
        return tuple(shape[:axis]) + tuple(shape[axis + 1:]), dtype

    def forward(self, device, z, t):
        xp = device.xp
        shifted = z - xp.max(z, axis=self.axis, keepdims=True)
        log_probs = shifted - xp.log(xp.sum(xp.exp(shifted), axis=self.axis, keepdims=True))
        self._log_probs = log_probs
        return -xp.sum(t * log_probs, axis=self.axis)

    def save(self, inputs, outputs):
        log_probs, self._log_probs = self._log_probs, None
        return inputs[0], inputs[1], log_probs

    def backward(self, saved, needs, g):
        logits, target, log_probs = saved
        grads = SoftmaxXentGrad(self.axis, needs[1], log_probs)(logits, target, g)
        return grads if needs[1] else (grads, None)


class SoftmaxXentGrad(Op):
    """Gradients of `SoftmaxXent`: `g * (softmax(z) * sum(t) - t)` for the logits and
    (when `need_target`) `-g * log_softmax(z)` for the target. Inputs (logits, target, g).

    First order on raw arrays from the forward's log-probabilities (a
    parameter); the backward (second order) is written with ops.
    """

    name = "softmax_cross_entropy_grad"

    def __init__(self, axis, need_target, log_probs):
        self.axis, self.need_target, self.log_probs = axis, need_target, log_probs

    def forward(self, device, z, t, g):
        xp, axis, log_probs = device.xp, self.axis, self.log_probs
        ge = xp.expand_dims(g, axis)
        glogits = ge * (xp.exp(log_probs) * xp.sum(t, axis=axis, keepdims=True) - t)
        return (glogits, ge * -log_probs) if self.need_target else glogits

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, grads):
        z, t, g = saved
        axis = self.axis
        g_logits, g_target = grads if self.need_target else (grads, None)
        probs = softmax(z, axis=axis)
        ge = shape_ops.expand_dims(g, axis)
        t_sum = reduction.sum(t, axis=axis, keepdims=True)
        # glogits = ge * t_sum * probs - ge * t
        u = ew.multiply(ew.multiply(ge, t_sum), g_logits)
        gz = ew.multiply(probs, ew.subtract(u, reduction.sum(ew.multiply(probs, u), axis=axis,
                                                             keepdims=True)))
        gt = ew.multiply(ge, ew.subtract(reduction.sum(ew.multiply(g_logits, probs), axis=axis,
                                                       keepdims=True), g_logits))
        gg = reduction.sum(ew.multiply(g_logits, ew.subtract(ew.multiply(probs, t_sum), t)),
                           axis=axis)
        if g_target is not None:
            # gtarget = -ge * log_softmax(z)
            v = ew.negative(ew.multiply(ge, g_target))
            gz = ew.add(gz, ew.subtract(v, ew.multiply(probs, reduction.sum(v, axis=axis,
                                                                          keepdims=True))))
            gg = ew.subtract(gg, reduction.sum(ew.multiply(g_target, log_softmax(z, axis=axis)),
                                               axis=axis))
        return gz, gt, gg


@keras_op
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy with integer labels.

    Labels may be int or float (cast to int); NaN/inf or out-of-range labels
    raise a ValueError naming the op instead of silently giving garbage.

    Args:
        target: int labels shaped like `output` without the class axis
            (a trailing axis of size 1 is squeezed).
        output: probabilities, or logits with `from_logits=True`.
        from_logits: whether `output` holds logits.
        axis: the class axis of `output`.

    Returns:
        Tensor shaped like `target`.

    Example:
        >>> ops.sparse_categorical_crossentropy([1], [[0.5, 0.5]])   # [0.6931]
    """
    name = "sparse_categorical_crossentropy"
    output = float_operand(output)
    labels = convert_to_tensor(target)
    if output.__class__ is KerasTensor or labels.__class__ is KerasTensor:
        axis = shape_ops._axis(name, axis, output.ndim)
        return KerasTensor(output.shape[:axis] + output.shape[axis + 1:], output.dtype)
    if is_float(labels._value.dtype):
        host_check(lambda a: core.check_finite_input(name, a), labels)
        labels = core.cast(labels, "int64")
    if labels.ndim == output.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = shape_ops.squeeze(labels, -1)
    if output.ndim < 1:
        raise ValueError(f"ops.{name}: output must be at least rank 1; got shape {output.shape}.")
    if axis not in (-1, output.ndim - 1):
        output = shape_ops.moveaxis(output, axis, -1)
    if labels.shape != output.shape[:-1]:
        raise ValueError(
            f"ops.{name}: labels {core.describe(labels)} do not match predictions "
            f"{core.describe(output)} (labels must be shaped like the predictions without "
            "the class axis).")
    num_classes = output.shape[-1]
    if labels._device is not output._device:
        labels = Tensor(output._device.send(labels._value), output._device)
    lv = labels._value

    def check_range(lv):
        if lv.size and (int(lv.max()) >= num_classes or int(lv.min()) < 0):
            raise ValueError(
                f"ops.{name}: labels must be in [0, {num_classes}) for {num_classes} classes; "
                f"got min {int(lv.min())}, max {int(lv.max())}.")
    host_check(check_range, labels)
    if not from_logits:
        probs = ew.divide(output, reduction.sum(output, axis=-1, keepdims=True))
        picked = shape_ops.take_along_axis(_clip_probs(probs), shape_ops.expand_dims(labels, -1),
                                           axis=-1)
        return ew.negative(ew.log(shape_ops.squeeze(picked, -1)))
    return _sparse_softmax_xent(lv, output)


def _sparse_softmax_xent(labels, logits):
    """Fused softmax cross-entropy from logits with integer labels (a raw array)."""
    return SparseSoftmaxXent(labels)(logits)


class SparseSoftmaxXent(Op):
    """`logsumexp(z) - z[label]` over the last axis; the labels (raw ints) are a parameter.

    Keeps the forward's shifted logits and log-sum-exp for its backward, the
    Op `SparseSoftmaxXentGrad`.
    """

    name = "sparse_softmax_cross_entropy"

    def __init__(self, labels):
        self.labels = labels
        self._stats = None

    def forward(self, device, z):
        xp = device.xp
        shifted = z - xp.max(z, axis=-1, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))
        self._stats = (shifted, lse)
        return (lse - xp.take_along_axis(shifted, self.labels[..., None], axis=-1))[..., 0]

    def save(self, inputs, outputs):
        stats, self._stats = self._stats, None
        return inputs[0], stats

    def backward(self, saved, needs, g):
        logits, stats = saved
        return (SparseSoftmaxXentGrad(self.labels, stats)(logits, g),)


class SparseSoftmaxXentGrad(Op):
    """`g * (softmax(z) - one_hot(labels))`, the logits' gradient. Inputs (logits, g).

    First order on raw arrays from the forward's shifted logits and
    log-sum-exp (a parameter); the backward (second order) is written with ops.
    """

    name = "sparse_softmax_cross_entropy_grad"

    def __init__(self, labels, stats):
        self.labels, self.stats = labels, stats

    def forward(self, device, z, g):
        xp = device.xp
        shifted, lse = self.stats
        grad = xp.exp(shifted - lse)
        grad -= _one_hot_raw(xp, self.labels, z.shape[-1], z.dtype)
        grad *= g[..., None]
        return grad

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, gg):
        z, g = saved
        probs = softmax(z, axis=-1)
        onehot = Tensor(_one_hot_raw(z._device.xp, self.labels, z.shape[-1], z._value.dtype),
                        z._device)
        u = ew.multiply(shape_ops.expand_dims(g, -1), gg)
        gz = ew.multiply(probs, ew.subtract(u, reduction.sum(ew.multiply(probs, u), axis=-1,
                                                             keepdims=True)))
        return gz, reduction.sum(ew.multiply(gg, ew.subtract(probs, onehot)), axis=-1)


def _one_hot_raw(xp, labels, num_classes, dtype):
    return (labels[..., None] == xp.arange(num_classes)).astype(dtype)

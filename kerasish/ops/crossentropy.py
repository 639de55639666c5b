"""Cross-entropies with Keras 3 `ops` semantics (no reduction over the batch).

As Keras on TensorFlow, an `output` made by `ops.softmax` or `ops.sigmoid` (the
softmax/sigmoid activations included) is replaced by the logits it was made
from, and the loss is computed from logits: a model ending in
`Dense(..., activation="softmax")` gets the exact log-softmax loss and its
gradient, not the clipped probabilities'. Other probabilities are clipped to
[epsilon, 1 - epsilon] like Keras. From logits,
binary cross-entropy uses the exact `max(x, 0) - x t + log1p(exp(-|x|))` and
the categorical ones a fused log-softmax, so logits of +-1e4 give finite
losses and gradients. The fused ops' gradients are Ops of their own (first
order on raw arrays, second order written with ops).
"""
import warnings

from kerasish.backend.config import is_float
from kerasish.autodiff.capture import host_check
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.backend.kernels import eigen_math
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, float_operand
from kerasish.ops.softmax import log_softmax, softmax
from kerasish.ops.symbolic import keras_op


def _logits_if_known(fn_name, output, from_logits, op_type):
    """Keras-on-TensorFlow's `_get_logits`: (logits, True) when `output` remembers
    the logits it was computed from (a softmax's or sigmoid's output), else
    (output, from_logits). Passing such an output with `from_logits=True` warns
    and still uses its logits, as Keras does."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument '
                      f"was produced by a {op_type} activation and thus does not represent "
                      "logits. Was this intended?", stacklevel=3)
    return logits, True


def _clip_probs(output):
    eps = config.epsilon()
    return ew.clip(output, eps, 1.0 - eps)


def shape_error(template, target_shape, output_shape):
    """A ValueError with Keras's text `template` (fields `{target}` and `{output}`).

    It keeps the template and both shapes in `keras_shapes`, so that `fit` and
    `evaluate` can print the batch dimension of their traced step as Keras does.
    """
    target_shape, output_shape = tuple(target_shape), tuple(output_shape)
    error = ValueError(template.format(target=target_shape, output=output_shape))
    error.keras_shapes = (template, target_shape, output_shape)
    return error


def _check_same_shape(target, output, at_least_rank_1=False):
    # Keras's TensorFlow backend checks, in its order and words
    if at_least_rank_1 and len(target.shape) < 1:
        raise shape_error("Arguments `target` and `output` must be at least rank 1. "
                          "Received: target.shape={target}, output.shape={output}",
                          target.shape, output.shape)
    if len(target.shape) != len(output.shape):
        raise shape_error("Arguments `target` and `output` must have the same rank (ndim). "
                          "Received: target.shape={target}, output.shape={output}",
                          target.shape, output.shape)
    if any(a is not None and b is not None and a != b
           for a, b in zip(target.shape, output.shape)):
        raise shape_error("Arguments `target` and `output` must have the same shape. "
                          "Received: target.shape={target}, output.shape={output}",
                          target.shape, output.shape)


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
    _check_same_shape(target, output)
    output, from_logits = _logits_if_known("binary_crossentropy", output, from_logits,
                                           "Sigmoid")
    if from_logits:
        # tf.nn.sigmoid_cross_entropy_with_logits, written as TensorFlow writes it (so
        # the gradient at 0 is TensorFlow's too)
        x = output
        positive = ew.greater_equal(x, 0.0)
        relu_logits = ew.where(positive, x, 0.0)
        neg_abs_logits = ew.where(positive, ew.negative(x), x)
        return ew.add(ew.subtract(relu_logits, ew.multiply(x, target)),
                      ew.log1p(ew.exp(neg_abs_logits)))
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
    _check_same_shape(target, output, at_least_rank_1=True)
    output, from_logits = _logits_if_known("categorical_crossentropy", output, from_logits,
                                           "Softmax")
    if from_logits:
        return _softmax_xent(target, output, axis)
    probs = ew.divide(output, reduction.sum(output, axis=axis, keepdims=True))
    return ew.negative(reduction.sum(ew.multiply(target, ew.log(_clip_probs(probs))), axis=axis))


def _softmax_xent(target, logits, axis):
    """Fused softmax cross-entropy from logits (soft targets)."""
    return SoftmaxXent(axis)(logits, target)


class SoftmaxXent(Op):
    """`-sum(target * log_softmax(logits))` over `axis`. Inputs (logits, target).

    The forward's log-probabilities and probabilities are kept (on the
    instance, one per call) for the backward, the Op `SoftmaxXentGrad`.
    """

    name = "softmax_cross_entropy"

    def __init__(self, axis):
        self.axis = axis
        self._stats = None

    def compute_output_spec(self, logits, target):
        shape, dtype = logits
        axis = self.axis % len(shape)
        return tuple(shape[:axis]) + tuple(shape[axis + 1:]), dtype

    def forward(self, device, z, t):
        # TensorFlow's kernel, operation for operation (its exp, log and sums).
        xp, axis = device.xp, self.axis % z.ndim
        ordered_sum = device.kernel("ordered_sum")
        shifted = z - xp.max(z, axis=axis, keepdims=True)
        if axis == z.ndim - 1:
            probs, exps = eigen_math.exp_and_row_sum_exp(xp, shifted)
        else:
            probs = exps = eigen_math.exp(xp, shifted)
        sums = ordered_sum(exps, (axis,), keepdims=True)
        log_probs = shifted - eigen_math.log(xp, sums)
        probs /= sums   # the probabilities as TensorFlow's kernel rounds them
        self._stats = (log_probs, probs)
        return -ordered_sum(t * log_probs, (axis,))

    def save(self, inputs, outputs):
        stats, self._stats = self._stats, None
        return inputs[0], inputs[1], stats

    def backward(self, saved, needs, g):
        logits, target, stats = saved
        grads = SoftmaxXentGrad(self.axis, needs[1], stats)(logits, target, g)
        return grads if needs[1] else (grads, None)


class SoftmaxXentGrad(Op):
    """Gradients of `SoftmaxXent`, TensorFlow's rule: `g * (softmax(z) - t)` for the
    logits (TensorFlow's kernel leaves out the factor `sum(t)`, which is 1 for
    one-hot and smoothed labels, so unnormalized targets train as in Keras) and,
    when `need_target`, `-g * log_softmax(z)` for the target. Inputs (logits, target, g).

    First order on raw arrays from the forward's statistics (a parameter); the
    backward (second order) is written with ops.
    """

    name = "softmax_cross_entropy_grad"

    def __init__(self, axis, need_target, stats):
        self.axis, self.need_target, self.stats = axis, need_target, stats

    def forward(self, device, z, t, g):
        xp, axis = device.xp, self.axis
        log_probs, probs = self.stats
        ge = xp.expand_dims(g, axis)
        glogits = ge * (probs - t)
        return (glogits, ge * -log_probs) if self.need_target else glogits

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, grads):
        z, t, g = saved
        axis = self.axis
        g_logits, g_target = grads if self.need_target else (grads, None)
        probs = softmax(z, axis=axis)
        ge = shape_ops.expand_dims(g, axis)
        # glogits = ge * (probs - t)
        u = ew.multiply(ge, g_logits)
        gz = ew.multiply(probs, ew.subtract(u, reduction.sum(ew.multiply(probs, u), axis=axis,
                                                             keepdims=True)))
        gt = ew.negative(u)
        gg = reduction.sum(ew.multiply(g_logits, ew.subtract(probs, t)), axis=axis)
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
    output, from_logits = _logits_if_known(name, output, from_logits, "Softmax")
    if output.__class__ is KerasTensor or labels.__class__ is KerasTensor:
        axis = shape_ops._axis(name, axis, output.ndim)
        return KerasTensor(output.shape[:axis] + output.shape[axis + 1:], output.dtype)
    if is_float(labels._value.dtype):
        host_check(lambda a: core.check_finite_input(name, a), labels)
        labels = core.cast(labels, "int64")
    if labels.ndim == output.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = shape_ops.squeeze(labels, -1)
    if output.ndim < 1:
        raise ValueError("Argument `output` must be at least rank 1. Received: "
                         f"output.shape={tuple(output.shape)}")
    if axis not in (-1, output.ndim - 1):
        output = shape_ops.moveaxis(output, axis, -1)
    # Keras's TensorFlow backend checks, in its order and words
    if labels.ndim != output.ndim - 1:
        raise shape_error("Argument `output` must have rank (ndim) `target.ndim - 1`. "
                          "Received: target.shape={target}, output.shape={output}",
                          labels.shape, output.shape)
    if labels.shape != output.shape[:-1]:
        raise shape_error("Arguments `target` and `output` must have the same shape up until "
                          "the last dimension: target.shape={target}, output.shape={output}",
                          labels.shape, output.shape)
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
        # Keras on TensorFlow: the log of the clipped probabilities are the logits of
        # TensorFlow's sparse softmax kernel (which renormalizes them through its own
        # log-sum-exp; there is no explicit division by the row sums)
        output = ew.log(_clip_probs(output))
    return _sparse_softmax_xent(lv, output)


def _sparse_softmax_xent(labels, logits):
    """Fused softmax cross-entropy from logits with integer labels (a raw array)."""
    return SparseSoftmaxXent(labels)(logits)


class SparseSoftmaxXent(Op):
    """`logsumexp(z) - z[label]` over the last axis; the labels (raw ints) are a parameter.

    Keeps the forward's exponentials (of the shifted logits) and their sums for
    its backward, the Op `SparseSoftmaxXentGrad`.
    """

    name = "sparse_softmax_cross_entropy"

    def __init__(self, labels):
        self.labels = labels
        self._stats = None

    def forward(self, device, z):
        # TensorFlow's kernel, operation for operation (its exp, sums and scalar log).
        xp = device.xp
        shifted = z - xp.max(z, axis=-1, keepdims=True)
        exps, row_exps = eigen_math.exp_and_row_sum_exp(xp, shifted)
        sums = device.kernel("ordered_sum")(row_exps, (z.ndim - 1,), keepdims=True)
        lse = eigen_math.scalar_log(xp, sums)
        self._stats = (exps, sums)
        return lse[..., 0] - device.kernel("take_labels")(shifted, self.labels)

    def save(self, inputs, outputs):
        stats, self._stats = self._stats, None
        return inputs[0], stats

    def backward(self, saved, needs, g):
        logits, stats = saved
        return (SparseSoftmaxXentGrad(self.labels, stats)(logits, g),)


class SparseSoftmaxXentGrad(Op):
    """`g * (softmax(z) - one_hot(labels))`, the logits' gradient. Inputs (logits, g).

    First order on raw arrays from the forward's exponentials and their sums
    (a parameter); the backward (second order) is written with ops.
    """

    name = "sparse_softmax_cross_entropy_grad"

    def __init__(self, labels, stats):
        self.labels, self.stats = labels, stats

    def forward(self, device, z, g):
        exps, sums = self.stats
        grad = exps / sums   # TensorFlow's rounding of the probabilities
        device.kernel("subtract_one_hot")(grad, self.labels)
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

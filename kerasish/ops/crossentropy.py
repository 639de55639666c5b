"""Cross-entropies with Keras 3 `ops` semantics (no reduction over the batch).

Probabilities are clipped to [epsilon, 1 - epsilon] like Keras. From logits,
binary cross-entropy uses the exact `max(x, 0) - x t + log1p(exp(-|x|))` and
the categorical ones a fused log-softmax, so logits of +-1e4 give finite
losses and gradients. The fused ops compute their backward on raw arrays
when no other tape is recording, and with ops otherwise (second order).
"""
from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, float_operand


def _clip_probs(output):
    eps = config.epsilon()
    return ew.clip(output, eps, 1.0 - eps)


def _check_same_shape(name, target, output):
    if target.shape != output.shape:
        raise ValueError(
            f"ops.{name}: `target` and `output` must have the same shape. "
            f"Received: target {core.describe(target)}, output {core.describe(output)}.")


def _watched(t):
    """True when some recording tape could differentiate through `t`."""
    return any(id(t) in tape._watched for tape in _tape._active)


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
    from kerasish.ops.nn import log_softmax, softmax
    xp = logits._device.xp
    z = logits._value
    shifted = z - xp.max(z, axis=axis, keepdims=True)
    log_probs = shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
    loss = Tensor(-xp.sum(target._value * log_probs, axis=axis), logits._device)
    if _tape._active:
        with_target = _watched(target)

        def backward(g):
            ge = shape_ops.expand_dims(g, axis)
            t_sum = reduction.sum(target, axis=axis, keepdims=True)
            if _tape._active:
                probs = softmax(logits, axis=axis)
            else:
                probs = Tensor(xp.exp(log_probs), logits._device)
            glogits = ew.multiply(ge, ew.subtract(ew.multiply(probs, t_sum), target))
            if not with_target:
                return (glogits,)
            return (glogits, ew.multiply(ge, ew.negative(log_softmax(logits, axis=axis))))

        inputs = (logits, target) if with_target else (logits,)
        _tape.record("softmax_cross_entropy", inputs, (loss,), backward)
    return loss


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
    if labels._value.dtype.kind == "f":
        core.check_finite_input(name, labels._value)
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
    lv = core.to_array(labels, output._device)
    if lv.size and (int(lv.max()) >= num_classes or int(lv.min()) < 0):
        raise ValueError(
            f"ops.{name}: labels must be in [0, {num_classes}) for {num_classes} classes; "
            f"got min {int(lv.min())}, max {int(lv.max())}.")
    if not from_logits:
        probs = ew.divide(output, reduction.sum(output, axis=-1, keepdims=True))
        picked = shape_ops.take_along_axis(_clip_probs(probs), lv[..., None], axis=-1)
        return ew.negative(ew.log(shape_ops.squeeze(picked, -1)))
    return _sparse_softmax_xent(lv, output)


def _sparse_softmax_xent(labels, logits):
    """Fused softmax cross-entropy from logits with integer labels."""
    from kerasish.ops.nn import softmax
    xp = logits._device.xp
    z = logits._value
    shifted = z - xp.max(z, axis=-1, keepdims=True)
    lse = xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))
    idx = labels[..., None]
    loss = Tensor((lse - xp.take_along_axis(shifted, idx, axis=-1))[..., 0], logits._device)
    if _tape._active:
        def backward(g):
            onehot = shape_ops.one_hot(Tensor(labels, logits._device), z.shape[-1], dtype=logits.dtype)
            if _tape._active:
                probs = softmax(logits, axis=-1)
                return (ew.multiply(shape_ops.expand_dims(g, -1), ew.subtract(probs, onehot)),)
            grad = xp.exp(shifted - lse)
            grad -= onehot._value
            grad *= g._value[..., None]
            return (Tensor(grad, logits._device),)
        _tape.record("sparse_softmax_cross_entropy", (logits,), (loss,), backward)
    return loss

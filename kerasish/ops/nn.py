"""Neural-network ops: activations, softmax, cross-entropies, moments, fused dense.

Fused ops (dense, cross-entropy from logits) compute their backward on raw
arrays when no other tape is recording (first-order training, the hot
path) and with ops otherwise, so higher-order gradients stay correct.
"""
import math

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor, float_operand


def _activation(name, compute, grad):
    """Builds an activation; `grad(g, x, out)` is written with ops."""
    def op(x):
        x = float_operand(x)
        out = Tensor(compute(x._device.xp, x._value, x), x._device)
        if _tape._active:
            _tape.record(name, (x,), (out,), lambda g: (grad(g, x, out),))
        return out
    op.__name__ = name
    return op


def _mask_grad(cond):
    def grad(g, x, out):
        return ew.multiply(g, core.cast(cond(x), g.dtype))
    return grad


relu = _activation("relu", lambda xp, a, x: xp.maximum(a, 0), _mask_grad(lambda x: ew.greater(x, 0)))
relu6 = _activation("relu6", lambda xp, a, x: xp.clip(a, 0, 6),
                    _mask_grad(lambda x: ew.logical_and(ew.greater(x, 0), ew.less(x, 6))))
sigmoid = _activation(
    "sigmoid", lambda xp, a, x: ew.sigmoid_array(x),
    lambda g, x, o: ew.multiply(g, ew.multiply(o, ew.subtract(1.0, o))))
softsign = _activation(
    "softsign", lambda xp, a, x: a / (1 + xp.abs(a)),
    lambda g, x, o: ew.divide(g, ew.square(ew.add(ew.absolute(x), 1.0))))
hard_sigmoid = _activation(
    "hard_sigmoid", lambda xp, a, x: xp.clip(a / 6.0 + 0.5, 0, 1),
    lambda g, x, o: ew.multiply(g, ew.multiply(core.cast(
        ew.logical_and(ew.greater(x, -3.0), ew.less(x, 3.0)), g.dtype), 1.0 / 6.0)))


def _softplus_array(xp, a, x):
    return xp.logaddexp(a, 0).astype(a.dtype, copy=False)


softplus = _activation("softplus", _softplus_array, lambda g, x, o: ew.multiply(g, sigmoid(x)))
tanh = ew.tanh


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return ew.negative(softplus(ew.negative(x)))


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    x = float_operand(x)
    return ew.multiply(x, sigmoid(x))


swish = silu


def hard_silu(x):
    """x * hard_sigmoid(x)."""
    x = float_operand(x)
    return ew.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def leaky_relu(x, negative_slope=0.2):
    """x if x > 0 else negative_slope * x (Keras default slope 0.2)."""
    x = float_operand(x)
    return ew.where(ew.greater(x, 0), x, ew.multiply(x, negative_slope))


def elu(x, alpha=1.0):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    x = float_operand(x)
    negative_part = ew.multiply(ew.expm1(ew.minimum(x, 0.0)), alpha)
    return ew.where(ew.greater(x, 0), x, negative_part)


def selu(x):
    """Scaled ELU with the self-normalising constants."""
    return ew.multiply(elu(x, alpha=1.6732632423543772), 1.0507009873554805)


def gelu(x, approximate=True):
    """Gaussian error linear unit; `approximate=True` (Keras ops default) uses tanh."""
    x = float_operand(x)
    if approximate:
        inner = ew.multiply(ew.add(x, ew.multiply(ew.power(x, 3), 0.044715)), math.sqrt(2 / math.pi))
        return ew.multiply(ew.multiply(x, 0.5), ew.add(ew.tanh(inner), 1.0))
    return ew.multiply(ew.multiply(x, 0.5), ew.add(ew.erf(ew.divide(x, math.sqrt(2.0))), 1.0))


def mish(x):
    """x * tanh(softplus(x))."""
    x = float_operand(x)
    return ew.multiply(x, ew.tanh(softplus(x)))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`, max-shifted for stability.

    Example:
        >>> ops.softmax(ops.convert_to_tensor([1.0, 1.0]))   # [0.5, 0.5]
    """
    x = float_operand(x)
    xp = x._device.xp
    shifted = x._value - xp.max(x._value, axis=axis, keepdims=True)
    e = xp.exp(shifted)
    out = Tensor(e / xp.sum(e, axis=axis, keepdims=True), x._device)
    if _tape._active:
        def backward(g):
            inner = reduction.sum(ew.multiply(g, out), axis=axis, keepdims=True)
            return (ew.multiply(out, ew.subtract(g, inner)),)
        _tape.record("softmax", (x,), (out,), backward)
    return out


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`."""
    x = float_operand(x)
    xp = x._device.xp
    shifted = x._value - xp.max(x._value, axis=axis, keepdims=True)
    out = Tensor(shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True)), x._device)
    if _tape._active:
        def backward(g):
            total = reduction.sum(g, axis=axis, keepdims=True)
            return (ew.subtract(g, ew.multiply(ew.exp(out), total)),)
        _tape.record("log_softmax", (x,), (out,), backward)
    return out


# Cross-entropies ------------------------------------------------------------
def _clip_probs(output):
    eps = config.epsilon()
    return ew.clip(output, eps, 1.0 - eps)


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy (no reduction), as Keras ops.

    With `from_logits=True` it is `max(x,0) - x*t + log1p(exp(-|x|))`,
    exact for logits of any size (e.g. +-1e4).
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


def _check_same_shape(name, target, output):
    if target.shape != output.shape:
        raise ValueError(
            f"ops.{name}: `target` and `output` must have the same shape. "
            f"Received: target.shape={target.shape}, output.shape={output.shape}"
        )


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy between one-hot/soft targets and predictions, reduced over `axis`."""
    output = float_operand(output)
    target = core.cast(convert_to_tensor(target), output.dtype)
    _check_same_shape("categorical_crossentropy", target, output)
    if from_logits:
        return _softmax_xent(target, output, axis)
    probs = ew.divide(output, reduction.sum(output, axis=axis, keepdims=True))
    return ew.negative(reduction.sum(ew.multiply(target, ew.log(_clip_probs(probs))), axis=axis))


def _softmax_xent(target, logits, axis):
    """Fused softmax cross-entropy from logits (soft targets)."""
    xp = logits._device.xp
    z = logits._value
    shifted = z - xp.max(z, axis=axis, keepdims=True)
    lse = xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
    log_probs = shifted - lse
    loss = Tensor(-xp.sum(target._value * log_probs, axis=axis), logits._device)
    if _tape._active:
        def backward(g):
            ge = shape_ops.expand_dims(g, axis)
            t_sum = reduction.sum(target, axis=axis, keepdims=True)
            if len(_tape._active) == 0:
                probs = Tensor(xp.exp(log_probs), logits._device)
            else:
                probs = softmax(logits, axis=axis)
            glogits = ew.multiply(ge, ew.subtract(ew.multiply(probs, t_sum), target))
            gtarget = ew.multiply(ge, ew.negative(log_softmax(logits, axis=axis)))
            return (gtarget, glogits)
        _tape.record("softmax_cross_entropy", (target, logits), (loss,), backward)
    return loss


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy with integer labels; labels out of range raise a clear error."""
    output = float_operand(output)
    labels = convert_to_tensor(target)
    if labels._value.dtype.kind == "f":
        labels = core.cast(labels, "int64")
    if labels.ndim == output.ndim and labels.shape[-1] == 1:
        labels = shape_ops.squeeze(labels, -1)
    if axis not in (-1, output.ndim - 1):
        output = shape_ops.moveaxis(output, axis, -1)
    if labels.shape != output.shape[:-1]:
        raise ValueError(
            "sparse_categorical_crossentropy: labels of shape "
            f"{labels.shape} do not match predictions of shape {output.shape} "
            "(expected labels shaped like the predictions without the class axis)."
        )
    num_classes = output.shape[-1]
    lv = labels._value
    if lv.size and (int(lv.max()) >= num_classes or int(lv.min()) < 0):
        raise ValueError(
            f"sparse_categorical_crossentropy: labels must be in [0, {num_classes}) for "
            f"{num_classes} classes; got min {int(lv.min())}, max {int(lv.max())}."
        )
    if not from_logits:
        probs = ew.divide(output, reduction.sum(output, axis=-1, keepdims=True))
        picked = shape_ops.take_along_axis(_clip_probs(probs), shape_ops.expand_dims(labels, -1), axis=-1)
        return ew.negative(ew.log(shape_ops.squeeze(picked, -1)))
    return _sparse_softmax_xent(lv, output)


def _sparse_softmax_xent(labels, logits):
    """Fused softmax cross-entropy from logits with integer labels."""
    xp = logits._device.xp
    z = logits._value
    shifted = z - xp.max(z, axis=-1, keepdims=True)
    lse = xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))
    idx = labels[..., None]
    loss = Tensor((lse - xp.take_along_axis(shifted, idx, axis=-1))[..., 0], logits._device)
    if _tape._active:
        def backward(g):
            onehot = shape_ops.one_hot(Tensor(labels, logits._device), z.shape[-1], dtype=logits.dtype)
            if len(_tape._active) == 0:
                probs = Tensor(xp.exp(shifted - lse), logits._device)
            else:
                probs = softmax(logits, axis=-1)
            return (ew.multiply(shape_ops.expand_dims(g, -1), ew.subtract(probs, onehot)),)
        _tape.record("sparse_softmax_cross_entropy", (logits,), (loss,), backward)
    return loss


# Statistics -------------------------------------------------------------------
def moments(x, axes, keepdims=False, synchronized=False):
    """Mean and (biased) variance of `x` over `axes`.

    Returns:
        (mean, variance) tensors.
    """
    x = float_operand(x)
    mean = reduction.mean(x, axis=axes, keepdims=True)
    variance = reduction.mean(ew.square(ew.subtract(x, core.stop_gradient(mean))), axis=axes, keepdims=True)
    variance = ew.subtract(variance, ew.square(ew.subtract(mean, core.stop_gradient(mean))))
    if not keepdims:
        mean = shape_ops.squeeze(mean, axes)
        variance = shape_ops.squeeze(variance, axes)
    return mean, variance


def normalize(x, axis=-1, order=2, epsilon=None):
    """x divided by its `order`-norm along `axis` (Keras ops.normalize)."""
    from kerasish.ops import linalg
    x = float_operand(x)
    eps = config.epsilon() if epsilon is None else epsilon
    if order == 2:
        sq = reduction.sum(ew.square(x), axis=axis, keepdims=True)
        return ew.multiply(x, ew.rsqrt(ew.maximum(sq, eps * eps)))
    norm = linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return ew.divide(x, ew.maximum(norm, eps))


# Fused dense --------------------------------------------------------------------
_FUSED_ACTIVATIONS = ("linear", "relu")


def dense(x, kernel, bias=None, activation=None):
    """`activation(x @ kernel + bias)` in one fused op (relu or linear fused).

    Args:
        x: input of shape (..., in).
        kernel: (in, units).
        bias: (units,) or None.
        activation: None, "linear", "relu", or any callable applied afterwards.

    Returns:
        Tensor of shape (..., units).
    """
    name = activation if isinstance(activation, str) else getattr(activation, "__name__", None)
    fused = name if name in _FUSED_ACTIVATIONS or activation is None else None
    tensors = [x, kernel] + ([bias] if bias is not None else [])
    values, tensors, dev = core.operands("dense", *tensors)
    a, w = values[0], values[1]
    if a.shape[-1] != w.shape[0]:
        raise ValueError(
            f"dense: input last dimension {a.shape[-1]} does not match kernel shape {tuple(w.shape)}."
        )
    xp = dev.xp
    y = a @ w
    if bias is not None:
        y += values[2]
    if fused == "relu":
        xp.maximum(y, 0, out=y)
    out = Tensor(y, dev)
    if _tape._active:
        _tape.record("dense", tuple(tensors), (out,),
                     lambda g: _dense_backward(g, tensors, out, fused == "relu"))
    if fused is None and activation is not None:
        from kerasish import activations
        out = activations.get(activation)(out)
    return out


def _dense_backward(g, tensors, out, relu_fused):
    x, w = tensors[0], tensors[1]
    if _tape._active:  # an outer tape watches: stay in ops for higher order
        gz = ew.multiply(g, core.cast(ew.greater(out, 0), g.dtype)) if relu_fused else g
        units = w.shape[1]
        gz2 = shape_ops.reshape(gz, (-1, units))
        gx = shape_ops.reshape(gz2 @ shape_ops.transpose(w), x.shape)
        gw = shape_ops.transpose(shape_ops.reshape(x, (-1, w.shape[0]))) @ gz2
        grads = [gx, gw]
        if len(tensors) > 2:
            grads.append(reduction.sum(gz2, axis=0))
        return grads
    dev = out._device
    gz = g._value * (out._value > 0) if relu_fused else g._value
    gz2 = gz.reshape(-1, gz.shape[-1])
    x2 = x._value.reshape(-1, x.shape[-1])
    grads = [Tensor((gz2 @ w._value.T).reshape(x.shape), dev), Tensor(x2.T @ gz2, dev)]
    if len(tensors) > 2:
        grads.append(Tensor(gz2.sum(axis=0), dev))
    return grads

"""The fused dense op: `activation(x @ kernel + bias)` as one recorded node.

Its backward runs on raw arrays when no other tape is recording (first-order
training, the hot path) and with ops otherwise, so second-order gradients
through a Dense layer stay correct.
"""
from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops

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

    Example:
        >>> ops.dense(ops.ones((2, 3)), ops.ones((3, 4)), ops.zeros(4), "relu").shape
        (2, 4)
    """
    name = activation if isinstance(activation, str) else getattr(activation, "__name__", None)
    fused = name if name in _FUSED_ACTIVATIONS or activation is None else None
    tensors = [x, kernel] + ([bias] if bias is not None else [])
    values, tensors, dev = core.operands("dense", *tensors)
    a, w = values[0], values[1]
    if w.ndim != 2 or a.ndim < 1 or a.shape[-1] != w.shape[0]:
        raise ValueError(
            f"ops.dense: input {core.describe(a)} does not fit kernel {core.describe(w)} "
            "(the input's last dimension must equal the kernel's first).")
    if bias is not None and tuple(values[2].shape) != (w.shape[1],):
        raise ValueError(f"ops.dense: bias {core.describe(values[2])} must have shape "
                         f"({w.shape[1]},) for kernel {core.describe(w)}.")
    if a.dtype != w.dtype:
        target = core.config.to_numpy_dtype(core.result_dtype(a, w))
        a, w = a.astype(target, copy=False), w.astype(target, copy=False)
    xp = dev.xp
    y = a @ w
    if bias is not None:
        y += values[2]
    if fused == "relu":
        xp.maximum(y, 0, out=y)
    out = Tensor(y, dev)
    if _tape._active:
        need_x = _tape.tracked(tensors[0])
        _tape.record("dense", tuple(tensors), (out,),
                     lambda g: _dense_backward(g, tensors, out, fused == "relu", need_x))
    if fused is None and activation is not None:
        from kerasish import activations
        out = activations.get(activation)(out)
    return out


def _dense_backward(g, tensors, out, relu_fused, need_x=True):
    """Gradients for (x, kernel[, bias]); the input's is skipped when no tape tracks it."""
    x, w = tensors[0], tensors[1]
    if _tape._active:  # an outer tape watches: stay in ops for higher order
        gz = ew.multiply(g, core.cast(ew.greater(out, 0), g.dtype)) if relu_fused else g
        units = w.shape[1]
        gz2 = shape_ops.reshape(gz, (-1, units))
        gx = shape_ops.reshape(gz2 @ shape_ops.transpose(w), x.shape) if need_x else None
        gw = shape_ops.transpose(shape_ops.reshape(x, (-1, w.shape[0]))) @ gz2
        grads = [None if gx is None else ew.fit_gradient(gx, x), ew.fit_gradient(gw, w)]
        if len(tensors) > 2:
            grads.append(ew.fit_gradient(reduction.sum(gz2, axis=0), tensors[2]))
        return grads
    dev = out._device
    gz = g._value * (out._value > 0) if relu_fused else g._value
    gz2 = gz.reshape(-1, gz.shape[-1])
    x2 = x._value.reshape(-1, x.shape[-1])
    gx = Tensor((gz2 @ w._value.T).reshape(x.shape).astype(x._value.dtype, copy=False), dev) \
        if need_x else None
    grads = [gx, Tensor((x2.T @ gz2).astype(w._value.dtype, copy=False), dev)]
    if len(tensors) > 2:
        grads.append(Tensor(gz2.sum(axis=0).astype(tensors[2]._value.dtype, copy=False), dev))
    return grads

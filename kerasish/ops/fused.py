"""The fused dense op: `activation(x @ kernel + bias)` as one recorded node.

`Dense` computes the product, bias and (optionally) relu in one pass; its
backward is the Op `DenseGrad`, whose forward is the fast array code for
all three gradients at once and whose own backward is written with ops, so
second-order gradients through a Dense layer work and each formula exists
once.
"""
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops
from kerasish.ops.symbolic import keras_op

_FUSED_ACTIVATIONS = ("linear", "relu")
# `dense(..., activation=GRAPH_RELU)`: the relu of TensorFlow's fused `MatMul + BiasAdd +
# Relu` (oneDNN) in Keras's compiled functions, which makes a NaN 0 (the eager relu keeps it).
GRAPH_RELU = "graph_relu"


@keras_op
def dense(x, kernel, bias=None, activation=None):
    """`activation(x @ kernel + bias)` in one fused op (relu or linear fused).

    Args:
        x: input of shape (..., in).
        kernel: (in, units).
        bias: (units,) or None.
        activation: None, "linear", "relu", or any callable applied afterwards
            (resolve other names with `keras.activations.get` first).

    Returns:
        Tensor of shape (..., units).

    Example:
        >>> ops.dense(ops.ones((2, 3)), ops.ones((3, 4)), ops.zeros(4), "relu").shape
        (2, 4)
    """
    graph_relu = isinstance(activation, str) and activation == GRAPH_RELU
    relu, after = (True, None) if graph_relu else fused_activation("dense", activation)
    tensors = [x, kernel] + ([bias] if bias is not None else [])
    if KerasTensor in map(type, tensors):
        out = _symbolic_dense(*[core.convert_to_tensor(t) for t in tensors[:2]])
        return out if after is None else after(out)
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
        target = core.result_dtype(a, w)
        tensors[0], tensors[1] = core.cast(tensors[0], target), core.cast(tensors[1], target)
    out = (_DENSE_GRAPH_RELU if graph_relu else _DENSE_RELU if relu else _DENSE)(*tensors)
    return out if after is None else after(out)


def _symbolic_dense(x, w):
    if w.ndim != 2 or x.ndim < 1 or None not in (x.shape[-1], w.shape[0]) and \
            x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"ops.dense: input {core.describe(x)} does not fit kernel {core.describe(w)} "
            "(the input's last dimension must equal the kernel's first).")
    return KerasTensor(tuple(x.shape[:-1]) + (w.shape[1],), result_type(x.dtype, w.dtype))


def fused_activation(op_name, activation):
    """Splits an activation into (fuse a relu?, callable to apply afterwards or None).

    Args:
        op_name: the calling op, for the error message.
        activation: None, "linear", "relu", or a callable (resolve other
            names with `keras.activations.get` first: ops sit below activations).

    Returns:
        (bool, callable or None).
    """
    if activation is None:
        return False, None
    name = activation if isinstance(activation, str) else getattr(activation, "__name__", None)
    if name in _FUSED_ACTIVATIONS:
        return name == "relu", None
    if isinstance(activation, str) or not callable(activation):
        raise ValueError(
            f"ops.{op_name}: activation must be None, 'linear', 'relu' or a callable; "
            f"received {activation!r}. Pass keras.activations.get({activation!r}) instead.")
    return False, activation


class Dense(Op):
    """`x @ w [+ b]`, then relu when `relu`; inputs (x, w[, b]) of one dtype.

    `nan_to_zero`: the relu makes a NaN 0 (`fmax`), as oneDNN's fused relu.
    """

    name = "dense"

    def __init__(self, relu, nan_to_zero=False):
        self.relu, self.nan_to_zero = relu, nan_to_zero

    def forward(self, device, x, w, b=None):
        y = device.kernel("split_matmul")(x, w, kind="nn")
        if y.dtype != x.dtype:  # numpy multiplies bfloat16 into float32: keep the input dtype
            y = y.astype(x.dtype)
        if b is not None:
            y += b
        if self.relu:
            (device.xp.fmax if self.nan_to_zero else device.xp.maximum)(y, 0, out=y)
        return y

    def save(self, inputs, outputs):
        return inputs[0], inputs[1], outputs[0] if self.relu else None, len(inputs) > 2

    def backward(self, saved, needs, g):
        x, w, out, has_bias = saved
        inputs = (g, x, w) if out is None else (g, x, w, out)
        grads = DenseGrad(self.relu, needs[0], has_bias)(*inputs)
        if not needs[0]:
            return (None,) + grads
        return grads

    def compute_output_spec(self, x, w, b=None):
        return tuple(x[0][:-1]) + (w[0][1],), x[1]


_DENSE, _DENSE_RELU, _DENSE_GRAPH_RELU = Dense(False), Dense(True), Dense(True, nan_to_zero=True)


class DenseGrad(Op):
    """The gradients of `Dense` for (x, w[, b]) from (g, x, w[, out]) in one pass.

    Outputs `gx` (only when `need_x`), `gw`, and `gb` (only with a bias). Its
    backward is written with ops (`gz` is `g`, masked by `out > 0` for relu).
    """

    name = "dense_grad"

    def __init__(self, relu, need_x, has_bias):
        self.relu, self.need_x, self.has_bias = relu, need_x, has_bias

    def forward(self, device, g, x, w, out=None):
        gz = g * (out > 0) if self.relu else g
        gz2 = gz.reshape(-1, gz.shape[-1])
        matmul = device.kernel("split_matmul")
        grads = []
        if self.need_x:
            grads.append(matmul(gz2, w.T, kind="nt").reshape(x.shape))
        grads.append(matmul(x.reshape(-1, x.shape[-1]).T, gz2, kind="tn"))
        if self.has_bias:  # TensorFlow's BiasAddGrad: its order, float16 summed in float32
            grads.append(device.kernel("bias_gradient_sum")(gz2))
        return tuple(a if a.dtype == x.dtype else a.astype(x.dtype) for a in grads)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, grads):
        g, x, w = saved[:3]
        units = w.shape[1]
        mask = core.cast(ew.greater(saved[3], 0), g.dtype) if self.relu else None
        gz2 = shape_ops.reshape(g if mask is None else ew.multiply(g, mask), (-1, units))
        x2 = shape_ops.reshape(x, (-1, w.shape[0]))
        grads = list(grads) if self.need_x or self.has_bias else [grads]  # one output: bare
        ggx = shape_ops.reshape(grads.pop(0), (-1, w.shape[0])) if self.need_x else None
        ggw = grads.pop(0)
        ggb = grads.pop(0) if self.has_bias else None
        ggz2 = x2 @ ggw
        if ggx is not None:
            ggz2 = ggz2 + ggx @ w
        if ggb is not None:
            ggz2 = ggz2 + ggb
        ggz = shape_ops.reshape(ggz2, g.shape)
        result = [ew.multiply(ggz, mask) if mask is not None else ggz,
                  shape_ops.reshape(gz2 @ shape_ops.transpose(ggw), x.shape) if needs[1] else None,
                  shape_ops.transpose(ggx) @ gz2 if ggx is not None and needs[2] else None]
        return result + ([None] if self.relu else [])

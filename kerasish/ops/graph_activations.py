"""The activations TensorFlow's graphs fuse into a Dense layer's product and bias.

Inside Keras's compiled functions (`fit`, `evaluate`, `predict`), TensorFlow's
graph rewrite fuses `MatMul + BiasAdd + activation` into one oneDNN kernel
(`_FusedMatMul`), whose sigmoid, tanh, elu and silu are oneDNN's own
approximations, not the Eigen functions the same ops compute eagerly
(`backend/kernels/onednn_math.py`); its relu and relu6 make a NaN 0 (x86's
`max`), where the eager ops keep it. These are those activations: the forward
is oneDNN's (on x86, float32; elsewhere the eager op's), the gradient is the
eager op's (TensorFlow's gradients read the fused output). silu is fused only
where no gradient is recorded (its gradient needs the product, which then has
a second reader), so under a tape it is the eager op.
"""
from kerasish.autodiff import tape as _tape
from kerasish.backend import keras_graph
from kerasish.backend.kernels import eigen_math, onednn_math
from kerasish.ops import core, elementwise as ew, nn
from kerasish.ops.unary import unary


def _onednn_or(name, eager_compute):
    def compute(xp, a, *tensor):
        kernel = onednn_math.eltwise_kernel(xp, a.dtype, name)
        return kernel(a) if kernel is not None else eager_compute(xp, a, *tensor)
    return compute


def _eager_elu(xp, a, x):
    """The eager `ops.elu` (alpha 1) on the raw array: TensorFlow's Elu kernel."""
    return xp.where(a < 0, eigen_math.exp(xp, xp.minimum(a, 0)) - 1, a)


def _elu_grad(g, x, out):
    """TensorFlow's EluGrad: `(out + 1) * g` where the output is negative, else `g`."""
    return ew.where(ew.less(out, 0.0), ew.multiply(ew.add(out, 1.0), g), g)


sigmoid = nn._activation("sigmoid", _onednn_or("sigmoid", nn.sigmoid.op.compute),
                         nn.sigmoid.op.grad, "oneDNN's sigmoid (fused after a Dense product).",
                         keep_logits=True)
tanh = unary("tanh", _onednn_or("tanh", lambda xp, a: ew.tanh.op.compute(xp, a)),
             ew.tanh.op.grad, doc="oneDNN's tanh (fused after a Dense product).")
elu = nn._activation("elu", _onednn_or("elu", _eager_elu), _elu_grad,
                     "oneDNN's elu (fused after a Dense product).")
_silu_forward = nn._activation(
    "silu", _onednn_or("silu", lambda xp, a, x: a * ew.sigmoid_array(x)), None,
    "oneDNN's swish (fused after a Dense product; forward only).")


def silu(x):
    """oneDNN's swish where no gradient is recorded, else the eager `ops.silu`.

    Args:
        x: tensor.

    Returns:
        Tensor of the same shape.

    Example:
        >>> silu(ops.convert_to_tensor([1.0]))   # [0.7311]
    """
    return nn.silu(x) if _tape._active else _silu_forward(x)


def _relu6_grad(g, x, out):
    """TensorFlow's Relu6Grad on the fused output: `g` where `0 < out < 6`, else 0."""
    inside = ew.logical_and(ew.greater(out, 0.0), ew.less(out, 6.0))
    return ew.multiply(g, core.cast(inside, g.dtype))


relu6 = nn._activation(
    "relu6", lambda xp, a, x: xp.minimum(xp.fmax(a, 0), 6).astype(a.dtype, copy=False),
    _relu6_grad, "oneDNN's relu6 (fused after a Dense product; a NaN becomes 0).",
    keep_ints=True)


relu = nn._activation(
    "fused_relu", lambda xp, a, x: xp.fmax(a, 0).astype(a.dtype, copy=False),
    lambda g, x, out: ew.multiply(g, core.cast(ew.greater(out, 0.0), g.dtype)),
    "oneDNN's relu fused after a 2-D/3-D convolution and its bias (a NaN becomes 0).",
    keep_ints=True)


# an activation applied to a Dense output fuses too; silu only without a tape (see silu)
for _name, _fn in (("sigmoid", sigmoid), ("tanh", tanh), ("elu", elu), ("relu6", relu6),
                   ("silu", lambda x: None if _tape._active else _silu_forward(x))):
    keras_graph.register_fused_activation(_name, _fn)

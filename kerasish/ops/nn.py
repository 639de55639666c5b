"""Activations, softmax and log-softmax (Keras `ops` names and defaults).

Cross-entropies, normalisation, attention and the fused dense op live in
their own modules and are re-exported here for `nn.<name>` callers.
"""
import math
import sys

from kerasish.autodiff import capture as _capture, tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import keras_graph
from kerasish.backend.config import finfo
from kerasish.backend.kernels import eigen_math
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops, sorting
from kerasish.ops.core import float_operand
from kerasish.ops.softmax import log_softmax, softmax  # noqa: F401 - re-exported
from kerasish.ops.unary import Unary
from kerasish.ops.symbolic import keras_op


class Activation(Unary):
    """An activation Op: `compute(xp, array, tensor)` forward, `grad(g, x, out)` with ops."""

    def forward(self, device, a):
        return self.compute(device.xp, a, Tensor(a, device))

def _activation(name, compute, grad, doc, keep_ints=False, keep_logits=False, fusable=False):
    """Builds an activation function around an `Activation` Op.

    `keep_ints`: int inputs keep their dtype (Keras's relu/relu6); otherwise
    they become floatx. `keep_logits`: the output remembers its input as
    `_keras_logits`, which the cross-entropies use instead (as Keras on TensorFlow).
    `fusable`: applied to a Dense layer's product plus bias in a compiled step,
    it is TensorFlow's fused version (`keras_graph.fused_activation`).
    """
    the_op = Activation(name, compute, grad)
    vjp = the_op.backward

    def op(x):
        if x.__class__ is KerasTensor:
            return core.symbolic_elementwise(op, (x,), name=name)
        if fusable:
            fused = keras_graph.fused_activation(name, x)
            if fused is not None:
                return fused
        x = core.convert_to_tensor(x) if keep_ints else float_operand(x)
        out = Tensor(compute(x._device.xp, x._value, x), x._device)
        if _tape._active:
            _tape.record_pair(name, vjp, x, None, out)
        if _capture.tracer is not None:
            _capture.hook_pair(lambda xp, a, dev=x._device: compute(xp, a, Tensor(a, dev)),
                               None, x._device, (x,), (x._value,), out)
        if keep_logits:
            out._keras_logits = x
        return out
    op.__name__ = op.__qualname__ = name
    op.op = the_op
    ints = "ints keep their dtype" if keep_ints else "ints become floatx"
    op.__doc__ = (f"{doc}\n\n    Args:\n        x: tensor-like ({ints}).\n\n"
                  f"    Returns:\n        Tensor of the same shape.\n\n"
                  f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([-1.0, 0.0, 2.0]))\n")
    return op


def _mask_grad(cond):
    def grad(g, x, out):
        return ew.multiply(g, core.cast(cond(x), g.dtype))
    return grad


relu = _activation("relu", lambda xp, a, x: xp.maximum(a, 0).astype(a.dtype, copy=False),
                   _mask_grad(lambda x: ew.greater(x, 0)), "max(x, 0); gradient 0 at 0.",
                   keep_ints=True)
relu6 = _activation("relu6", lambda xp, a, x: xp.clip(a, 0, 6).astype(a.dtype, copy=False),
                    _mask_grad(lambda x: ew.logical_and(ew.greater(x, 0), ew.less(x, 6))),
                    "min(max(x, 0), 6).", keep_ints=True, fusable=True)
_SIGMOID_PARTS = ("sigmoid", lambda xp, a, x: ew.sigmoid_array(x),
                  lambda g, x, o: ew.multiply(g, ew.multiply(o, ew.subtract(1.0, o))),
                  "1 / (1 + exp(-x)), computed without overflow.")
sigmoid = _activation(*_SIGMOID_PARTS, keep_logits=True, fusable=True)
_unfused_sigmoid = _activation(*_SIGMOID_PARTS, keep_logits=True)   # inside silu: never fused
softsign = _activation(
    "softsign", lambda xp, a, x: a / (1 + xp.abs(a)),
    lambda g, x, o: ew.divide(g, ew.square(ew.add(ew.absolute(x), 1.0))), "x / (1 + |x|).")
def _hard_sigmoid_grad(g, x, o):
    """TensorFlow's gradient of Keras's `relu6(x + 3) / 6`: `g / 6` where `0 < x + 3 < 6`
    (`g * (1 / 6)` in a compiled function, as the forward)."""
    shifted = ew.add(x, 3.0)
    inside = ew.logical_and(ew.greater(shifted, 0.0), ew.less(shifted, 6.0))
    return ew.divide_operator(ew.multiply(g, core.cast(inside, g.dtype)), 6.0)


def _hard_sigmoid(xp, a, x):
    """Keras's formula (and its roundings): relu6(x + 3) / 6, not x / 6 + 0.5; inside
    Keras's compiled functions TensorFlow's constant folding makes the `/ 6` a `* (1/6)`."""
    shifted = xp.clip(a + a.dtype.type(3), 0, 6).astype(a.dtype, copy=False)
    if keras_graph.active():
        return shifted * (a.dtype.type(1) / a.dtype.type(6))
    return shifted / a.dtype.type(6)


hard_sigmoid = _activation("hard_sigmoid", _hard_sigmoid, _hard_sigmoid_grad,
                           "relu6(x + 3) / 6.")
def _softplus(xp, a, x):
    """TensorFlow's Softplus kernel: x above -t, exp(x) below t, else log1p(exp(x)),
    t = log(epsilon) + 2 in the input's dtype (-13.94 for float32)."""
    t = xp.log(xp.asarray(finfo(a.dtype).eps, a.dtype)) + xp.asarray(2, a.dtype)
    e = eigen_math.exp(xp, xp.minimum(a, -t))   # values above -t are not used: no overflow
    return xp.where(a > -t, a, xp.where(a < t, e, eigen_math.log1p(xp, e)))


def _softplus_grad(g, x, o):
    """TensorFlow's SoftplusGrad, `g / (exp(-x) + 1)`, for float32 (its exp clamps
    the argument at 88.723 itself, so clamping first changes nothing and avoids
    the overflow); `g * sigmoid(x)` for other dtypes."""
    if x.dtype != "float32":
        return ew.multiply(g, sigmoid(x))
    return ew.divide(g, ew.add(ew.exp(ew.minimum(ew.negative(x), 88.723)), 1.0))


softplus = _activation(
    "softplus", _softplus, _softplus_grad,
    "log(1 + exp(x)), stable for large |x| (TensorFlow's kernel and gradient).")
tanh = ew.tanh


@keras_op
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|.

    Example:
        >>> ops.log_sigmoid(ops.convert_to_tensor([0.0]))   # [-0.6931]
    """
    return ew.negative(softplus(ew.negative(float_operand(x))))


@keras_op
def silu(x):
    """x * sigmoid(x) (also called swish).

    Example:
        >>> ops.silu(ops.convert_to_tensor([0.0, 1.0]))   # [0., 0.7311]
    """
    fused = keras_graph.fused_activation("silu", x)
    if fused is not None:
        return fused
    return _silu(float_operand(x))


def _silu_grad(g, x, o):
    """TensorFlow's `tf.nn.silu` gradient: `g * (s * (1 + x * (1 - s)))`, `s` recomputed."""
    s = _unfused_sigmoid(x)
    return ew.multiply(g, ew.multiply(s, ew.add(1.0, ew.multiply(x, ew.subtract(1.0, s)))))


_silu = _activation("silu", lambda xp, a, x: a * ew.sigmoid_array(x), _silu_grad,
                    "x * sigmoid(x) with TensorFlow's gradient.")


swish = silu


@keras_op
def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard_swish).

    Example:
        >>> ops.hard_silu(ops.convert_to_tensor([3.0]))   # [3.]
    """
    x = float_operand(x)
    if keras_graph.active() and x.__class__ is not KerasTensor:
        # TensorFlow's graph rewrites `x * (relu6(x + 3) * (1/6))` (the division by 6
        # folded into a product) into `(x * (1/6)) * relu6(x + 3)` (checked against it)
        sixth = x._value.dtype.type(1) / x._value.dtype.type(6)
        return ew.multiply(ew.multiply(x, sixth), relu6(ew.add(x, 3.0)))
    return ew.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


@keras_op
def leaky_relu(x, negative_slope=0.2):
    """x if x > 0 else negative_slope * x (Keras default slope 0.2).

    Example:
        >>> ops.leaky_relu(ops.convert_to_tensor([-1.0, 2.0]))   # [-0.2, 2.]
    """
    x = float_operand(x)
    return ew.where(ew.greater(x, 0), x, ew.multiply(x, negative_slope))


@keras_op
def elu(x, alpha=1.0):
    """x if x > 0 else alpha * (exp(x) - 1).

    Example:
        >>> ops.elu(ops.convert_to_tensor([-1.0, 2.0]))   # [-0.6321, 2.]
    """
    fused = keras_graph.fused_activation("elu", x) if alpha == 1 else None
    if fused is not None:
        return fused
    x = float_operand(x)
    # TensorFlow's Elu kernel: exp(x) - 1 below zero; Keras scales that by alpha.
    negative_part = ew.subtract(ew.exp(ew.minimum(x, 0.0)), 1.0)
    if alpha != 1:
        negative_part = ew.multiply(negative_part, alpha)
    return ew.where(ew.less(x, 0), negative_part, x)


@keras_op
def selu(x):
    """Scaled ELU with the self-normalising constants.

    Example:
        >>> ops.selu(ops.convert_to_tensor([1.0]))   # [1.0507]
    """
    x = float_operand(x)
    # TensorFlow's Selu kernel: scale * alpha * (exp(x) - 1) below zero, with the
    # product scale * alpha as one constant.
    negative_part = ew.multiply(ew.subtract(ew.exp(ew.minimum(x, 0.0)), 1.0),
                                1.7580993408473768599402175208123)
    return ew.where(ew.less(x, 0), negative_part, ew.multiply(x, 1.0507009873554804934193349852946))


@keras_op
def celu(x, alpha=1.0):
    """max(x, 0) + min(0, alpha * (exp(x / alpha) - 1)).

    Example:
        >>> ops.celu(ops.convert_to_tensor([-1.0, 2.0]))   # [-0.6321, 2.]
    """
    x = float_operand(x)
    negative_part = ew.multiply(ew.expm1(ew.divide(ew.minimum(x, 0.0), alpha)), alpha)
    return ew.add(relu(x), negative_part)


@keras_op
def gelu(x, approximate=True):
    """Gaussian error linear unit; `approximate=True` (Keras ops default) uses tanh.

    Example:
        >>> ops.gelu(ops.convert_to_tensor([1.0]))   # [0.8412]
    """
    x = float_operand(x)
    if approximate:
        inner = ew.multiply(ew.add(x, ew.multiply(ew.power(x, 3), 0.044715)), math.sqrt(2 / math.pi))
        return ew.multiply(ew.multiply(x, 0.5), ew.add(ew.tanh(inner), 1.0))
    # TensorFlow's formula, op for op (the roundings matter in float16)
    return ew.multiply(ew.multiply(0.5, x),
                       ew.erfc(ew.multiply(ew.negative(x), 0.7071067811865476)))


@keras_op
def glu(x, axis=-1):
    """Gated linear unit: a * sigmoid(b) where a, b are the halves of `x` along `axis`.

    Example:
        >>> ops.glu(ops.ones((2, 4))).shape
        (2, 2)
    """
    x = float_operand(x)
    if x.shape[axis] % 2:
        raise ValueError(f"ops.glu: axis {axis} of shape {x.shape} must have an even size.")
    a, b = shape_ops.split(x, 2, axis=axis)
    return ew.multiply(a, sigmoid(b))


@keras_op
def mish(x):
    """x * tanh(softplus(x)).

    Example:
        >>> ops.mish(ops.convert_to_tensor([1.0]))   # [0.8651]
    """
    x = float_operand(x)
    return ew.multiply(x, ew.tanh(softplus(x)))


@keras_op
def hard_tanh(x):
    """clip(x, -1, 1).

    Example:
        >>> ops.hard_tanh(ops.convert_to_tensor([-2.0, 0.5]))   # [-1., 0.5]
    """
    return ew.clip(float_operand(x), -1.0, 1.0)


@keras_op
def tanh_shrink(x):
    """x - tanh(x).

    Example:
        >>> ops.tanh_shrink(ops.convert_to_tensor([0.0]))   # [0.]
    """
    x = float_operand(x)
    return ew.subtract(x, ew.tanh(x))


@keras_op
def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0.

    Example:
        >>> ops.hard_shrink(ops.convert_to_tensor([-1.0, 0.2]))   # [-1., 0.]
    """
    x = float_operand(x)
    return ew.where(ew.greater(ew.absolute(x), threshold), x, 0.0)


@keras_op
def soft_shrink(x, threshold=0.5):
    """x - threshold above it, x + threshold below -threshold, 0 between.

    Example:
        >>> ops.soft_shrink(ops.convert_to_tensor([-1.0, 0.2, 1.0]))   # [-0.5, 0., 0.5]
    """
    x = float_operand(x)
    return ew.where(ew.greater(x, threshold), ew.subtract(x, threshold),
                    ew.where(ew.less(x, -threshold), ew.add(x, threshold), 0.0))


@keras_op
def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2, a smooth relu.

    Example:
        >>> ops.squareplus(ops.convert_to_tensor([0.0]))   # [1.]
    """
    x = float_operand(x)
    return ew.multiply(ew.add(x, ew.sqrt(ew.add(ew.square(x), float(b)))), 0.5)


@keras_op
def sparse_plus(x):
    """0 for x <= -1, x for x >= 1, (x + 1)^2 / 4 between.

    Example:
        >>> ops.sparse_plus(ops.convert_to_tensor([-2.0, 0.0, 2.0]))   # [0., 0.25, 2.]
    """
    x = float_operand(x)
    middle = ew.multiply(ew.square(ew.add(x, 1.0)), 0.25)
    return ew.where(ew.less_equal(x, -1.0), 0.0, ew.where(ew.greater_equal(x, 1.0), x, middle))


@keras_op
def threshold(x, threshold, default_value):
    """x where x > threshold, else `default_value`.

    Example:
        >>> ops.threshold(ops.convert_to_tensor([0.5, 2.0]), 1.0, 0.0)   # [0., 2.]
    """
    x = float_operand(x)
    return ew.where(ew.greater(x, threshold), x, default_value)


@keras_op
def sparsemax(x, axis=-1):
    """Keras's sparsemax: `max(x - tau, 0)` along `axis`, with Keras's `tau`.

    Keras 3.15.1 (every backend) takes `tau = (sum of the cumulative sums of
    the sorted values over the support - 1) / k` rather than the paper's
    `(cumulative sum at k - 1) / k`; the two agree only when the support has
    one element, so with a larger support the slices do not sum to 1
    (`[1.0, 1.5]` gives `[0., 0.]`). kerasish computes Keras's formula, step
    by step as Keras, to give the same numbers.

    Example:
        >>> ops.sparsemax(ops.convert_to_tensor([1.0, 3.0]))   # [0., 1.]
    """
    x = float_operand(x)
    if x.__class__ is KerasTensor:
        shape_ops._axis("sparsemax", axis, x.ndim)
        return KerasTensor(x.shape, x.dtype)
    z = shape_ops.moveaxis(x, axis, -1)
    ordered = ew.negative(sorting.sort(ew.negative(z), axis=-1))
    n = z.shape[-1]
    ranks = core.convert_to_tensor(list(range(1, n + 1)), dtype=x.dtype)
    cumulative = reduction.cumsum(ordered, axis=-1)
    support = ew.greater(ew.subtract(ordered, ew.divide(ew.subtract(cumulative, 1.0), ranks)), 0.0)
    k = reduction.sum(core.cast(support, x.dtype), axis=-1, keepdims=True)
    kept = ew.where(support, cumulative, 0.0)
    tau = ew.divide(ew.subtract(reduction.sum(kept, axis=-1, keepdims=True), 1.0), k)
    return shape_ops.moveaxis(ew.maximum(ew.subtract(z, tau), 0.0), -1, axis)


# Re-exports (see the module docstring).
from kerasish.ops.crossentropy import (binary_crossentropy,  # noqa: E402,F401
                                       categorical_crossentropy,
                                       sparse_categorical_crossentropy)
from kerasish.ops.fused import dense  # noqa: E402,F401
from kerasish.ops.stats import (batch_normalization,  # noqa: E402,F401
                                        layer_normalization, moments, normalize,
                                        rms_normalization)


# `keras.ops.nn` is a Keras namespace too: its names that live elsewhere in kerasish.ops are
# looked up there on access (so this module serves as the namespace without copies).
_KERAS_NAMES = frozenset((
    'adaptive_average_pool', 'adaptive_max_pool', 'average_pool', 'batch_normalization',
    'binary_crossentropy', 'categorical_crossentropy', 'celu', 'conv', 'conv_transpose',
    'ctc_decode', 'ctc_loss', 'depth_to_space', 'depthwise_conv', 'dot_product_attention',
    'elu', 'fold', 'gelu', 'glu', 'hard_shrink', 'hard_sigmoid', 'hard_silu', 'hard_swish',
    'hard_tanh', 'layer_normalization', 'leaky_relu', 'log_sigmoid', 'log_softmax',
    'max_pool', 'moments', 'multi_hot', 'normalize', 'one_hot', 'polar', 'psnr', 'relu',
    'relu6', 'rms_normalization', 'selu', 'separable_conv', 'sigmoid', 'silu',
    'soft_shrink', 'softmax', 'softplus', 'softsign', 'space_to_depth',
    'sparse_categorical_crossentropy', 'sparse_plus', 'sparse_sigmoid', 'sparsemax',
    'squareplus', 'swish', 'tanh_shrink', 'threshold', 'unfold'
))


def __getattr__(name):
    flat = sys.modules["kerasish.ops"]
    if name in _KERAS_NAMES and name != "__getattr__" and hasattr(flat, name):
        return getattr(flat, name)
    raise AttributeError(f"module 'kerasish.ops.nn' has no attribute {name!r}")

"""One-argument elementwise math: exp, log, sqrt, trigonometry, rounding, tests.

Float-only functions turn int/bool inputs into `floatx()` first (Keras:
`ops.exp(int32) -> float32`). Each derivative is written with ops, so it can
be differentiated again. `elementwise` is imported at the bottom (it
re-exports these names), which keeps the two modules importable in any order.
"""
import math

from kerasish.autodiff import capture as _capture, tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import keras_graph
from kerasish.backend.config import is_inexact
from kerasish.backend.kernels import eigen_math, eigen_trig
from kerasish.ops import core
from kerasish.ops.core import convert_to_tensor, float_operand
from kerasish.ops.symbolic import keras_op


class Unary(Op):
    """A one-input elementwise Op: `compute(xp, array)` forward, `grad(g, x, out)` backward.

    Saves `(None, None, x, None, out)` (the pair layout of `record_pair`).
    """

    elementwise = True  # shaped like its (broadcast) inputs

    def __init__(self, name, compute, grad=None):
        self.name, self.compute, self.grad = name, compute, grad
        self.differentiable = grad is not None

    def forward(self, device, a):
        return self.compute(device.xp, a)

    def save(self, inputs, outputs):
        return None, None, inputs[0], None, outputs[0]

    def backward(self, saved, needs, g):
        return (self.grad(g, saved[2], saved[4]),)


def unary(name, compute, grad=None, float_only=True, doc=None, fusable=False):
    """Builds a unary op function around a `Unary` Op.

    Args:
        name: the op's public name.
        compute: fn(xp, array) -> array.
        grad: fn(g, x, out) -> input gradient, written with ops (None: no gradient).
        float_only: cast int/bool inputs to floatx first.
        doc: the docstring.
        fusable: applied to a Dense layer's product plus bias in a compiled step,
            it is TensorFlow's fused version (`keras_graph.fused_activation`).

    Returns:
        the op function `op(x)` (its Op is `op.op`).
    """
    the_op = Unary(name, compute, grad)
    differentiable, vjp = grad is not None, the_op.backward

    def op(x):
        if fusable:
            fused = keras_graph.fused_activation(name, x)
            if fused is not None:
                return fused
        if not isinstance(x, Tensor) or (float_only and not is_inexact(x._value.dtype)):
            if x.__class__ is KerasTensor:
                return core.symbolic_elementwise(op, (x,), name=name)
            x = float_operand(x) if float_only else convert_to_tensor(x)
        out = Tensor(compute(x._device.xp, x._value), x._device)
        if _tape._active and differentiable:
            _tape.record_pair(name, vjp, x, None, out)
        if _capture.tracer is not None:
            _capture.hook_pair(compute, None, x._device, (x,), (x._value,), out)
        return out
    op.__name__ = op.__qualname__ = name
    op.op = the_op
    op.__doc__ = doc or (
        f"Elementwise `{name}` (Keras `ops.{name}`).\n\n"
        "    Args:\n        x: tensor-like.\n\n"
        "    Returns:\n        Tensor of the same shape.\n\n"
        f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([0.5, 1.0]))\n")
    return op


def _times(factor):
    """Gradient `g * factor(x, out)`."""
    return lambda g, x, o: ew.multiply(g, factor(x, o))


negative = unary("negative", lambda xp, a: xp.negative(a),
                 lambda g, x, o: negative(g), float_only=False)
absolute = unary("absolute", lambda xp, a: xp.abs(a), _times(lambda x, o: sign(x)), False)
abs = absolute  # noqa: A001 - Keras exports ops.abs
sign = unary("sign", lambda xp, a: xp.sign(a), None, False)
square = unary("square", lambda xp, a: xp.square(a if a.dtype.kind != "b" else a.astype("int32")),
               _times(lambda x, o: ew.multiply(x, 2.0)), False)
exp = unary("exp", eigen_math.exp, _times(lambda x, o: o))   # TensorFlow's float32 values
exp2 = unary("exp2", lambda xp, a: xp.exp2(a), _times(lambda x, o: ew.multiply(o, math.log(2.0))))
expm1 = unary("expm1", lambda xp, a: xp.expm1(a), _times(lambda x, o: ew.add(o, 1.0)))
log = unary("log", eigen_math.log, lambda g, x, o: ew.divide(g, x))   # TensorFlow's float32 values
log1p = unary("log1p", eigen_math.log1p, lambda g, x, o: ew.divide(g, ew.add(x, 1.0)))
log2 = unary("log2", lambda xp, a: xp.log2(a),
             lambda g, x, o: ew.divide(g, ew.multiply(x, math.log(2.0))))
log10 = unary("log10", lambda xp, a: xp.log10(a),
              lambda g, x, o: ew.divide(g, ew.multiply(x, math.log(10.0))))
sqrt = unary("sqrt", lambda xp, a: xp.sqrt(a), lambda g, x, o: ew.divide(g, ew.multiply(o, 2.0)))
rsqrt = unary("rsqrt", lambda xp, a: xp.reciprocal(xp.sqrt(a)),
              _times(lambda x, o: ew.multiply(ew.multiply(o, ew.multiply(o, o)), -0.5)))
cbrt = unary("cbrt", lambda xp, a: xp.cbrt(a),
             lambda g, x, o: ew.divide(g, ew.multiply(square(o), 3.0)))
reciprocal = unary("reciprocal", lambda xp, a: xp.reciprocal(a), lambda g, x, o: negative(ew.multiply(g, square(o))))
sin = unary("sin", eigen_math.sin, _times(lambda x, o: cos(x)))   # TensorFlow's float32 values
cos = unary("cos", eigen_math.cos, lambda g, x, o: negative(ew.multiply(g, sin(x))))
tan = unary("tan", eigen_trig.glibc_float("tanf", "tan"),   # TF's float32 values: glibc's
            _times(lambda x, o: ew.add(square(o), 1.0)))
sinh = unary("sinh", eigen_trig.glibc_float("sinhf", "sinh"), _times(lambda x, o: cosh(x)))
cosh = unary("cosh", eigen_trig.glibc_float("coshf", "cosh"), _times(lambda x, o: sinh(x)))
tanh = unary("tanh", eigen_math.tanh, _times(lambda x, o: ew.subtract(1.0, square(o))),
             fusable=True)
arcsin = unary("arcsin", lambda xp, a: xp.arcsin(a),
               lambda g, x, o: ew.divide(g, sqrt(ew.subtract(1.0, square(x)))))
arccos = unary("arccos", lambda xp, a: xp.arccos(a),
               lambda g, x, o: negative(ew.divide(g, sqrt(ew.subtract(1.0, square(x))))))
arctan = unary("arctan", lambda xp, a: xp.arctan(a),
               lambda g, x, o: ew.divide(g, ew.add(square(x), 1.0)))
arcsinh = unary("arcsinh", eigen_trig.glibc_float("asinhf", "arcsinh"),
                lambda g, x, o: ew.divide(g, sqrt(ew.add(square(x), 1.0))))
arccosh = unary("arccosh", eigen_trig.glibc_float("acoshf", "arccosh"),
                lambda g, x, o: ew.divide(g, sqrt(ew.subtract(square(x), 1.0))))
arctanh = unary("arctanh", lambda xp, a: xp.arctanh(a),
                lambda g, x, o: ew.divide(g, ew.subtract(1.0, square(x))))
deg2rad = unary("deg2rad", lambda xp, a: xp.deg2rad(a), _times(lambda x, o: math.pi / 180.0))
rad2deg = unary("rad2deg", lambda xp, a: xp.rad2deg(a), _times(lambda x, o: 180.0 / math.pi))
floor = unary("floor", lambda xp, a: xp.floor(a))
ceil = unary("ceil", lambda xp, a: xp.ceil(a))
trunc = unary("trunc", lambda xp, a: a if a.dtype.kind in "iub" else xp.trunc(a), float_only=False)
isnan = unary("isnan", lambda xp, a: xp.isnan(a), float_only=False)
isinf = unary("isinf", lambda xp, a: xp.isinf(a), float_only=False)
isfinite = unary("isfinite", lambda xp, a: xp.isfinite(a), float_only=False)
isposinf = unary("isposinf", lambda xp, a: xp.isposinf(a), float_only=False)
isneginf = unary("isneginf", lambda xp, a: xp.isneginf(a), float_only=False)
signbit = unary("signbit", lambda xp, a: xp.signbit(a), float_only=False)
logical_not = unary("logical_not", lambda xp, a: xp.logical_not(a), float_only=False)
copy = unary("copy", lambda xp, a: a.copy(), lambda g, x, o: g, float_only=False)
real = unary("real", lambda xp, a: xp.real(a), lambda g, x, o: g, float_only=False)
conjugate = unary("conjugate", lambda xp, a: xp.conjugate(a), lambda g, x, o: g, float_only=False)
conj = conjugate
imag = unary("imag", lambda xp, a: xp.zeros_like(a) if a.dtype.kind != "c" else xp.imag(a),
             float_only=False)


def _special(fname):
    """scipy.special.<fname> on CPU, cupyx.scipy.special.<fname> on GPU."""
    def compute(xp, a):
        if xp.__name__ == "numpy":
            from scipy import special
        else:  # pragma: no cover - GPU only
            import cupyx.scipy.special as special
        return getattr(special, fname)(a).astype(a.dtype, copy=False)
    return compute


erf = unary("erf", _special("erf"),
            _times(lambda x, o: ew.multiply(exp(negative(square(x))), 2.0 / math.sqrt(math.pi))))
# TensorFlow's gradient order: (g * -2/sqrt(pi)) * exp(-x^2) (it matters in float16)
erfc = unary("erfc", _special("erfc"), lambda g, x, o: ew.multiply(
    ew.multiply(g, -2.0 / math.sqrt(math.pi)), exp(negative(square(x)))),
    doc="Complementary error function `1 - erf(x)`, computed directly (Keras `ops.erfc`).\n\n"
        "    Example:\n        >>> ops.erfc(ops.zeros(1))   # [1.]\n")
erfinv = unary("erfinv", _special("erfinv"),
               _times(lambda x, o: ew.multiply(exp(square(o)), math.sqrt(math.pi) / 2.0)))


@keras_op
def round(x, decimals=0):  # noqa: A001 - Keras exports ops.round
    """Rounds half to even (like numpy and Keras); no gradient.

    Args:
        x: tensor-like.
        decimals: number of decimals.

    Returns:
        Tensor of the same dtype.

    Example:
        >>> ops.round(ops.convert_to_tensor([0.5, 1.5, 2.25]))   # [0., 2., 2.]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor(x.shape, x.dtype)
    return Tensor(x._device.xp.round(x._value, decimals), x._device)


@keras_op
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN and infinities with finite numbers (gradient passes where finite).

    Args:
        x: tensor-like.
        nan: value for NaN.
        posinf, neginf: values for +-inf (dtype max/min if None).

    Returns:
        Tensor.

    Example:
        >>> ops.nan_to_num(ops.convert_to_tensor([float("nan"), 1.0]))   # [0., 1.]
    """
    return NanToNum(nan, posinf, neginf)(convert_to_tensor(x))


class NanToNum(Op):
    """numpy.nan_to_num; the gradient passes where the input is finite."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "nan_to_num"

    def __init__(self, nan, posinf, neginf):
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def forward(self, device, x):
        return device.xp.nan_to_num(x, nan=self.nan, posinf=self.posinf, neginf=self.neginf)

    def save(self, inputs, outputs):
        return (inputs[0],)

    def backward(self, saved, needs, g):
        return (ew.where(isfinite(saved[0]), g, ew.multiply(g, 0.0)),)


def sigmoid_array(x_tensor):
    """Raw stable sigmoid of a tensor's array via the device kernel."""
    return x_tensor._device.kernel("sigmoid")(x_tensor._value)


from kerasish.ops import elementwise as ew  # noqa: E402 - see the module docstring

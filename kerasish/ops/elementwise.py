"""Binary elementwise math and comparisons with broadcasting (Keras `ops` names).

Inputs are promoted with Keras's rules (`core.promote`), so
`int32 + float32 -> float32` and `int32 / int32 -> float32`. Each
differentiable op states its derivative with ops, so gradients of gradients
work. Broadcast inputs get their gradient summed back to their own shape by
`unbroadcast`. One-argument math lives in `unary.py`.
"""
import numpy as np

from kerasish.backend.config import is_inexact
from kerasish.backend.kernels import eigen_math
from kerasish.autodiff import capture as _capture, tape as _tape
from kerasish.autodiff.keras_tensor import KerasTensor, in_trace
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config, keras_graph
from kerasish.backend.kernels import eigen_math
from kerasish.backend.dtypes import result_type
from kerasish.ops import core
from kerasish.ops.core import convert_to_tensor, operands, promote
from kerasish.ops.symbolic import keras_op


def unbroadcast(g, shape):
    """Sums `g` over the axes that broadcasting added to reach `g.shape` from `shape`.

    Args:
        g: a gradient Tensor.
        shape: the shape of the input it belongs to.

    Returns:
        Tensor of `shape`.
    """
    shape = tuple(shape)
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    axes = list(range(extra))
    axes += [extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1]
    if axes:
        g = reduction.sum(g, axis=tuple(axes), keepdims=True)
    return shape_ops.reshape(g, shape)


def fit_gradient(g, t):
    """`g` summed to `t`'s shape and cast to `t`'s dtype.

    Args:
        g: a gradient Tensor.
        t: the input Tensor it belongs to.

    Returns:
        Tensor with `t`'s shape and dtype.
    """
    gv, tv = g._value, t._value
    if gv.shape == tv.shape and gv.dtype == tv.dtype:
        return g
    g = unbroadcast(g, tv.shape)
    if g._value.dtype != tv.dtype:
        g = core.cast(g, tv.dtype)
    return g


class InvalidArgumentError(ValueError):
    """TensorFlow's `InvalidArgumentError`, which its eager kernels raise on operands whose
    shapes do not broadcast (a ValueError here, so `except ValueError` still catches it)."""


# TensorFlow's kernel behind each binary op (Keras's TensorFlow backend), for its message
_TF_KERNELS = {"add": "AddV2", "subtract": "Sub", "multiply": "Mul", "divide": "RealDiv",
               "maximum": "Maximum", "minimum": "Minimum", "power": "Pow", "equal": "Equal",
               "not_equal": "NotEqual", "less": "Less", "less_equal": "LessEqual",
               "greater": "Greater", "greater_equal": "GreaterEqual",
               "floor_divide": "FloorDiv", "mod": "FloorMod", "logical_and": "LogicalAnd",
               "logical_or": "LogicalOr", "arctan2": "Atan2"}


def _binary_error(name, a, b, err):
    kernel = _TF_KERNELS.get(name)
    if kernel is not None and not keras_graph.active() and not isinstance(err, TypeError):
        # TensorFlow's eager texts, e.g. "... Incompatible shapes: [6] vs. [6,4] [Op:Mul] name: "
        device = getattr(a, "_device", None) or getattr(b, "_device", None)
        where = "GPU:0" if device is not None and device.xp is not np else "CPU:0"
        try:
            np.broadcast_shapes(np.shape(a), np.shape(b))
            reason = ("Integers to negative integer powers are not allowed"
                      if "negative integer powers" in str(err) else None)
        except ValueError:
            reason = "Incompatible shapes: " + " vs. ".join(
                "[" + ",".join(str(d) for d in np.shape(x)) + "]" for x in (a, b))
        if reason is not None:
            return InvalidArgumentError(
                f"{{{{function_node __wrapped__{kernel}_device_/job:localhost/replica:0/task:0/"
                f"device:{where}}}}} {reason} [Op:{kernel}] name: ")
    return ValueError(
        f"ops.{name}: cannot combine inputs with {core.describe(a, b)} "
        f"(shapes must broadcast; numpy says: {err}).")


class Binary(Op):
    """A broadcasting two-input Op: `compute(xp, a, b)` forward, one gradient rule per input.

    `grad_x1(g, x1, x2, out)` / `grad_x2(...)` give the gradient before it is
    summed back to the input's shape (`fit_gradient`). Saves
    `(x1, x2, t1, t2, out)`: the operands (Tensors, or Python scalars) and
    the input Tensors (None for a scalar), the layout of `record_pair`;
    `needs` has one entry per operand, a Python scalar's being False.
    """

    elementwise = True  # shaped like its (broadcast) inputs

    def __init__(self, name, compute, grad_x1=None, grad_x2=None):
        self.name, self.compute = name, compute
        self.grad_x1, self.grad_x2 = grad_x1, grad_x2
        self.differentiable = grad_x1 is not None

    def forward(self, device, a, b):
        return self.compute(device.xp, a, b)

    def save(self, inputs, outputs):
        return inputs[0], inputs[1], inputs[0], inputs[1], outputs[0]

    def backward(self, saved, needs, g):
        x1, x2, t1, t2, out = saved
        g1 = fit_gradient(self.grad_x1(g, x1, x2, out), t1) if needs[0] else None
        g2 = fit_gradient(self.grad_x2(g, x1, x2, out), t2) if needs[1] else None
        if t1 is None:
            return (g2,)
        return (g1,) if t2 is None else (g1, g2)


class Add(Binary):
    """`add`, whose bias-like second operand sums its gradient as TensorFlow's `BiasAddGrad`.

    Keras on TensorFlow runs `ops.add(x, b)` as `tf.nn.bias_add` when `b`
    squeezes to a vector as long as `x`'s last (or second) axis; that
    gradient adds rows in its own order (not reduce_sum's) and accumulates
    float16 in float32 before rounding, so Conv biases (and mixed-precision
    ones) train to the same numbers. The `+` operator is a plain add
    (`add_operator`), as on TensorFlow's tensors.
    """

    def backward(self, saved, needs, g):
        x1, x2, t1, t2, out = saved
        axis = _bias_add_axis(t1, t2) if needs[1] and t1 is not None else None
        if axis is None or not is_inexact(g._value.dtype):
            return super().backward(saved, needs, g)
        g2 = fit_gradient(shape_ops.reshape(BiasAddGrad(axis)(g), t2.shape), t2)
        return (fit_gradient(g, t1) if needs[0] else None, g2)


class BiasAddGrad(Op):
    """The bias gradient of TensorFlow's `bias_add`: `g` summed over every axis but `axis`.

    Rows are added in TensorFlow's CPU `BiasAddGrad` order (the device kernel
    `bias_gradient_sum`); float16 accumulates in float32 before rounding, other
    dtypes (bfloat16 too) in their own.
    """

    name = "bias_add_grad"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, device, g):
        rows = device.xp.moveaxis(g, self.axis, -1).reshape(-1, g.shape[self.axis])
        return device.kernel("bias_gradient_sum")(rows)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, gg):
        (shape,) = saved
        keep = [1] * len(shape)
        keep[self.axis] = shape[self.axis]
        return (shape_ops.broadcast_to(shape_ops.reshape(gg, keep), shape),)

    def compute_output_spec(self, g):
        return (g[0][self.axis],), g[1]


def _bias_add_axis(t1, t2):
    """The channel axis when Keras (TensorFlow) adds `t2` to `t1` with `bias_add`, else None."""
    if t2 is None or t1.ndim < 2:
        return None
    dims = [d for d in t2.shape if d != 1]
    if len(dims) != 1:
        return None
    if t1.shape[-1] == dims[0]:
        return t1.ndim - 1
    return 1 if t1.shape[1] == dims[0] else None


def binary(name, compute, grad_x1=None, grad_x2=None, promote_inputs=True, doc=None,
           op_class=Binary):
    """Builds a broadcasting binary op function around a `Binary` Op.

    Args:
        name: the op's public name.
        compute: fn(xp, a, b) -> array, or the name of a ufunc that numpy
            and cupy share (called directly: no wrapper on the hot path).
        grad_x1, grad_x2: fn(g, x1, x2, out) -> gradient before unbroadcasting
            (None: not differentiable in that argument).
        promote_inputs: apply Keras type promotion before computing.
        doc: the docstring.
        op_class: the `Binary` subclass to build (default `Binary`).

    Returns:
        the op function `op(x1, x2)` (its Op is `op.op`).
    """
    if isinstance(compute, str):
        ufunc_name, np_ufunc = compute, getattr(np, compute)

        def compute(xp, a, b):
            return np_ufunc(a, b) if xp is np else getattr(xp, ufunc_name)(a, b)
    else:
        np_ufunc = None

    the_op = op_class(name, compute, grad_x1, grad_x2)
    differentiable, vjp = grad_x1 is not None, the_op.backward
    second = grad_x2 is not None

    def op(x1, x2):
        if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._device is x2._device:
            t1, t2, dev, a, b = x1, x2, x1._device, x1._value, x2._value
            if promote_inputs and a.dtype is not b.dtype:
                a, b = promote(a, b)
        else:
            if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:
                return core.symbolic_elementwise(op, (x1, x2), name=name)
            (a, b), (t1, t2), dev = operands(name, x1, x2)
            if promote_inputs:
                a, b = promote(a, b)
        try:
            xp = dev.xp
            value = np_ufunc(a, b) if xp is np and np_ufunc is not None else compute(xp, a, b)
        except (ValueError, TypeError) as err:
            raise _binary_error(name, x1 if t1 is None else t1, x2 if t2 is None else t2,
                                err) from None
        out = Tensor(value, dev)
        if _tape._active and differentiable:
            _tape.record_pair(name, vjp, t1, t2 if second else None, out,
                              x1 if t1 is None else t1, x2 if t2 is None else t2)
        if _capture.tracer is not None:
            _capture.hook_pair(compute, np_ufunc, dev, (x1 if t1 is None else t1,
                               x2 if t2 is None else t2), (a, b), out, promote)
        return out
    op.op = the_op
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or (
        f"Elementwise `{name}` of two tensors with broadcasting (Keras `ops.{name}`).\n\n"
        "    Args:\n        x1, x2: tensors, arrays or Python numbers.\n\n"
        "    Returns:\n        Tensor of the broadcast shape.\n\n"
        f"    Example:\n        >>> ops.{name}(ops.ones(3), 2.0)\n")
    return op


def _grad_one(g, a, b, o):
    return g


def _grad_neg(g, a, b, o):
    return negative(g)


add = binary("add", "add", _grad_one, _grad_one, op_class=Add)
# `x + y` on tensors: TensorFlow's AddV2 (no bias_add), whose gradient is a plain reduce_sum.
add_operator = binary("add", "add", _grad_one, _grad_one)
subtract = binary("subtract", "subtract", _grad_one, _grad_neg)
multiply = binary("multiply", "multiply",
                  lambda g, a, b, o: multiply(g, b), lambda g, a, b, o: multiply(g, a))


def _true_divide(xp, a, b):
    """a / b; int and bool inputs are divided in floatx (Keras: int32 / int32 -> float32)."""
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if (da is None or not is_inexact(da)) and (db is None or not is_inexact(db)):
        floatx = config.floatx()
        a = a.astype(floatx) if da is not None else a
        b = b.astype(floatx) if db is not None else b
    return xp.true_divide(a, b)


divide = binary("divide", _true_divide, lambda g, a, b, o: divide(g, b),
                lambda g, a, b, o: negative(divide(multiply(g, o), b)))
true_divide = divide


def _reciprocal_multiply(xp, a, b):
    """`a * (1 / b)`: TensorFlow's graph form of a division by a constant `b`."""
    a, b = _weak_to_float32(a, b)
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if (da is None or not is_inexact(da)) and (db is None or not is_inexact(db)):
        floatx = config.floatx()     # int / int: divided in floatx, as `_true_divide`
        a = a.astype(floatx) if da is not None else a
        b = b.astype(floatx) if db is not None else b
        da = getattr(a, "dtype", None)
    if da is None or da.kind != "f" or getattr(b, "dtype", da) != da:
        return _true_divide(xp, a, b)
    return a * xp.reciprocal(xp.asarray(b, dtype=da))


_constant_divide = binary("divide", _reciprocal_multiply,
                          lambda g, a, b, o: _constant_divide(g, b),
                          lambda g, a, b, o: negative(divide(multiply(g, o), b)))


def divide_operator(x1, x2):
    """`x1 / x2` as Keras's `ops.divide` and a tensor's `/` on TensorFlow.

    Inside Keras's compiled functions (`fit`, `evaluate`, `predict`), TensorFlow's
    constant folding turns a division by a constant (a Python or numpy number or
    array) into a multiplication by its float32 reciprocal (`x / 255.0` is
    `x * (1 / 255)`), and so does its gradient; eagerly it divides.

    Args:
        x1, x2: tensors, arrays or Python numbers.

    Returns:
        Tensor of the broadcast shape.

    Example:
        >>> ops.divide(ops.ones(3), 4.0)   # [0.25, 0.25, 0.25]
    """
    if keras_graph.active() and isinstance(x1, Tensor) and \
            isinstance(x2, (int, float, np.generic, np.ndarray)) and not isinstance(x2, bool):
        return _constant_divide(x1, x2)   # (two constants are folded by a plain division)
    return divide(x1, x2)


divide_operator.op = divide.op
floor_divide = binary("floor_divide", "floor_divide")
def _floormod(xp, a, b):
    """numpy's mod, but a zero float remainder keeps the dividend's sign, as TensorFlow's
    FloorMod (`fmod`, then `+ y` when the signs differ): mod(250., -2.5) is 0.0, not -0.0."""
    out = xp.mod(a, b)
    if getattr(out, "dtype", None) is not None and out.dtype.kind == "f":
        out = xp.where(out == 0, xp.copysign(xp.zeros_like(out), a), out)
    return out


# The `%` operator: as TensorFlow's, a Python number takes the tensor's dtype.
mod_operator = binary("mod", _floormod, _grad_one,
                      lambda g, a, b, o: negative(multiply(g, floor_divide(a, b))))


def mod(x1, x2):
    """Elementwise remainder of `x1 / x2`, with the sign of `x2` (Keras `ops.mod`).

    As Keras's TensorFlow backend, eager inputs are converted to tensors first:
    a Python int is int32 and a float is float32 (so `ops.mod(int8_x, 3)` is
    int32, where `int8_x % 3` stays int8), and bool inputs give int32.

    Args:
        x1, x2: tensors, arrays or Python numbers.

    Returns:
        Tensor of the broadcast shape.

    Example:
        >>> ops.mod(ops.convert_to_tensor([5, -5]), 3)   # [2, 1], int32
    """
    if x1.__class__ is not KerasTensor and x2.__class__ is not KerasTensor:
        x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    elif not in_trace():
        # As Keras: the symbolic spec keeps a Python number weak (traced below), while the
        # recorded node replays this function, which converts it as in eager mode
        return core.symbolic_elementwise(mod, (x1, x2), name="mod")
    if getattr(x1, "dtype", None) == "bool" and getattr(x2, "dtype", None) == "bool":
        x1, x2 = core.cast(x1, "int32"), core.cast(x2, "int32")
    return mod_operator(x1, x2)


mod.op = mod_operator.op


def _power_grad_base(g, a, b, o):
    """TensorFlow's `_PowGrad` for the base: `(g * y) * pow(x, y - 1)`."""
    return multiply(multiply(g, b), power(a, subtract(b, 1)))


def _constant_power_grad_base(g, a, b, o):
    """`_power_grad_base` inside a graph: `y - 1` is a constant too, so rewritten."""
    return multiply(multiply(g, b), _constant_power(a, subtract(b, 1)))


def _power_grad_exponent(g, a, b, o):
    """TensorFlow's `_PowGrad` for the exponent: `(g * z) * log(x)`, 0 where x <= 0."""
    safe = where(greater(a, 0), a, 1)
    return multiply(multiply(g, o), log(safe))


def _power(xp, a, b):
    if getattr(b, "dtype", None) is not None and b.dtype.kind in "iu" and \
            getattr(a, "dtype", None) is not None and a.dtype.kind in "iu" and (b < 0).any():
        raise ValueError("ops.power: integers to negative integer powers are not allowed.")
    a, b = _weak_to_float32(a, b)
    exact = eigen_math.power(xp, a, b)   # float32: TensorFlow's values (Eigen / libm powf)
    return xp.power(a, b) if exact is None else exact


def _weak_to_float32(a, b):
    """A Python number (weakly typed) beside a float32 array becomes float32, as in Keras."""
    if getattr(a, "dtype", None) == np.float32 and isinstance(b, (int, float)):
        return a, np.float32(b)
    if getattr(b, "dtype", None) == np.float32 and isinstance(a, (int, float)):
        return np.float32(a), b
    return a, b


def _graph_power(xp, a, b):
    """TensorFlow's graph rewrite of `x ** c` for a constant `c` (grappler's ConvertPow):
    `c` = 2, 3, 0.5, 1, 0 become square, `x * square(x)`, sqrt, identity and ones."""
    a, b = _weak_to_float32(a, b)
    b = np.asarray(b) if isinstance(b, (int, float)) else b
    if getattr(a, "dtype", np.dtype("O")).kind == "f" and getattr(b, "size", 0) and \
            (b == b.flat[0]).all():
        c = float(b.flat[0])
        shape = np.broadcast_shapes(a.shape, b.shape)
        rewrite = {2.0: lambda: a * a, 3.0: lambda: a * (a * a), 0.5: lambda: xp.sqrt(a),
                   1.0: lambda: a.copy(), 0.0: lambda: xp.ones_like(a)}.get(c)
        if rewrite is not None:
            return xp.broadcast_to(rewrite(), shape).astype(a.dtype, copy=False)
    return _power(xp, a, b)


_power_op = binary("power", _power, _power_grad_base, _power_grad_exponent)
_constant_power = binary("power", _graph_power, _constant_power_grad_base, _power_grad_exponent)


def power(x1, x2):
    """`x1 ** x2` elementwise with broadcasting (Keras `ops.power`).

    float32 values are TensorFlow's (`eigen_math.power`). Inside Keras's compiled
    functions (`fit`, `evaluate`, `predict`) a constant exponent (a Python or numpy
    number) of 2, 3, 0.5, 1 or 0 is TensorFlow's graph rewrite of it (square, cube,
    sqrt...), not its `Pow`.

    Args:
        x1: base tensor, array or Python number.
        x2: exponent tensor, array or Python number.

    Returns:
        Tensor of the broadcast shape.

    Example:
        >>> ops.power(ops.ones(3), 2.0)
    """
    if keras_graph.active() and isinstance(x1, Tensor) and \
            isinstance(x2, (int, float, np.generic, np.ndarray)) and not isinstance(x2, bool):
        return _constant_power(x1, x2)   # (two constants are folded by a plain Pow)
    return _power_op(x1, x2)


power.op = _power_op.op


def _pick_grad(mask_fn):
    def grad(g, a, b, o):
        return multiply(g, core.cast(mask_fn(a, b), g.dtype))
    return grad


maximum = binary("maximum", "maximum",
                 _pick_grad(lambda a, b: greater_equal(a, b)),
                 _pick_grad(lambda a, b: less(a, b)))
minimum = binary("minimum", "minimum",
                 _pick_grad(lambda a, b: less_equal(a, b)),
                 _pick_grad(lambda a, b: greater(a, b)))


def _float_binary(compute):
    """Wraps `compute` so int/bool inputs are computed in floatx."""
    def fn(xp, a, b):
        if getattr(a, "dtype", None) is not None and not is_inexact(a.dtype):
            a = a.astype(config.floatx())
        if getattr(b, "dtype", None) is not None and not is_inexact(b.dtype):
            b = b.astype(config.floatx())
        return compute(xp, a, b)
    return fn


def _atan2_grad(which):
    def grad(g, y, x, o):
        denom = add(square(x), square(y))
        return divide(multiply(g, x if which == 0 else negative(y)), denom)
    return grad


def _keras_logaddexp(xp, a, b):
    """Keras's TF formula, step by step in the operands' dtype (float16 rounds as Keras)."""
    delta = a - b
    with np.errstate(invalid="ignore", over="ignore"):
        value = xp.maximum(a, b) + xp.log1p(xp.exp(-xp.abs(delta)))
    return xp.where(xp.isnan(delta), a + b, value).astype(value.dtype)


def _keras_hypot(xp, a, b):
    """Keras's TF formula: max * sqrt(1 + (min / max)**2), with 0 / 0 taken as 0."""
    a, b = xp.abs(a), xp.abs(b)
    high, low = xp.maximum(a, b), xp.minimum(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = xp.where(high == 0, xp.zeros_like(high), low / high)
    one = xp.asarray(1, dtype=high.dtype)
    return (high * xp.sqrt(one + xp.square(ratio))).astype(high.dtype)


def _hypot_binary(compute):
    """As `_float_binary`, with Keras's hypot dtypes: int64 inputs give float64."""
    def fn(xp, a, b):
        kinds = [getattr(v, "dtype", None) for v in (a, b)]
        wide = any(k is not None and k == np.int64 for k in kinds)
        target = "float64" if wide else config.floatx()
        if getattr(a, "dtype", None) is not None and not is_inexact(a.dtype):
            a = a.astype(target)
        if getattr(b, "dtype", None) is not None and not is_inexact(b.dtype):
            b = b.astype(target)
        return compute(xp, a, b)
    return fn


_arctan2 = binary("arctan2", _float_binary(lambda xp, a, b: xp.arctan2(a, b)),
                  _atan2_grad(0), _atan2_grad(1))
_logaddexp = binary("logaddexp", _float_binary(_keras_logaddexp),
                    lambda g, a, b, o: multiply(g, exp(subtract(a, o))),
                    lambda g, a, b, o: multiply(g, exp(subtract(b, o))))
_hypot = binary("hypot", _hypot_binary(_keras_hypot),
                lambda g, a, b, o: multiply(g, divide_no_nan(a, o)),
                lambda g, a, b, o: multiply(g, divide_no_nan(b, o)))


def _strong_binary(the_op, doc, weak_spec=False):
    # Keras's TF backend converts both operands first: a Python scalar is not weak here.
    # With `weak_spec`, a KerasTensor's dtype keeps the scalar weak, as Keras's symbolic
    # rule does, while the recorded node replays `op` (converting it) on real tensors.
    def op(x1, x2):
        if weak_spec and KerasTensor in (x1.__class__, x2.__class__):
            if not in_trace():
                return core.symbolic_elementwise(op, (x1, x2), name=the_op.__name__)
            return the_op(x1, x2)
        return the_op(core.strong_scalar(x1), core.strong_scalar(x2))
    op.op = the_op.op
    op.__name__ = op.__qualname__ = the_op.__name__
    op.__doc__ = doc
    return op


arctan2 = _strong_binary(_arctan2, """Elementwise arctan(x1 / x2) in the right quadrant.

    Python scalars are converted as TensorFlow does (float32, int32), as Keras.

    Example:
        >>> ops.arctan2(ops.ones(2), 1.0)   # [0.785, 0.785]
    """)
logaddexp = _strong_binary(_logaddexp, """log(exp(x1) + exp(x2)), Keras's formula.

    `max(x1, x2) + log1p(exp(-|x1 - x2|))` in the float result dtype (Python
    scalars converted as TensorFlow does).

    Example:
        >>> ops.logaddexp(ops.zeros(2), 0.0)   # [0.693, 0.693]
    """, weak_spec=True)
hypot = _strong_binary(_hypot, """sqrt(x1**2 + x2**2), Keras's formula.

    `max * sqrt(1 + (min / max)**2)` of the absolute values; integers give
    floatx (int64: float64); Python scalars converted as TensorFlow does.

    Example:
        >>> ops.hypot(ops.convert_to_tensor([3.0]), 4.0)   # [5.]
    """)

equal = binary("equal", "equal", promote_inputs=False)
not_equal = binary("not_equal", "not_equal", promote_inputs=False)
less = binary("less", "less", promote_inputs=False)
less_equal = binary("less_equal", "less_equal", promote_inputs=False)
greater = binary("greater", "greater", promote_inputs=False)
greater_equal = binary("greater_equal", "greater_equal",
                       promote_inputs=False)
logical_and = binary("logical_and", "logical_and", promote_inputs=False)
logical_or = binary("logical_or", "logical_or", promote_inputs=False)
logical_xor = binary("logical_xor", "logical_xor", promote_inputs=False)


@keras_op
def divide_no_nan(x1, x2):
    """`x1 / x2`, but 0 where `x2 == 0` (and a zero gradient there).

    Args:
        x1, x2: tensors or numbers.

    Returns:
        Tensor.

    Example:
        >>> ops.divide_no_nan(ops.ones(2), ops.convert_to_tensor([0.0, 2.0]))  # [0., 0.5]
    """
    # As Keras: Python numbers are weak; the operands go to their float result dtype
    dtype = result_type(*[type(x) if isinstance(x, (int, float)) and not hasattr(x, "dtype")
                                 else convert_to_tensor(x).dtype for x in (x1, x2)], float)
    x1, x2 = convert_to_tensor(x1, dtype), convert_to_tensor(x2, dtype)
    zero = equal(x2, 0)
    safe = where(zero, 1, x2)
    return where(zero, 0, divide(x1, safe))


@keras_op
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """True where `|x1 - x2| <= atol + rtol * |x2|` (numpy semantics).

    Args:
        x1, x2: tensors.
        rtol, atol: tolerances.
        equal_nan: treat NaNs in the same place as equal.

    Returns:
        bool Tensor.

    Example:
        >>> ops.isclose(ops.ones(2), 1.0 + 1e-9)   # [True, True]
    """
    if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:
        return core.symbolic_elementwise(isclose, (x1, x2),
                                         dict(rtol=rtol, atol=atol, equal_nan=equal_nan))
    (a, b), _, dev = operands("isclose", x1, x2)
    return Tensor(dev.xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan), dev)


@keras_op
def clip(x, x_min, x_max):
    """Clips values to [x_min, x_max]; the gradient passes where not clipped.

    Args:
        x: tensor.
        x_min, x_max: bounds (numbers or broadcastable tensors).

    Returns:
        Tensor with the dtype of `x` (bool becomes int32).

    Example:
        >>> ops.clip(ops.convert_to_tensor([-2.0, 0.5, 3.0]), 0.0, 1.0)  # [0., 0.5, 1.]
    """
    if KerasTensor in map(type, (x, x_min, x_max)):
        return core.symbolic_elementwise(clip, (x, x_min, x_max))
    x = convert_to_tensor(x)
    if x._value.dtype.kind == "b":
        x = core.cast(x, "int32")
    (a, lo, hi), (t, tlo, thi), dev = operands("clip", x, x_min, x_max)
    inputs = tuple(v for v in (t, tlo, thi) if v is not None)
    bounds = tuple(None if v is not None else raw for v, raw in ((tlo, lo), (thi, hi)))
    return Clip(bounds)(*inputs)


class Clip(Op):
    """Clips to [lo, hi] (each a tensor input, or a Python scalar in `bounds`); the
    gradient goes to `x` where not clipped and to a tensor bound where it clips."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "clip"

    def __init__(self, bounds):
        self.bounds = bounds

    def forward(self, device, a, *tensor_bounds):
        tensor_bounds = list(tensor_bounds)
        lo, hi = (b if b is not None else tensor_bounds.pop(0) for b in self.bounds)
        return device.xp.clip(a, lo, hi).astype(a.dtype, copy=False)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        x, rest = saved[0], list(saved[1:])
        lo, hi = (b if b is not None else rest.pop(0) for b in self.bounds)
        inside = logical_and(greater_equal(x, lo), less_equal(x, hi))
        grads = [fit_gradient(multiply(g, core.cast(inside, g.dtype)), x)]
        # tensor bounds get the gradient where they clip (as TensorFlow's clip_by_value)
        for bound, value, below in ((self.bounds[0], lo, True), (self.bounds[1], hi, False)):
            if bound is None:
                hit = less(x, value) if below else greater(x, value)
                need = needs[len(grads)]
                grads.append(fit_gradient(multiply(g, core.cast(hit, g.dtype)), value)
                             if need else None)
        return grads


@keras_op
def where(condition, x1=None, x2=None):
    """Picks from `x1` where `condition` is true, else from `x2` (broadcasting).

    With only `condition`, returns the indices of true elements (numpy's
    nonzero) as int32 tensors.

    Args:
        condition: bool tensor.
        x1, x2: values (tensors or numbers), promoted to a common dtype.

    Returns:
        Tensor, or a list of index tensors (one per axis).

    Example:
        >>> ops.where(ops.convert_to_tensor([True, False]), 1.0, 0.0)  # [1., 0.]
    """
    if x1 is None and x2 is None:
        cond = convert_to_tensor(condition)
        if cond.__class__ is KerasTensor:  # Keras's symbolic rule: shaped like `condition`
            return KerasTensor(cond.shape, "int32")
        xp = cond._device.xp
        # a list, as Keras's TensorFlow backend (tf.unstack)
        return [Tensor(i.astype("int32"), cond._device) for i in xp.nonzero(cond._value)]
    if x1 is None or x2 is None:
        raise ValueError("ops.where: `x1` and `x2` either both should be `None` or both "
                         "should have non-None value.")
    if _is_python_scalar(x1) and _is_python_scalar(x2):
        # As Keras: two Python numbers give a floatx/int32/bool result, not float64.
        x1 = convert_to_tensor(x1, core.result_type(type(x1), type(x2)))
    if KerasTensor in map(type, (condition, x1, x2)):
        return core.symbolic_elementwise(where, (condition, x1, x2))
    (c, a, b), (tc, t1, t2), dev = operands("where", condition, x1, x2)
    if tc is None:
        tc = convert_to_tensor(condition)
    scalars = tuple(raw if t is None else None for t, raw in ((t1, a), (t2, b)))
    inputs = (tc,) + tuple(t for t in (t1, t2) if t is not None)
    try:
        return Where(scalars)(*inputs)
    except ValueError as err:
        raise ValueError(f"ops.where: cannot broadcast condition, x1, x2 with "
                         f"{core.describe(c, a, b)} ({err}).") from None


def _is_python_scalar(x):
    return isinstance(x, (bool, int, float))


class Where(Op):
    """Picks from x1 where the condition holds, else from x2 (promoted). Inputs
    (condition, x1, x2) with Python-scalar branches held in `scalars`."""

    name = "where"

    def __init__(self, scalars):
        self.scalars = scalars

    def forward(self, device, c, *tensor_branches):
        a, b = self.scalars
        if a is None and b is None:
            a, b = tensor_branches
        elif a is None:
            a = tensor_branches[0]
        elif b is None:
            b = tensor_branches[0]
        a, b = promote(a, b)
        return device.xp.where(c, a, b)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        cond, branches = saved[0], saved[1:]
        grads, k = [None], 0
        for i, scalar in enumerate(self.scalars):
            if scalar is not None:
                continue
            t, k = branches[k], k + 1
            if not needs[k]:
                grads.append(None)
                continue
            # true zeros for the branch not taken (not g * 0, which keeps a NaN of g),
            # as TensorFlow's where gradient
            picked = where(cond, g, 0.0) if i == 0 else where(cond, 0.0, g)
            grads.append(fit_gradient(picked, t))
        return grads


# One-argument math (defined in unary.py, re-exported here for compatibility).
from kerasish.ops.unary import (abs, absolute, arccos, arccosh, arcsin,  # noqa: E402,F401,A004
                                arcsinh, arctan, arctanh, cbrt, ceil, conj, conjugate,
                                copy, cos, cosh, deg2rad, erf, erfc, erfinv, exp, exp2, expm1,
                                floor, imag, isfinite, isinf, isnan, isneginf, isposinf,
                                log, log1p, log2, log10, logical_not, nan_to_num,
                                negative, rad2deg, real, reciprocal, round, rsqrt,
                                sigmoid_array, sign, signbit, sin, sinh, sqrt, square,
                                tan, tanh, trunc)
from kerasish.ops import manipulation as shape_ops, reduction  # noqa: E402 - cycle-safe module imports

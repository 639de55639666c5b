"""Elementwise math and comparisons with broadcasting (Keras `ops` names).

Each differentiable op states its derivative with ops, so gradients of
gradients work. Broadcast inputs get their gradient summed back to their
own shape by `unbroadcast`.
"""
from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core
from kerasish.ops.core import convert_to_tensor, float_operand, operands


def unbroadcast(g, shape):
    """Sums `g` over the axes that broadcasting added to reach `g.shape` from `shape`."""
    if g.shape == tuple(shape):
        return g
    from kerasish.ops import reduction, manipulation as shape_ops
    extra = g.ndim - len(shape)
    axes = list(range(extra))
    axes += [extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1]
    if axes:
        g = reduction.sum(g, axis=tuple(axes), keepdims=True)
    return shape_ops.reshape(g, shape)


def _differentiable(t):
    return t is not None and t._value.dtype.kind == "f"


def _binary(name, compute, grad_x1=None, grad_x2=None):
    """Builds a broadcasting binary op.

    Args:
        name: the op's public name.
        compute: fn(xp, a, b) -> array.
        grad_x1, grad_x2: fn(g, x1, x2, out) -> gradient before unbroadcasting
            (None: not differentiable in that argument).
    """
    def op(x1, x2):
        (a, b), (t1, t2), dev = operands(name, x1, x2)
        out = Tensor(compute(dev.xp, a, b), dev)
        if _tape._active and grad_x1 is not None:
            need1 = _differentiable(t1)
            need2 = _differentiable(t2) and grad_x2 is not None
            if need1 or need2:
                x1v = t1 if t1 is not None else x1
                x2v = t2 if t2 is not None else x2
                inputs = tuple(t for t in (t1, t2) if t is not None)

                def backward(g):
                    grads = []
                    if t1 is not None:
                        grads.append(unbroadcast(grad_x1(g, x1v, x2v, out), t1.shape) if need1 else None)
                    if t2 is not None:
                        grads.append(unbroadcast(grad_x2(g, x1v, x2v, out), t2.shape) if need2 else None)
                    return grads

                _tape.record(name, inputs, (out,), backward)
        return out
    op.__name__ = name
    op.__doc__ = f"Elementwise `{name}` of two tensors with broadcasting (Keras `ops.{name}`)."
    return op


def _unary(name, compute, grad=None, float_only=True):
    """Builds a unary op; `grad(g, x, out)` gives the input gradient."""
    def op(x):
        x = float_operand(x) if float_only else convert_to_tensor(x)
        out = Tensor(compute(x._device.xp, x._value), x._device)
        if _tape._active and grad is not None and x._value.dtype.kind == "f":
            _tape.record(name, (x,), (out,), lambda g: (grad(g, x, out),))
        return out
    op.__name__ = name
    op.__doc__ = f"Elementwise `{name}` (Keras `ops.{name}`)."
    return op


add = _binary("add", lambda xp, a, b: xp.add(a, b),
              lambda g, a, b, o: g, lambda g, a, b, o: g)
subtract = _binary("subtract", lambda xp, a, b: xp.subtract(a, b),
                   lambda g, a, b, o: g, lambda g, a, b, o: negative(g))
multiply = _binary("multiply", lambda xp, a, b: xp.multiply(a, b),
                   lambda g, a, b, o: multiply(g, b), lambda g, a, b, o: multiply(g, a))


def _true_divide(xp, a, b):
    out = xp.true_divide(a, b)
    if out.dtype.kind == "f" and out.dtype.itemsize == 8 and not _is_f64(a, b):
        out = out.astype("float32")
    return out


def _is_f64(*values):
    return any(getattr(v, "dtype", None) is not None and v.dtype.kind == "f"
               and v.dtype.itemsize == 8 for v in values)


divide = _binary("divide", _true_divide,
                 lambda g, a, b, o: divide(g, b),
                 lambda g, a, b, o: negative(divide(multiply(g, o), b)))
true_divide = divide
floor_divide = _binary("floor_divide", lambda xp, a, b: xp.floor_divide(a, b))
mod = _binary("mod", lambda xp, a, b: xp.mod(a, b),
              lambda g, a, b, o: g,
              lambda g, a, b, o: negative(multiply(g, floor_divide(a, b))))


def _power_grad_base(g, a, b, o):
    return multiply(g, multiply(b, power(a, subtract(b, 1))))


def _power_grad_exponent(g, a, b, o):
    safe = where(greater(a, 0), a, 1)
    return multiply(g, multiply(o, log(safe)))


power = _binary("power", lambda xp, a, b: xp.power(a, b), _power_grad_base, _power_grad_exponent)


def _pick_grad(mask_fn):
    def grad(g, a, b, o):
        return multiply(g, core.cast(mask_fn(a, b), g.dtype))
    return grad


maximum = _binary("maximum", lambda xp, a, b: xp.maximum(a, b),
                  _pick_grad(lambda a, b: greater_equal(a, b)),
                  _pick_grad(lambda a, b: less(a, b)))
minimum = _binary("minimum", lambda xp, a, b: xp.minimum(a, b),
                  _pick_grad(lambda a, b: less_equal(a, b)),
                  _pick_grad(lambda a, b: greater(a, b)))

equal = _binary("equal", lambda xp, a, b: xp.equal(a, b))
not_equal = _binary("not_equal", lambda xp, a, b: xp.not_equal(a, b))
less = _binary("less", lambda xp, a, b: xp.less(a, b))
less_equal = _binary("less_equal", lambda xp, a, b: xp.less_equal(a, b))
greater = _binary("greater", lambda xp, a, b: xp.greater(a, b))
greater_equal = _binary("greater_equal", lambda xp, a, b: xp.greater_equal(a, b))
logical_and = _binary("logical_and", lambda xp, a, b: xp.logical_and(a, b))
logical_or = _binary("logical_or", lambda xp, a, b: xp.logical_or(a, b))
logical_xor = _binary("logical_xor", lambda xp, a, b: xp.logical_xor(a, b))

negative = _unary("negative", lambda xp, a: xp.negative(a), lambda g, x, o: negative(g), False)
absolute = _unary("absolute", lambda xp, a: xp.abs(a),
                  lambda g, x, o: multiply(g, sign(x)), False)
abs = absolute  # noqa: A001 - Keras exports ops.abs
sign = _unary("sign", lambda xp, a: xp.sign(a), None, False)
exp = _unary("exp", lambda xp, a: xp.exp(a), lambda g, x, o: multiply(g, o))
expm1 = _unary("expm1", lambda xp, a: xp.expm1(a), lambda g, x, o: multiply(g, add(o, 1.0)))
log = _unary("log", lambda xp, a: xp.log(a), lambda g, x, o: divide(g, x))
log1p = _unary("log1p", lambda xp, a: xp.log1p(a), lambda g, x, o: divide(g, add(x, 1.0)))
log2 = _unary("log2", lambda xp, a: xp.log2(a),
              lambda g, x, o: divide(g, multiply(x, 0.6931471805599453)))
log10 = _unary("log10", lambda xp, a: xp.log10(a),
               lambda g, x, o: divide(g, multiply(x, 2.302585092994046)))
sqrt = _unary("sqrt", lambda xp, a: xp.sqrt(a), lambda g, x, o: divide(g, multiply(o, 2.0)))
rsqrt = _unary("rsqrt", lambda xp, a: 1.0 / xp.sqrt(a),
               lambda g, x, o: multiply(g, multiply(power(o, 3), -0.5)))
square = _unary("square", lambda xp, a: xp.square(a),
                lambda g, x, o: multiply(g, multiply(x, 2.0)), False)
reciprocal = _unary("reciprocal", lambda xp, a: 1.0 / a,
                    lambda g, x, o: negative(multiply(g, square(o))))
sin = _unary("sin", lambda xp, a: xp.sin(a), lambda g, x, o: multiply(g, cos(x)))
cos = _unary("cos", lambda xp, a: xp.cos(a), lambda g, x, o: negative(multiply(g, sin(x))))
tan = _unary("tan", lambda xp, a: xp.tan(a), lambda g, x, o: multiply(g, add(square(o), 1.0)))
sinh = _unary("sinh", lambda xp, a: xp.sinh(a), lambda g, x, o: multiply(g, cosh(x)))
cosh = _unary("cosh", lambda xp, a: xp.cosh(a), lambda g, x, o: multiply(g, sinh(x)))
tanh = _unary("tanh", lambda xp, a: xp.tanh(a),
              lambda g, x, o: multiply(g, subtract(1.0, square(o))))
arcsin = _unary("arcsin", lambda xp, a: xp.arcsin(a),
                lambda g, x, o: divide(g, sqrt(subtract(1.0, square(x)))))
arccos = _unary("arccos", lambda xp, a: xp.arccos(a),
                lambda g, x, o: negative(divide(g, sqrt(subtract(1.0, square(x))))))
arctan = _unary("arctan", lambda xp, a: xp.arctan(a),
                lambda g, x, o: divide(g, add(square(x), 1.0)))
floor = _unary("floor", lambda xp, a: xp.floor(a), None, False)
ceil = _unary("ceil", lambda xp, a: xp.ceil(a), None, False)
isnan = _unary("isnan", lambda xp, a: xp.isnan(a), None, False)
isinf = _unary("isinf", lambda xp, a: xp.isinf(a), None, False)
isfinite = _unary("isfinite", lambda xp, a: xp.isfinite(a), None, False)
logical_not = _unary("logical_not", lambda xp, a: xp.logical_not(a), None, False)


def _erf_array(xp, a):
    if xp.__name__ == "numpy":
        from scipy import special
        return special.erf(a).astype(a.dtype, copy=False)
    import cupyx.scipy.special as special  # pragma: no cover - GPU only
    return special.erf(a)


erf = _unary("erf", _erf_array,
             lambda g, x, o: multiply(g, multiply(exp(negative(square(x))), 1.1283791670955126)))


def round(x, decimals=0):  # noqa: A001 - Keras exports ops.round
    """Rounds half to even (like numpy and Keras); zero gradient."""
    x = convert_to_tensor(x)
    return Tensor(x._device.xp.round(x._value, decimals), x._device)


def clip(x, x_min, x_max):
    """Clips values to [x_min, x_max]; gradient passes where not clipped.

    Example:
        >>> ops.clip(ops.convert_to_tensor([-2.0, 0.5, 3.0]), 0.0, 1.0)
    """
    (a, lo, hi), (t, tlo, thi), dev = operands("clip", x, x_min, x_max)
    out = Tensor(dev.xp.clip(a, lo, hi), dev)
    if _tape._active and _differentiable(t):
        inputs = tuple(v for v in (t, tlo, thi) if v is not None)

        def backward(g):
            inside = logical_and(greater_equal(t, x_min), less_equal(t, x_max))
            grads = [multiply(g, core.cast(inside, g.dtype))]
            return grads + [None] * (len(inputs) - 1)

        _tape.record("clip", inputs, (out,), backward)
    return out


def where(condition, x1=None, x2=None):
    """Picks from `x1` where `condition` is true, else from `x2` (broadcasting).

    With only `condition`, returns the indices of true elements (numpy's nonzero).
    """
    if x1 is None and x2 is None:
        cond = convert_to_tensor(condition)
        return tuple(Tensor(i, cond._device) for i in cond._device.xp.nonzero(cond._value))
    if x1 is None or x2 is None:
        raise ValueError("ops.where: give both `x1` and `x2`, or neither.")
    (c, a, b), (tc, t1, t2), dev = operands("where", condition, x1, x2)
    out = Tensor(dev.xp.where(c, a, b), dev)
    if _tape._active and (_differentiable(t1) or _differentiable(t2)):
        inputs = tuple(v for v in (tc, t1, t2) if v is not None)
        cond = tc if tc is not None else convert_to_tensor(condition)

        def backward(g):
            zero = multiply(g, 0.0)
            grads = [None] if tc is not None else []
            if t1 is not None:
                grads.append(unbroadcast(where(cond, g, zero), t1.shape))
            if t2 is not None:
                grads.append(unbroadcast(where(cond, zero, g), t2.shape))
            return grads

        _tape.record("where", inputs, (out,), backward)
    return out


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN and infinities with finite numbers."""
    x = convert_to_tensor(x)
    xp = x._device.xp
    return Tensor(xp.nan_to_num(x._value, nan=nan, posinf=posinf, neginf=neginf), x._device)


def sigmoid_array(x_tensor):
    """Raw stable sigmoid of a tensor's array via the device kernel."""
    return x_tensor._device.kernel("sigmoid")(x_tensor._value)

"""More numpy-style ops: fmax/fmin, ldexp, nextafter, angle, fabs, isreal, i0,
geomspace, window functions, argpartition, corrcoef, correlate, view,
histogram, cdist, polar, the complex views and vectorize.

Most are compositions of differentiable ops (so gradients and second order
come for free); value-only ops (nextafter, argpartition, histogram, view,
windows) return tensors without a gradient, as in Keras.
"""
import functools
import math
import re

import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, creation, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops.control_flow import custom_gradient
from kerasish.ops.fft import extract_sequences
from kerasish.ops.linalg import matmul
from kerasish.ops.unary import _special, unary
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import broadcast_shapes
from kerasish.ops.symbolic import keras_op


def _float_dtype(*tensors):
    """Keras's float result dtype for `tensors` (ints and bools -> floatx)."""
    return result_type(*[t.dtype for t in tensors], float)


def _as_float(x, dtype=None):
    x = core.convert_to_tensor(x)
    return core.cast(x, dtype or _float_dtype(x))


def _weak(x):
    """A Python number's type (weak in Keras's promotion), else the tensor's dtype."""
    if isinstance(x, (int, float)) and not hasattr(x, "dtype"):
        return type(x)
    return core.convert_to_tensor(x).dtype


def _nan_aware_extremum(pick):
    def op(x1, x2):
        # As Keras: Python numbers stay weak (fmax(float16, 1.5) is float16)
        dtype = result_type(_weak(x1), _weak(x2))
        x1, x2 = core.convert_to_tensor(x1, dtype), core.convert_to_tensor(x2, dtype)
        picked = pick(x1, x2)
        if not picked.dtype.startswith(("float", "bfloat")):
            return picked
        return ew.where(ew.isnan(x2), core.cast(x1, picked.dtype),
                        ew.where(ew.isnan(x1), core.cast(x2, picked.dtype), picked))
    return op


@keras_op
def fmax(x1, x2):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    Args:
        x1, x2: tensors (broadcast together).

    Returns:
        Tensor of the promoted dtype.

    Example:
        >>> ops.fmax(ops.convert_to_tensor([1.0, float("nan")]), 0.5)   # [1., 0.5]
    """
    return _nan_aware_extremum(ew.maximum)(x1, x2)


@keras_op
def fmin(x1, x2):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN).

    Args:
        x1, x2: tensors (broadcast together).

    Returns:
        Tensor of the promoted dtype.

    Example:
        >>> ops.fmin(ops.convert_to_tensor([1.0, float("nan")]), 0.5)   # [0.5, 0.5]
    """
    return _nan_aware_extremum(ew.minimum)(x1, x2)


@keras_op
def ldexp(x1, x2):
    """x1 * 2**x2 with an integer exponent `x2`.

    Args:
        x1: mantissas (ints and bools become floatx).
        x2: integer exponents.

    Returns:
        float Tensor (x1's float dtype); differentiable in x1.

    Example:
        >>> ops.ldexp(ops.convert_to_tensor([1.0, 3.0]), ops.convert_to_tensor([2, -1]))  # [4., 1.5]
    """
    x1, x2 = core.convert_to_tensor(x1), core.convert_to_tensor(x2)
    if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:
        return KerasTensor(broadcast_shapes(x1.shape, x2.shape),
                           x1.dtype if core.config.is_float_dtype(x1.dtype)
                           else core.config.floatx())
    if not (x2.dtype.startswith(("int", "uint")) or x2.dtype == "bool"):
        raise TypeError(f"ops.ldexp: ldexp exponent must be an integer type. "
                        f"Received: x2 dtype={x2.dtype}")
    x1 = _as_float(x1)

    @custom_gradient
    def scaled(mantissa):
        xp = mantissa._device.xp
        exponent = core.to_array(x2, mantissa._device).astype("int32")
        value = xp.ldexp(mantissa._value, exponent).astype(mantissa._value.dtype)
        factor = Tensor(xp.ldexp(xp.ones_like(mantissa._value), exponent)
                        .astype(mantissa._value.dtype), mantissa._device)
        return Tensor(value, mantissa._device), lambda g: ew.unbroadcast(
            ew.multiply(g, factor), mantissa.shape)
    return scaled(x1)


@keras_op
def nextafter(x1, x2):
    """The next float after x1 towards x2 (no gradient).

    Args:
        x1, x2: tensors (broadcast together).

    Returns:
        float Tensor (Keras's float result dtype of the two).

    Example:
        >>> ops.nextafter(ops.convert_to_tensor([1.0], "float64"), 2.0)   # [1.0000000000000002]
    """
    if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:
        return core.symbolic_elementwise(nextafter, (x1, x2))
    x1, x2 = core.convert_to_tensor(x1), core.convert_to_tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype, float)
    # As Keras on TensorFlow: the step is taken in float64, then cast to the result
    # dtype (so float32/float16 values usually round back to themselves).
    (a, b), _, dev = core.operands("nextafter", core.cast(x1, "float64"),
                                   core.cast(x2, "float64"))
    return core.cast(Tensor(dev.xp.nextafter(a, b), dev), dtype)


@keras_op
def angle(x):
    """Argument of each (complex) element in radians; pi for negative reals.

    Args:
        x: tensor.

    Returns:
        float Tensor (floatx for int and bool input).

    Example:
        >>> ops.angle(ops.convert_to_tensor([-1.0, 2.0]))   # [3.1416, 0.]
    """
    x = core.convert_to_tensor(x)
    if x.dtype.startswith("complex"):
        # Keras casts to result_type(x, float), which is complex64 even for complex128
        x = core.cast(x, "complex64")
        return ew.arctan2(ew.imag(x), ew.real(x))
    x = _as_float(x)
    negative = ew.logical_or(ew.less(x, 0), ew.logical_and(ew.equal(x, 0), ew.signbit(x)))
    out = ew.where(negative, core.cast(math.pi, x.dtype), core.cast(0.0, x.dtype))
    return ew.where(ew.isnan(x), x, out)


@keras_op
def fabs(x):
    """Absolute value as a float tensor (ints and bools become floatx).

    Example:
        >>> ops.fabs(ops.convert_to_tensor([-2, 3]))   # [2., 3.]
    """
    return ew.absolute(_as_float(x))


@keras_op
def isreal(x):
    """True where the imaginary part is zero (everywhere for real dtypes).

    Example:
        >>> ops.isreal(ops.convert_to_tensor([1.0, 2.0]))   # [True, True]
    """
    x = core.convert_to_tensor(x)
    return ew.equal(ew.imag(x), 0)


def _i1_grad(g, x, out):
    # d/dx I1(x) = I0(x) - I1(x) / x, which tends to 1/2 at 0
    safe = ew.where(ew.equal(x, 0), core.cast(1.0, x.dtype), x)
    slope = ew.subtract(i0(x), ew.divide(out, safe))
    return ew.multiply(g, ew.where(ew.equal(x, 0), core.cast(0.5, x.dtype), slope))


def _unary_special(name, fname, grad):
    return unary(name, _special(fname), grad)


_i1 = _unary_special("i1", "i1", _i1_grad)
i0 = _unary_special("i0", "i0", lambda g, x, out: ew.multiply(g, _i1(x)))
i0.__doc__ = """Modified Bessel function of the first kind, order 0 (differentiable).

    Args:
        x: tensor (ints and bools become floatx).

    Returns:
        Tensor.

    Example:
        >>> ops.i0(ops.convert_to_tensor([0.0, 1.0]))   # [1., 1.2661]
    """


@keras_op
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale between `start` and `stop`.

    Args:
        start, stop: numbers or tensors (broadcast together; same sign).
        num: how many values.
        endpoint: include `stop`.
        dtype: result dtype (default: Keras's float result dtype of the bounds).
        axis: where the new axis goes for tensor bounds.

    Returns:
        Tensor.

    Example:
        >>> ops.geomspace(1.0, 100.0, 3)   # [1., 10., 100.]
    """
    if start.__class__ is KerasTensor or stop.__class__ is KerasTensor:
        return creation._symbolic_space(start, stop, num, dtype, axis)
    lo, hi = core.convert_to_tensor(start), core.convert_to_tensor(stop)
    dtype = dtype or result_type(*[v.dtype if not isinstance(v, (int, float)) else type(v)
                                   for v in (start, stop)], float)
    a, b = core.convert_to_numpy(lo).astype(np.float64), core.convert_to_numpy(hi).astype(np.float64)
    values = np.geomspace(a, b, num=num, endpoint=endpoint, axis=axis)
    if np.dtype(core.to_array(creation.zeros((), dtype)).dtype).kind in "iu":
        values = np.floor(values)
    return core.convert_to_tensor(values, dtype=dtype)


def _window(name, numpy_fn):
    def op(x):
        length = int(core.convert_to_numpy(x))
        return core.convert_to_tensor(numpy_fn(length), dtype="float32")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"The {name} window of `x` points (numpy.{name}), float32.\n\n"
                  "    Args:\n        x: the number of points (int or scalar tensor).\n\n"
                  "    Returns:\n        1-D float32 Tensor.\n\n"
                  f"    Example:\n        >>> ops.{name}(5)\n")
    return keras_op(op, name=op.__name__)


bartlett = _window("bartlett", np.bartlett)
blackman = _window("blackman", np.blackman)
hamming = _window("hamming", np.hamming)
hanning = _window("hanning", np.hanning)


@keras_op
def kaiser(x, beta):
    """The Kaiser window of `x` points with shape parameter `beta` (numpy.kaiser).

    Args:
        x: the number of points.
        beta: the shape parameter.

    Returns:
        1-D float32 Tensor.

    Example:
        >>> ops.kaiser(5, 14.0)
    """
    length = int(core.convert_to_numpy(x))
    return core.convert_to_tensor(np.kaiser(length, float(core.convert_to_numpy(beta))),
                                  dtype="float32")


@keras_op
def argpartition(x, kth, axis=-1):
    """Indices that partition `x` around its `kth` smallest element along `axis`.

    Args:
        x: tensor.
        kth: int (or ints) of the element(s) placed in sorted position.
        axis: the axis.

    Returns:
        int32 Tensor.

    Example:
        >>> ops.argpartition(ops.convert_to_tensor([3, 1, 2]), 1)   # [1, 2, 0]
    """
    x = core.convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        if not isinstance(kth, (int, np.integer)):
            raise ValueError(f"ops.argpartition: `kth` must be an integer. Received: kth={kth!r}")
        return KerasTensor(x.shape, "int32")
    xp = x._device.xp
    return Tensor(xp.argpartition(x._value, kth, axis=axis).astype("int32"), x._device)


@keras_op
def corrcoef(x):
    """Pearson correlation coefficients of the rows of `x` (numpy.corrcoef).

    Args:
        x: 1-D or 2-D tensor; each row is a variable, each column an observation.

    Returns:
        float Tensor `(rows, rows)` (a scalar for 1-D input), clipped to [-1, 1].

    Example:
        >>> ops.corrcoef(ops.convert_to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))  # [[1,-1],[-1,1]]
    """
    x = _as_float(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"ops.corrcoef: expects a 1-D or 2-D tensor. "
                         f"Received: x.shape = {tuple(x.shape)}")
    rows = x if x.ndim == 2 else shape_ops.reshape(x, (1, -1))
    centred = ew.subtract(rows, reduction.mean(rows, axis=1, keepdims=True))
    cov = matmul(centred, shape_ops.transpose(centred))
    scale = ew.sqrt(shape_ops.reshape(reduction.sum(ew.square(centred), axis=1), (-1, 1)))
    out = ew.clip(ew.divide(ew.divide(cov, scale), shape_ops.transpose(scale)), -1.0, 1.0)
    return out if x.ndim == 2 else shape_ops.reshape(out, ())


@keras_op
def correlate(x1, x2, mode="valid"):
    """Cross-correlation of two 1-D tensors: c[k] = sum_n x1[n + k] * x2[n] (numpy.correlate).

    Args:
        x1, x2: 1-D tensors.
        mode: "valid", "same" or "full".

    Returns:
        1-D float Tensor (floatx for int and bool inputs).

    Example:
        >>> ops.correlate(ops.convert_to_tensor([1.0, 2.0, 3.0]), ops.convert_to_tensor([0.0, 1.0]))
    """
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"ops.correlate: `mode` must be 'valid', 'same' or 'full'. "
                         f"Received: mode={mode!r}")
    a, v = core.convert_to_tensor(x1), core.convert_to_tensor(x2)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"ops.correlate: both inputs must be 1-D. Received: x1.shape = "
                         f"{tuple(a.shape)}, x2.shape = {tuple(v.shape)}")
    dtype = _float_dtype(a, v)
    a, v = core.cast(a, dtype), core.cast(v, dtype)
    la, lv = a.shape[0], v.shape[0]
    if a.__class__ is KerasTensor or v.__class__ is KerasTensor:
        n = None if la is None or lv is None else \
            {"valid": max(la, lv) - min(la, lv) + 1, "same": max(la, lv), "full": la + lv - 1}[mode]
        return KerasTensor((n,), a.dtype)
    padded = shape_ops.pad(a, [(lv - 1, lv - 1)])
    full = reduction.sum(ew.multiply(extract_sequences(padded, lv, 1), v), axis=-1)
    if mode == "full":
        return full
    if mode == "same":
        size = max(la, lv)
        start = (la + lv - 1 - size) // 2 if la >= lv else (la + lv - 1 - size + 1) // 2
        return full[start:start + size]
    size = max(la, lv) - min(la, lv) + 1
    return full[min(la, lv) - 1:min(la, lv) - 1 + size]


@keras_op
def view(x, dtype=None):
    """The same bytes reinterpreted as another dtype (numpy `ndarray.view`); no gradient.

    Args:
        x: tensor.
        dtype: the new dtype (None: unchanged).

    Returns:
        Tensor (the last axis rescaled by the itemsize ratio).

    Example:
        >>> ops.view(ops.ones(2, dtype="float32"), "int32")   # [1065353216, 1065353216]
    """
    x = core.convert_to_tensor(x)
    if dtype is None:
        return x
    target = core.to_array(creation.zeros((), dtype)).dtype
    return Tensor(x._value.view(target), x._device)


@keras_op
def histogram(x, bins=10, range=None):  # noqa: A002 - Keras's argument name
    """Counts of `x`'s values in `bins` equal-width bins, and the bin edges.

    Args:
        x: 1-D tensor.
        bins: number of bins (a non-negative int).
        range: `(low, high)` of the bins (default: min and max of x).

    Returns:
        tuple `(counts, edges)`, both in x's dtype (Keras's TensorFlow backend).

    Example:
        >>> counts, edges = ops.histogram(ops.convert_to_tensor([1.0, 2.0, 2.5, 4.0]), bins=3)
    """
    # Keras 3.15.1's checks and texts
    if not isinstance(bins, (int, np.integer)):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError("Argument `bins` should be a non-negative integer. "
                         f"Received: bins={bins}")
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError("Argument `range` must be a tuple of two elements. "
                             f"Received: range={range}")
        if range[1] < range[0]:
            raise ValueError("The second element of `range` must be greater than the first. "
                             f"Received: range={range}")
    x = core.convert_to_tensor(x)
    if x.ndim > 1:
        raise ValueError("Input tensor must be 1-dimensional. "
                         f"Received: input.shape={tuple(x.shape)}")
    if x.__class__ is KerasTensor:
        return KerasTensor((bins,), x.dtype), KerasTensor((bins + 1,), x.dtype)
    counts, edges = np.histogram(core.convert_to_numpy(x), bins=bins, range=range)
    dtype = x.dtype if x.dtype != "int64" else "int32"
    return (core.convert_to_tensor(counts, dtype=dtype),
            core.convert_to_tensor(edges, dtype=dtype))


@keras_op
def cdist(x, y):
    """Euclidean distances between every row of `x` and every row of `y`.

    Args:
        x: tensor `(..., m, d)`.
        y: tensor `(..., n, d)` (same leading axes).

    Returns:
        float Tensor `(..., m, n)`.

    Example:
        >>> ops.cdist(ops.convert_to_tensor([[0.0, 0.0]]), ops.convert_to_tensor([[3.0, 4.0]]))  # [[5.]]
    """
    x, y = core.convert_to_tensor(x), core.convert_to_tensor(y)
    if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError(f"ops.cdist: inputs must be at least 2-D with the same last dimension. "
                         f"Received: x.shape = {tuple(x.shape)}, y.shape = {tuple(y.shape)}")
    dtype = _float_dtype(x, y)
    x, y = core.cast(x, dtype), core.cast(y, dtype)
    diff = ew.subtract(shape_ops.expand_dims(x, -2), shape_ops.expand_dims(y, -3))
    return ew.sqrt(reduction.sum(ew.square(diff), axis=-1))


@keras_op
def polar(abs_, angle):  # noqa: F811 - Keras's argument name shadows the op
    """The complex numbers `abs_ * (cos(angle) + i sin(angle))` (no gradient).

    complex64 from float32 (and smaller) inputs, complex128 from float64, as
    Keras on TensorFlow.

    Example:
        >>> ops.polar(ops.ones(1), ops.zeros(1))   # [1+0j]
    """
    r, theta = _as_float(abs_), _as_float(angle)
    wide = "float64" in (r.dtype, theta.dtype)
    real = "float64" if wide else "float32"
    r, theta = core.cast(r, real), core.cast(theta, real)
    (a, t), _, dev = core.operands("polar", r, theta)
    value = a * dev.xp.cos(t) + 1j * (a * dev.xp.sin(t))
    return Tensor(value.astype("complex128" if wide else "complex64"), dev)


@keras_op
def view_as_complex(x):
    """Pairs along a last axis of size 2 as complex64 numbers (no gradient).

    Example:
        >>> ops.view_as_complex(ops.convert_to_tensor([[1.0, 2.0]]))   # [1+2j]
    """
    x = core.convert_to_tensor(x)
    if x.ndim < 1 or x.shape[-1] != 2:
        raise ValueError(f"ops.view_as_complex: Last dimension of input must be size 2. "
                         f"Received: x.shape = {tuple(x.shape)}")
    value = x._value.astype("float32")
    return Tensor((value[..., 0] + 1j * value[..., 1]).astype("complex64"), x._device)


@keras_op
def view_as_real(x):
    """Real and imaginary parts stacked along a new last axis, as Keras: `real(x)` and
    `imag(x)` keep their dtype (complex128 gives float64, complex64 float32, a real
    tensor its own dtype with zero imaginary parts).

    Args:
        x: tensor (normally complex).

    Returns:
        Tensor of shape `x.shape + (2,)`.

    Example:
        >>> ops.view_as_real(ops.convert_to_tensor(np.array([1 + 2j])))   # [[1., 2.]] float64
    """
    x = core.convert_to_tensor(x)
    return shape_ops.stack([ew.real(x), ew.imag(x)], axis=-1)


def _core_dims(signature):
    """`"(m,n),(n)->(m)"` -> ([["m", "n"], ["n"]], [["m"]]); None -> (None, None)."""
    if signature is None:
        return None, None
    parse = re.compile(r"\(([^()]*)\)")
    if "->" not in signature:
        raise ValueError(f"ops.vectorize: not a valid gufunc signature: {signature!r}")
    inputs, outputs = signature.replace(" ", "").split("->")
    dims = [[[d for d in group.split(",") if d] for group in parse.findall(part)]
            for part in (inputs, outputs)]
    return dims[0], dims[1]


@keras_op
def vectorize(pyfunc, *, excluded=None, signature=None):
    """Makes `pyfunc` loop over the leading (broadcast) axes of its tensor arguments,
    as numpy.vectorize; with a gufunc `signature` ("(d,d)->()") the named trailing
    axes are passed to `pyfunc` whole. Differentiable when `pyfunc` is.

    Args:
        pyfunc: a function of tensors returning a tensor (or a tuple of them).
        excluded: positions or keyword names passed through unchanged.
        signature: optional gufunc signature.

    Returns:
        the vectorized function.

    Example:
        >>> traces = ops.vectorize(ops.trace, signature="(d,d)->()")
        >>> traces(ops.ones((3, 2, 2)))   # [2., 2., 2.]
    """
    excluded = set(excluded or ())
    core_in, _ = _core_dims(signature)

    @functools.wraps(pyfunc)
    def vectorized(*args, **kwargs):
        positions = [i for i in range(len(args)) if i not in excluded]
        tensors = [core.convert_to_tensor(args[i]) for i in positions]
        ncore = [len(core_in[k]) if core_in else 0 for k in range(len(tensors))]
        loop = np.broadcast_shapes(*[tuple(t.shape[:t.ndim - n]) for t, n in zip(tensors, ncore)])
        flat = []
        for t, n in zip(tensors, ncore):
            trailing = tuple(t.shape[t.ndim - n:])
            t = shape_ops.broadcast_to(t, loop + trailing)
            flat.append(shape_ops.reshape(t, (-1,) + trailing))
        results = []
        for index in range(int(np.prod(loop))):
            call = list(args)
            for position, values in zip(positions, flat):
                call[position] = values[index]
            results.append(pyfunc(*call, **kwargs))
        if not results:
            raise ValueError("ops.vectorize: the arguments have no elements to loop over.")
        if isinstance(results[0], (tuple, list)):
            return tuple(_assemble([r[k] for r in results], loop) for k in range(len(results[0])))
        return _assemble(results, loop)
    return vectorized


def _assemble(results, loop):
    stacked = shape_ops.stack([core.convert_to_tensor(r) for r in results], axis=0)
    return shape_ops.reshape(stacked, loop + tuple(stacked.shape[1:]))

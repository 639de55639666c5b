"""Less common numpy-style ops, built from the core ops (so they differentiate).

Integer-only ops (bitwise, gcd, bincount, digitize, unique...) live in
`integer_ops.py`.
"""
import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.backend.dtypes import result_type
from kerasish.ops import (core, elementwise as ew, layout, manipulation as shape_ops, reduction,
                          sorting)
from kerasish.ops.core import convert_to_tensor, float_operand
from kerasish.ops import matrix
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.ops.symbolic import keras_op


@keras_op
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """True when every element is close (numpy.allclose), as a bool tensor.

    Example:
        >>> ops.allclose(ops.ones(2), 1.0 + 1e-9)   # True
    """
    return reduction.all(ew.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


@keras_op
def array_split(x, indices_or_sections, axis=0):
    """Like `split`, but sections may differ by one element (numpy.array_split).

    Example:
        >>> [p.shape for p in ops.array_split(ops.arange(5), 2)]
        [(3,), (2,)]
    """
    x = convert_to_tensor(x)
    if isinstance(indices_or_sections, (int, np.integer)) and x.shape[axis] is None:
        return shape_ops.split(x, indices_or_sections, axis=axis)  # unknown size: all None
    if isinstance(indices_or_sections, (int, np.integer)):
        n, k = x.shape[axis], int(indices_or_sections)
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        indices_or_sections = np.cumsum(sizes)[:-1].tolist()
    return shape_ops.split(x, indices_or_sections, axis=axis)


@keras_op
def hsplit(x, indices_or_sections):
    """Splits along axis 1 (axis 0 for 1-D tensors).

    Example:
        >>> len(ops.hsplit(ops.ones((2, 4)), 2))
        2
    """
    x = convert_to_tensor(x)
    return shape_ops.split(x, indices_or_sections, axis=0 if x.ndim == 1 else 1)


@keras_op
def vsplit(x, indices_or_sections):
    """Splits along axis 0.

    Example:
        >>> len(ops.vsplit(ops.ones((4, 2)), 2))
        2
    """
    return shape_ops.split(x, indices_or_sections, axis=0)


@keras_op
def dsplit(x, indices_or_sections):
    """Splits along axis 2.

    Example:
        >>> len(ops.dsplit(ops.ones((1, 1, 4)), 2))
        2
    """
    return shape_ops.split(x, indices_or_sections, axis=2)


@keras_op
def dstack(xs):
    """Stacks along a third axis (numpy.dstack).

    Example:
        >>> ops.dstack([ops.ones((2, 3)), ops.ones((2, 3))]).shape
        (2, 3, 2)
    """
    parts = []
    for x in xs:
        x = convert_to_tensor(x)
        if x.ndim == 1:
            x = shape_ops.reshape(x, (1, -1, 1))
        elif x.ndim == 2:
            x = shape_ops.expand_dims(x, -1)
        parts.append(x)
    return shape_ops.concatenate(parts, axis=2)


@keras_op
def fliplr(x):
    """Reverses axis 1. Example: `ops.fliplr(ops.eye(2))`."""
    return layout.flip(x, 1)


@keras_op
def flipud(x):
    """Reverses axis 0. Example: `ops.flipud(ops.eye(2))`."""
    return layout.flip(x, 0)


@keras_op
def diagflat(x, k=0):
    """A 2-D matrix with the flattened `x` on the k-th diagonal.

    Example:
        >>> ops.diagflat(ops.convert_to_tensor([[1, 2]]))   # [[1, 0], [0, 2]]
    """
    return matrix.diag(shape_ops.ravel(x), k)


@keras_op
def isin(x1, x2, assume_unique=False, invert=False):
    """True where elements of `x1` occur in `x2`.

    Example:
        >>> ops.isin(ops.convert_to_tensor([1, 2, 3]), [2])   # [False, True, False]
    """
    if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:
        return KerasTensor(tuple(np.shape(x1) if not hasattr(x1, "shape") else x1.shape), "bool")
    (a, b), _, dev = core.operands("isin", x1, x2)
    return Tensor(dev.xp.isin(a, b, assume_unique=assume_unique, invert=invert), dev)


@keras_op
def select(condlist, choicelist, default=0):
    """Picks from `choicelist[i]` where `condlist[i]` first holds (numpy.select).

    Example:
        >>> x = ops.arange(4.0)
        >>> ops.select([x < 1, x > 2], [x, x * 10])   # [0., 0., 0., 30.]
    """
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = ew.where(cond, choice, out)
    return convert_to_tensor(out)


@keras_op
def ptp(x, axis=None, keepdims=False):
    """max - min along `axis`.

    Example:
        >>> ops.ptp(ops.convert_to_tensor([1.0, 4.0]))   # 3.0
    """
    return ew.subtract(reduction.max(x, axis=axis, keepdims=keepdims),
                       reduction.min(x, axis=axis, keepdims=keepdims))


@keras_op
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th percentile(s), q in [0, 100].

    Example:
        >>> ops.percentile(ops.arange(5.0), 50)   # 2.0
    """
    if sorting.is_symbolic(x, q):
        return sorting.quantile_spec(convert_to_tensor(x), q, axis, keepdims)
    # as Keras: q / 100 in floatx (then float64 in quantile)
    floatx = config.floatx()
    q = np.asarray(core.convert_to_numpy(q), dtype=floatx) / np.asarray(100.0, floatx)
    return sorting.quantile(x, q, axis=axis, method=method, keepdims=keepdims)


# Integers and booleans hold no NaN: these reduce them like the plain reduction,
# with its result dtype (int32/uint32 sums and products, the input's for max/min).
_PLAIN = {"nansum": reduction.sum, "nanprod": reduction.prod,
          "nanmax": reduction.max, "nanmin": reduction.min}


def _nan_reduce(name, fn, fill):
    def op(x, axis=None, keepdims=False):
        x = convert_to_tensor(x)
        if name in _PLAIN and not config.is_float_dtype(x.dtype):
            return _PLAIN[name](x, axis, keepdims)
        x = float_operand(x)
        if isinstance(axis, (tuple, list)) and not axis and name in ("nanmax", "nanmin"):
            return x  # no axis reduced: numpy returns the input, NaNs included
        nan = ew.isnan(x)
        return fn(ew.where(nan, fill, x), axis, keepdims, nan)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"`{name[3:]}` ignoring NaNs (numpy.{name}).\n\n"
                  f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n")
    return keras_op(op, name=op.__name__)


def _count(nan, axis, keepdims):
    return reduction.sum(core.cast(ew.logical_not(nan), "float32"), axis=axis, keepdims=keepdims)


nansum = _nan_reduce("nansum", lambda x, a, k, n: reduction.sum(x, a, k), 0.0)
nanprod = _nan_reduce("nanprod", lambda x, a, k, n: reduction.prod(x, a, k), 1.0)
def _all_nan_is_nan(extremum):
    """A slice made only of NaNs gives NaN (numpy), not the +-inf fill."""
    return lambda x, a, k, n: ew.where(reduction.all(n, a, k), np.nan, extremum(x, a, k))


nanmax = _nan_reduce("nanmax", _all_nan_is_nan(reduction.max), -np.inf)
nanmin = _nan_reduce("nanmin", _all_nan_is_nan(reduction.min), np.inf)
nanmean = _nan_reduce("nanmean", lambda x, a, k, n: ew.divide(
    core.cast(reduction.sum(x, a, k), x.dtype), core.cast(_count(n, a, k), x.dtype)), 0.0)


@keras_op
def nanvar(x, axis=None, keepdims=False):
    """Variance ignoring NaNs. Example: `ops.nanvar(ops.convert_to_tensor([1.0, 3.0]))`."""
    x = float_operand(x)
    nan = ew.isnan(x)
    mean = nanmean(x, axis=axis, keepdims=True)
    sq = ew.where(nan, 0.0, ew.square(ew.subtract(x, mean)))
    count = core.cast(_count(nan, axis, keepdims), x.dtype)
    return ew.divide(reduction.sum(sq, axis=axis, keepdims=keepdims), count)


@keras_op
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation ignoring NaNs. Example: `ops.nanstd(ops.ones(2))`."""
    return ew.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


@keras_op
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (numpy.sinc).

    Example:
        >>> ops.sinc(ops.convert_to_tensor([0.0, 0.5]))   # [1., 0.6366]
    """
    x = float_operand(x)
    zero = ew.equal(x, 0.0)
    px = ew.multiply(ew.where(zero, 1.0, x), np.pi)
    return ew.where(zero, 1.0, ew.divide(ew.sin(px), px))


def _strong_dtype(x):
    """The dtype of `x` converted as Keras's TF backend does first (a Python scalar is
    not weak: float32, int32, bool)."""
    return convert_to_tensor(core.strong_scalar(x)).dtype


def _weak_dtype(x):
    """A Python number's type (weak in the promotion), else the tensor's dtype."""
    if isinstance(x, (bool, int, float)) and not hasattr(x, "dtype"):
        return type(x)
    return convert_to_tensor(x).dtype


def _operand_dtype(x1, x2):
    """Keras's rule for logaddexp2/fmod: on real tensors a Python number converts first
    (not weak); traced on KerasTensors (the symbolic dtype) it stays weak."""
    symbolic = KerasTensor in (x1.__class__, x2.__class__)
    return _weak_dtype if symbolic else _strong_dtype


def _as_dtype(x, dtype):
    """`x` as a tensor of `dtype` (a Python scalar is converted straight to it)."""
    if isinstance(x, (bool, int, float)) and not hasattr(x, "dtype"):
        return convert_to_tensor(x, dtype=dtype)
    return core.cast(convert_to_tensor(x), dtype)


@keras_op
def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2), in the inputs' float result dtype (ints and bools
    give floatx; a Python scalar converts to float32/int32 first, as Keras on TF).

    Example:
        >>> ops.logaddexp2(1.0, 1.0)   # 2.0
    """
    dtype = result_type(*map(_operand_dtype(x1, x2), (x1, x2)), float)
    x1, x2 = _as_dtype(x1, dtype), _as_dtype(x2, dtype)
    # Keras's formula, op by op: max + log1p(exp(-|delta| * ln2)) / ln2, where ln2 is
    # float32's log(2) cast to the dtype
    ln2 = convert_to_tensor(np.float32(np.log(np.float32(2.0))), dtype=dtype)
    delta = ew.subtract(x1, x2)
    tail = ew.divide(ew.log1p(ew.exp(ew.multiply(ew.negative(ew.abs(delta)), ln2))), ln2)
    return ew.where(ew.isnan(delta), ew.add(x1, x2), ew.add(ew.maximum(x1, x2), tail))


@keras_op
def fmod(x1, x2):
    """Remainder with the sign of the dividend (C fmod), in the inputs' result
    dtype (integers stay integers, bool gives int32, as Keras).

    Example:
        >>> ops.fmod(ops.convert_to_tensor([-3.0]), 2.0)   # [-1.]
    """
    dtype = result_type(*map(_operand_dtype(x1, x2), (x1, x2)))
    if dtype == "bool":
        dtype = "int32"
    x1, x2 = _as_dtype(x1, dtype), _as_dtype(x2, dtype)
    if not config.is_float_dtype(dtype):  # no gradient for integers
        (a, b), _, dev = core.operands("fmod", x1, x2)
        return Tensor(dev.xp.fmod(a, b), dev)
    # Keras's formula: sign(x1) * floormod(|x1|, |x2|) (a zero result takes x1's sign,
    # fmod(-1.5, 1.5) is -0.0)
    return ew.multiply(ew.sign(x1), ew.mod(ew.abs(x1), ew.abs(x2)))


@keras_op
def heaviside(x1, x2):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, in the inputs' float
    result dtype (integers and bools give floatx; int64 gives float64).

    Example:
        >>> ops.heaviside(ops.convert_to_tensor([-1.0, 0.0, 2.0]), 0.5)   # [0., 0.5, 1.]
    """
    dtype = result_type(_strong_dtype(x1), _strong_dtype(x2))
    if not config.is_float_dtype(dtype):
        dtype = "float64" if dtype == "int64" else config.floatx()
    x1, x2 = _as_dtype(x1, dtype), _as_dtype(x2, dtype)
    return ew.where(ew.greater(x1, 0), 1.0, ew.where(ew.less(x1, 0), 0.0, x2))


@keras_op
def kron(x1, x2):
    """Kronecker product of two tensors of equal rank.

    Example:
        >>> ops.kron(ops.eye(2), ops.ones((2, 2))).shape
        (4, 4)
    """
    a, b = convert_to_tensor(x1), convert_to_tensor(x2)
    if a.ndim != b.ndim:
        raise ValueError(f"ops.kron: needs inputs of equal rank; got {core.describe(a, b)}.")
    n = a.ndim
    a_exp = shape_ops.reshape(a, sum(((d, 1) for d in a.shape), ()))
    b_exp = shape_ops.reshape(b, sum(((1, d) for d in b.shape), ()))
    return shape_ops.reshape(ew.multiply(a_exp, b_exp), tuple(a.shape[i] * b.shape[i] for i in range(n)))


@keras_op
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along an axis (numpy.cross: a 2-vector has
    z = 0; two 2-vectors give the z component only).

    Example:
        >>> ops.cross(ops.convert_to_tensor([1.0, 0, 0]), ops.convert_to_tensor([0.0, 1, 0]))  # [0,0,1]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a = shape_ops.moveaxis(convert_to_tensor(x1), axisa, -1)
    b = shape_ops.moveaxis(convert_to_tensor(x2), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"ops.cross: needs 2- or 3-vectors along the axis; got "
                         f"{core.describe(a, b)}.")
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if a.shape[-1] == b.shape[-1] == 2:  # numpy: the z component only, the axis dropped
        return ew.subtract(ew.multiply(a0, b1), ew.multiply(a1, b0))
    # a 2-vector has a zero z component (numpy)
    a2 = a[..., 2] if a.shape[-1] == 3 else ew.multiply(a0, 0.0)
    b2 = b[..., 2] if b.shape[-1] == 3 else ew.multiply(b0, 0.0)
    out = shape_ops.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return shape_ops.moveaxis(out, -1, axisc)


@keras_op
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of `y` by the trapezoidal rule (numpy.trapezoid).

    Example:
        >>> ops.trapezoid(ops.convert_to_tensor([1.0, 2.0, 3.0]))   # 4.0
    """
    y = float_operand(y)
    axis = axis % y.ndim
    hi = [slice(None)] * y.ndim
    lo = [slice(None)] * y.ndim
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    mids = ew.multiply(ew.add(y[tuple(hi)], y[tuple(lo)]), 0.5)
    widths = dx if x is None else layout.diff(x, axis=-1 if convert_to_tensor(x).ndim == 1 else axis)
    if x is not None and convert_to_tensor(x).ndim == 1 and y.ndim > 1:
        view = [1] * y.ndim
        view[axis] = -1
        widths = shape_ops.reshape(widths, view)
    return reduction.sum(ew.multiply(mids, widths), axis=axis)


@keras_op
def vander(x, N=None, increasing=False):
    """Vandermonde matrix of a 1-D tensor.

    Example:
        >>> ops.vander(ops.convert_to_tensor([2.0, 3.0]), 3)   # [[4, 2, 1], [9, 3, 1]]
    """
    x = convert_to_tensor(x)
    n = x.shape[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return ew.power(shape_ops.expand_dims(x, -1), core.convert_to_tensor(powers.copy(), dtype=x.dtype))


@keras_op
def get_item(x, key):
    """`x[key]` as a function (Keras `ops.get_item`).

    Example:
        >>> ops.get_item(ops.arange(3), 1)   # 1
    """
    return convert_to_tensor(x)[key]


@keras_op
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, (x + 1) / 2 between.

    Example:
        >>> ops.sparse_sigmoid(ops.convert_to_tensor([-2.0, 0.0, 2.0]))   # [0., 0.5, 1.]
    """
    x = float_operand(x)
    return ew.clip(ew.multiply(ew.add(x, 1.0), 0.5), 0.0, 1.0)


@keras_op
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio in dB: 20 log10(max_val) - 10 log10(mse).

    Example:
        >>> ops.psnr(ops.ones((4,)), ops.zeros((4,)), 1.0)   # 0.0
    """
    x1, x2 = float_operand(x1), float_operand(x2)
    if x1.__class__ is KerasTensor or x2.__class__ is KerasTensor:  # Keras's rule: a scalar
        return KerasTensor((), x1.dtype)
    if x1.shape != x2.shape:
        raise ValueError(f"ops.psnr: inputs must have the same shape; got {core.describe(x1, x2)}.")
    mse = reduction.mean(ew.square(ew.subtract(x1, x2)))
    # as Keras: max_val becomes a tensor of x2's dtype (a numpy float64 scalar made it float64)
    peak = ew.multiply(ew.log10(convert_to_tensor(max_val, dtype=x2.dtype)), 20.0)
    return ew.subtract(peak, ew.multiply(ew.log10(mse), 10.0))

"""Integer ops: bitwise logic and shifts, gcd/lcm, bincount, digitize, unique, ...

None of them has a gradient (their inputs are integers).
"""
import numpy as np

from kerasish.autodiff.tensor import Tensor
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.ops import core, elementwise as ew
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.symbolic import keras_op


def _raw_int_op(name, fn, weak_shift=False):
    def op(x, y):
        # As Keras's TF backend: Python ints are converted first (int32), not weak;
        # only a shift's Python-int amount takes the other operand's dtype
        x = core.strong_scalar(x)
        if not (weak_shift and isinstance(y, int) and not isinstance(y, bool)):
            y = core.strong_scalar(y)
        if x.__class__ is KerasTensor or y.__class__ is KerasTensor:
            return core.symbolic_elementwise(op, (x, y), name=name)
        (a, b), _, dev = core.operands(name, x, y)
        a, b = core.promote(a, b)
        for v in (a, b):
            if getattr(v, "dtype", np.dtype(int)).kind not in "iub":
                raise TypeError(f"ops.{name}: needs integer or bool inputs; got "
                                f"{core.describe(a, b)}.")
        return Tensor(fn(dev.xp)(a, b), dev)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise `{name}` of integer tensors (no gradient).\n\n"
                  f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([12]), 8)\n")
    return keras_op(op, name=op.__name__)


bitwise_and = _raw_int_op("bitwise_and", lambda xp: xp.bitwise_and)
bitwise_or = _raw_int_op("bitwise_or", lambda xp: xp.bitwise_or)
bitwise_xor = _raw_int_op("bitwise_xor", lambda xp: xp.bitwise_xor)
bitwise_left_shift = _raw_int_op("bitwise_left_shift", lambda xp: xp.left_shift, True)
bitwise_right_shift = _raw_int_op("bitwise_right_shift", lambda xp: xp.right_shift, True)
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift
gcd = _raw_int_op("gcd", lambda xp: xp.gcd)
lcm = _raw_int_op("lcm", lambda xp: xp.lcm)


@keras_op
def bitwise_invert(x):
    """Bitwise NOT of an integer/bool tensor.

    Example:
        >>> ops.bitwise_invert(ops.convert_to_tensor([0], "int8"))   # [-1]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:  # Keras infers without checking the dtype
        return KerasTensor(x.shape, x.dtype)
    if x._value.dtype.kind not in "iub":
        raise TypeError(f"ops.bitwise_invert: needs integer or bool input; got {core.describe(x)}.")
    return Tensor(x._device.xp.invert(x._value), x._device)


bitwise_not = bitwise_invert


@keras_op
def digitize(x, bins):
    """Index of the bin each value falls in (numpy.digitize, int32).

    Example:
        >>> ops.digitize(ops.convert_to_tensor([0.5, 2.5]), [1.0, 2.0])   # [0, 2]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor or bins.__class__ is KerasTensor:
        if len(getattr(bins, "shape", np.shape(bins))) != 1:
            raise ValueError(f"ops.digitize: `bins` must be a 1-D array. Received: bins.shape="
                             f"{tuple(getattr(bins, 'shape', np.shape(bins)))}")
        return KerasTensor(x.shape, "int32")
    edges = core.to_array(bins, x._device)
    return Tensor(x._device.xp.digitize(x._value, edges).astype("int32"), x._device)


@keras_op
def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative integer (weighted sums with `weights`).

    Example:
        >>> ops.bincount(ops.convert_to_tensor([0, 1, 1, 3]))   # [1, 2, 0, 1]
    """
    if sparse:
        raise NotImplementedError("ops.bincount: sparse=True is not supported.")
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor or weights.__class__ is KerasTensor:  # the count is unknown
        dtype = "int32" if weights is None else core.config.standardize_dtype(
            core.result_type(x.dtype, weights.dtype))
        return KerasTensor(x.shape[:-1] + (None,), dtype)
    xp = x._device.xp
    w = None if weights is None else core.to_array(weights, x._device)
    if x.ndim == 2:
        rows = [xp.bincount(r, None if w is None else wr, minlength=minlength)
                for r, wr in zip(x._value, w if w is not None else [None] * x.shape[0])]
        size = max(len(r) for r in rows)
        out = xp.stack([xp.pad(r, (0, size - len(r))) for r in rows])
    else:
        out = xp.bincount(x._value, w, minlength=minlength)
    dtype = "int32" if w is None else core.result_dtype(x._value, w)
    return Tensor(out.astype(dtype), x._device)


@keras_op
def unravel_index(indices, shape):
    """Coordinates of flat `indices` in an array of `shape` (tuple of int32 tensors).

    Example:
        >>> ops.unravel_index(ops.convert_to_tensor([5]), (2, 3))   # ([1], [2])
    """
    idx = convert_to_tensor(indices)
    if idx.__class__ is KerasTensor:
        return tuple(KerasTensor(idx.shape, idx.dtype) for _ in tuple(shape))
    coords = idx._device.xp.unravel_index(idx._value, tuple(shape))
    return tuple(Tensor(c.astype(idx._value.dtype), idx._device) for c in coords)


@keras_op
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
           axis=None, size=None, fill_value=None):
    """Unique values (numpy.unique), optionally with inverse indices and counts.

    Example:
        >>> ops.unique(ops.convert_to_tensor([3, 1, 3]))   # [1, 3]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return _symbolic_unique(x, return_index, return_inverse, return_counts, axis, size)
    xp = x._device.xp
    res = xp.unique(x._value, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=False)  # NaNs kept apart
    res = [res] if not (return_index or return_inverse or return_counts) else list(res)
    if size is not None:
        res = _unique_to_size(xp, res, int(size), 0 if axis is None else axis % x.ndim,
                              fill_value, return_index, return_counts)
    if len(res) == 1:
        return Tensor(res[0], x._device)
    return tuple(Tensor(r if i == 0 else r.astype("int32"), x._device) for i, r in enumerate(res))


def _unique_to_size(xp, res, size, dim, fill_value, return_index, return_counts):
    """Keras's `size`: the values (with their indices and counts) truncated to `size`
    along `dim`, or padded with `fill_value` (0 by default), counts with 0, indices with 1."""
    values = res[0]
    have = values.shape[dim]
    if have > size:
        cut = [slice(None)] * values.ndim
        cut[dim] = slice(0, size)
        res[0] = values[tuple(cut)]
        if return_index:
            res[1] = res[1][:size]
        if return_counts:
            res[-1] = res[-1][:size]
    elif have < size:
        widths = [(0, 0)] * values.ndim
        widths[dim] = (0, size - have)
        res[0] = xp.pad(values, widths, constant_values=0 if fill_value is None else fill_value)
        if return_index:
            res[1] = xp.pad(res[1], (0, size - have), constant_values=1)
        if return_counts:
            res[-1] = xp.pad(res[-1], (0, size - have), constant_values=0)
    return res


def _symbolic_unique(x, return_index, return_inverse, return_counts, axis, size):
    """Keras's rule: the number of unique entries is unknown (None) unless `size` is given."""
    if axis is None:
        values = KerasTensor((size,), x.dtype)
        inverse = KerasTensor(x.shape, "int32")
    else:
        axis = axis % x.ndim
        values = KerasTensor(x.shape[:axis] + (size,) + x.shape[axis + 1:], x.dtype)
        inverse = KerasTensor((x.shape[axis],), "int32")
    out = [values]
    if return_index:
        out.append(KerasTensor((size,), "int32"))
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(KerasTensor((size,), "int32"))
    return out[0] if len(out) == 1 else tuple(out)


@keras_op
def saturate_cast(x, dtype):
    """Casts with clipping to the target dtype's range (no overflow wrap-around).

    Example:
        >>> ops.saturate_cast(ops.convert_to_tensor([300.0, -5.0]), "uint8")   # [255, 0]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor(x.shape, core.config.standardize_dtype(dtype))
    target = core.config.to_numpy_dtype(dtype)
    if target.kind == "b":  # Keras clips to [False, True] = [0, 1], then casts
        return core.cast(ew.clip(x, 0, 1), dtype)
    info = np.iinfo(target) if target.kind in "iu" else core.config.finfo(target)
    lo, hi = max(info.min, -np.inf), info.max
    if x._value.dtype.kind in "iu":
        src = np.iinfo(x._value.dtype)
        lo, hi = max(lo, src.min), min(hi, src.max)
    return core.cast(ew.clip(x, lo, hi), dtype)

"""NaN-ignoring reductions and scans: nanargmax/nanargmin, nancumsum/nancumprod,
nanmedian, nanquantile, nanpercentile.

(`nansum`, `nanmean`, `nanmax`, ... live in `extras.py`.) Everything is
composed from differentiable ops: NaNs are replaced by a neutral value, and
the quantiles gather from the sorted values (NaNs sort last) at a position
that depends on each slice's count of non-NaN values.
"""
import numpy as np

from kerasish.ops import core, elementwise as ew, manipulation as shape_ops, reduction
from kerasish.ops.indexing import take_along_axis
from kerasish.ops.sorting import is_symbolic, quantile_spec, sort
from kerasish.ops.symbolic import keras_op

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _nan_arg(name, fill):
    def op(x, axis=None, keepdims=False):
        x = core.convert_to_tensor(x)
        if x.dtype == "bool" or not x.dtype.startswith(("float", "bfloat")):
            arg = getattr(reduction, name[3:])
            return arg(x, axis=axis, keepdims=keepdims)
        nan = ew.isnan(x)
        index = getattr(reduction, name[3:])(ew.where(nan, fill, x), axis=axis, keepdims=keepdims)
        all_nan = reduction.all(nan, axis=axis, keepdims=keepdims)
        return ew.where(all_nan, core.cast(-1, "int32"), index)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Index of the {name[6:]}imum along `axis`, ignoring NaNs (-1 for an all-NaN slice).\n\n"
        "    Args:\n        x: tensor.\n        axis: int or None (the flattened tensor).\n"
        "        keepdims: keep the reduced axis with size 1.\n\n"
        "    Returns:\n        int32 Tensor.\n\n"
        f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n")
    return keras_op(op, name=op.__name__)


nanargmax = _nan_arg("nanargmax", -np.inf)
nanargmin = _nan_arg("nanargmin", np.inf)


def _nan_scan(name, scan, neutral):
    def op(x, axis=None, dtype=None):
        x = core.convert_to_tensor(x, dtype=dtype)
        if x.dtype.startswith(("float", "bfloat")):
            x = ew.where(ew.isnan(x), core.cast(neutral, x.dtype), x)
        if isinstance(axis, (tuple, list)):  # Keras accepts () (no scan) and (axis,)
            if len(axis) > 1:
                raise ValueError(f"ops.{name}: `axis` must be an int, a 1-tuple or None. "
                                 f"Received: axis={axis}")
            if not axis:  # nothing to accumulate over
                return x if x.dtype != "bool" else core.cast(x, "int32")
            axis = axis[0]
        return scan(x, axis=axis)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Cumulative {name[6:]} along `axis`, NaNs counted as {neutral}.\n\n"
        "    Args:\n        x: tensor.\n        axis: int or None (the flattened tensor).\n"
        "        dtype: optional dtype to compute in.\n\n"
        "    Returns:\n        Tensor (bool and small ints accumulate in int32, as Keras).\n\n"
        f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n")
    return keras_op(op, name=op.__name__)


nancumsum = _nan_scan("nancumsum", reduction.cumsum, 0)
nancumprod = _nan_scan("nancumprod", reduction.cumprod, 1)


def _to_last_axis(x, axis):
    """Moves the reduced axes of `x` to one trailing axis; returns it and the keepdims shape."""
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(sorted(a % x.ndim for a in (axis if isinstance(axis, (tuple, list))
                                                  else (axis,))))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = shape_ops.transpose(x, kept + list(axes)) if x.ndim else x
    flat = shape_ops.reshape(moved, tuple(x.shape[a] for a in kept) + (-1,))
    keep_shape = tuple(1 if a in axes else x.shape[a] for a in range(x.ndim))
    return flat, keep_shape


def _gather(ordered, position):
    return shape_ops.squeeze(take_along_axis(ordered, position, axis=-1), -1)


def _quantile_one(ordered, count, q, method):
    """The q-quantile of each row of `ordered` (NaNs last) with `count` valid values."""
    pos = ew.multiply(ew.subtract(count, 1.0), q)
    lo_f, hi_f = ew.floor(pos), ew.ceil(pos)
    if method == "nearest":
        lo_f = hi_f = ew.round(pos)
    elif method == "lower":
        hi_f = lo_f
    elif method == "higher":
        lo_f = hi_f
    last = ew.maximum(ew.subtract(count, 1.0), 0.0)
    lo = core.cast(ew.clip(lo_f, 0.0, last), "int32")
    hi = core.cast(ew.clip(hi_f, 0.0, last), "int32")
    a, b = _gather(ordered, lo), _gather(ordered, hi)
    if method == "linear":
        frac = shape_ops.squeeze(ew.subtract(pos, lo_f), -1)
        same = ew.equal(lo, hi)[..., 0]  # on a sample: exactly it (inf - inf would be NaN)
        zero = core.cast(0, a.dtype)
        a_, b_ = ew.where(same, zero, a), ew.where(same, zero, b)
        lerp = ew.add(a_, ew.multiply(ew.subtract(b_, a_), core.cast(frac, a.dtype)))
        value = ew.where(same, a, lerp)
    elif method == "midpoint":
        value = ew.multiply(ew.add(a, b), 0.5)
    else:
        value = a
    empty = shape_ops.squeeze(ew.equal(count, 0.0), -1)
    return ew.where(empty, core.cast(np.nan, value.dtype), value)


@keras_op
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th quantile(s) along `axis`, ignoring NaNs (NaN for an all-NaN slice).

    Args:
        x: tensor (int and bool inputs are computed in floatx).
        q: a float in [0, 1] or a 1-D list of them.
        axis: int, tuple of ints, or None (all axes).
        method: "linear", "lower", "higher", "midpoint" or "nearest".
        keepdims: keep the reduced axes with size 1.

    Returns:
        Tensor (with a leading axis for each q when q is a list).

    Example:
        >>> ops.nanquantile(ops.convert_to_tensor([1.0, float("nan"), 3.0]), 0.5)   # 2.0
    """
    if method not in _METHODS:
        raise ValueError(f"ops.nanquantile: `method` must be one of {_METHODS}. "
                         f"Received: method={method!r}")
    if is_symbolic(x, q):
        return quantile_spec(core.convert_to_tensor(x), q, axis, keepdims)
    x = core.float_operand(x)
    qs = np.asarray(core.convert_to_numpy(q), dtype=np.float64)
    if isinstance(axis, (tuple, list)) and not axis:  # nothing to reduce: x itself, per q
        return x if qs.ndim == 0 else shape_ops.stack([x] * qs.size, axis=0)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"ops.nanquantile: `q` must be in [0, 1]. Received: q={q!r}")
    flat, keep_shape = _to_last_axis(x, axis)
    ordered = sort(flat, axis=-1)
    count = reduction.sum(core.cast(ew.logical_not(ew.isnan(flat)), "float64"), axis=-1,
                          keepdims=True)
    results = []
    for qi in np.atleast_1d(qs):
        value = _quantile_one(ordered, count, float(qi), method)
        results.append(shape_ops.reshape(value, keep_shape) if keepdims else value)
    return results[0] if qs.ndim == 0 else shape_ops.stack(results, axis=0)


@keras_op
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th percentile(s) along `axis`, ignoring NaNs; q in [0, 100].

    Args:
        x, axis, method, keepdims: as in `nanquantile`.
        q: a float in [0, 100] or a 1-D list of them.

    Returns:
        Tensor.

    Example:
        >>> ops.nanpercentile(ops.convert_to_tensor([1.0, float("nan"), 3.0]), 50)   # 2.0
    """
    if is_symbolic(x, q):
        return quantile_spec(core.convert_to_tensor(x), q, axis, keepdims)
    qs = np.asarray(core.convert_to_numpy(q), dtype=np.float64) / 100.0
    return nanquantile(x, qs, axis=axis, method=method, keepdims=keepdims)


@keras_op
def nanmedian(x, axis=None, keepdims=False):
    """The median along `axis`, ignoring NaNs.

    Args:
        x: tensor.
        axis: int, tuple of ints, or None (all axes).
        keepdims: keep the reduced axes with size 1.

    Returns:
        Tensor.

    Example:
        >>> ops.nanmedian(ops.convert_to_tensor([1.0, float("nan"), 2.0, 9.0]))   # 2.0
    """
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)

"""Sorting and ranking: sort, argsort, top_k, in_top_k, searchsorted, median, quantile.

Sorted values are gathers (`take_along_axis`), so their gradients flow back
to the picked elements. Ties keep the lower index first (stable sorts), as
TensorFlow's and JAX's `top_k` do.
"""
import collections

import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew, reduction, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.indexing import take_along_axis
from kerasish.ops.symbolic import keras_op


def _stable_argsort(xp, a, axis, descending=False):
    if descending:
        if a.dtype.kind in "ub":
            a = a.astype("int64")
        a = -a
    return xp.argsort(a, axis=axis, kind="stable")


@keras_op
def argsort(x, axis=-1):
    """Indices that sort `x` ascending along `axis` (stable; int32).

    Args:
        x: tensor.
        axis: the axis (None: the flattened tensor).

    Returns:
        int32 Tensor.

    Example:
        >>> ops.argsort(ops.convert_to_tensor([3, 1, 2]))   # [1, 2, 0]
    """
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = shape_ops.ravel(x), 0
    if x.__class__ is KerasTensor:
        shape_ops._axis("argsort", axis, x.ndim)
        return KerasTensor(x.shape, "int32")
    xp = x._device.xp
    return Tensor(_stable_argsort(xp, x._value, axis).astype("int32"), x._device)


@keras_op
def sort(x, axis=-1):
    """Sorts ascending along `axis`; the gradient flows to the original positions.

    Example:
        >>> ops.sort(ops.convert_to_tensor([3.0, 1.0, 2.0]))   # [1., 2., 3.]
    """
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = shape_ops.ravel(x), 0
    if x.ndim == 0:
        return x
    if x.__class__ is KerasTensor:
        shape_ops._axis("sort", axis, x.ndim)
        return KerasTensor(x.shape, x.dtype)
    return take_along_axis(x, argsort(x, axis=axis), axis=axis)


@keras_op
def top_k(x, k, sorted=True):
    """The `k` largest entries along the last axis and their indices.

    Args:
        x: tensor (..., n).
        k: how many.
        sorted: results in descending order; False gives TensorFlow's CPU order
            (the array order of its top-k heap, gtl::TopN with libstdc++'s heap
            algorithms), as Keras on TensorFlow (k == 1 or k == n: sorted).

    Returns:
        (values, int32 indices), each (..., k): a `TopKV2(values, indices)` named
        tuple for tensors, as TensorFlow's.

    Example:
        >>> values, idx = ops.top_k(ops.convert_to_tensor([1.0, 5.0, 3.0]), 2)  # [5., 3.], [1, 2]
    """
    x = convert_to_tensor(x)
    k = int(k)
    if x.__class__ is KerasTensor and x.ndim and x.shape[-1] is None:
        shape = x.shape[:-1] + (k,)
        return KerasTensor(shape, x.dtype), KerasTensor(shape, "int32")
    if x.ndim == 0 or not 0 <= k <= x.shape[-1]:
        raise ValueError(f"ops.top_k: k={k} must be in [0, {x.shape[-1] if x.ndim else 0}] "
                         f"for input {core.describe(x)}.")
    if x.__class__ is KerasTensor:
        shape = x.shape[:-1] + (k,)
        return KerasTensor(shape, x.dtype), KerasTensor(shape, "int32")
    xp = x._device.xp
    n = x.shape[-1]
    if not sorted and 1 < k < n:
        rows = core.convert_to_numpy(x).reshape(-1, n)
        idx = np.array([_tf_top_n_unsorted(row.tolist(), k) for row in rows],
                       dtype="int32").reshape(x.shape[:-1] + (k,))
        indices = Tensor(x._device.send(idx), x._device)
    else:
        idx = _stable_argsort(xp, x._value, -1, descending=True)[..., :k].astype("int32")
        indices = Tensor(idx, x._device)
    return TopKV2(take_along_axis(x, indices, axis=-1), indices)


def _tf_top_n_unsorted(values, k):
    """The indices TensorFlow's TopK kernel returns unsorted for one row: gtl::TopN's
    element array after pushing 0..n-1 (the first k + 1 in order, then a heap keeping
    the k best; better = larger value, ties to the lower index), with libstdc++'s
    make_heap/pop_heap/push_heap."""
    def better(a, b):  # TF's stable_comp: is index `a` ranked above index `b`?
        if values[b] < values[a]:
            return True
        if values[b] > values[a]:
            return False
        return a < b

    heap = list(range(min(k + 1, len(values))))
    _make_heap(heap, better)
    _pop_heap(heap, better)
    heap.pop()
    for c in range(k + 1, len(values)):
        if better(c, heap[0]):
            _pop_heap(heap, better)
            heap[-1] = c
            _push_heap(heap, len(heap) - 1, 0, c, better)
    return heap


def _push_heap(heap, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _adjust_heap(heap, hole, length, value, less):
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _push_heap(heap, hole, top, value, less)


def _make_heap(heap, less):
    length = len(heap)
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(heap, parent, length, heap[parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(heap, less):
    """Moves the heap's top to the end (the rest stays a heap)."""
    last = len(heap) - 1
    if last > 0:
        value = heap[last]
        heap[last] = heap[0]
        _adjust_heap(heap, 0, last, value, less)


# What TensorFlow's top_k returns (and Keras's TF backend prints): a named pair.
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@keras_op
def in_top_k(targets, predictions, k):
    """True where the target class's score is among the `k` largest (ties count).

    As TensorFlow's `in_top_k`, a target outside `[0, classes)` or a row with a
    non-finite score gives False.

    Args:
        targets: int labels (batch,).
        predictions: scores (batch, classes).
        k: how many top entries count.

    Returns:
        bool Tensor (batch,).

    Example:
        >>> ops.in_top_k([1], [[0.1, 0.7, 0.2]], 1)   # [True]
    """
    preds = convert_to_tensor(predictions)
    labels = convert_to_tensor(targets)
    if preds.__class__ is KerasTensor or labels.__class__ is KerasTensor:
        return KerasTensor(labels.shape, "bool")
    core.check_finite_input("in_top_k", labels._value)
    xp = preds._device.xp
    lv = core.to_array(labels, preds._device).astype("int64")
    classes = preds.shape[-1]
    if int(k) < 1 or classes == 0:
        return Tensor(xp.zeros(lv.shape, dtype=bool), preds._device)
    # as TensorFlow's InTopK: an out-of-range target, or a row with a non-finite score,
    # gives False
    valid = (lv >= 0) & (lv < classes) & xp.isfinite(preds._value).all(axis=-1)
    picked = xp.take_along_axis(preds._value, xp.clip(lv, 0, classes - 1)[..., None], axis=-1)
    kth = -xp.sort(-preds._value, axis=-1)[..., min(int(k), classes) - 1:][..., :1]
    return Tensor((picked >= kth)[..., 0] & valid, preds._device)


@keras_op
def searchsorted(sorted_sequence, values, side="left"):
    """Insertion indices of `values` into a sorted 1-D sequence (int32).

    Example:
        >>> ops.searchsorted(ops.convert_to_tensor([1, 3, 5]), ops.convert_to_tensor([4]))  # [2]
    """
    seq = convert_to_tensor(sorted_sequence)
    if seq.ndim != 1:
        raise ValueError(f"ops.searchsorted: sorted_sequence must be 1-D; got shape {seq.shape}.")
    if seq.__class__ is KerasTensor or values.__class__ is KerasTensor:
        # Keras: int32 unless the sequence's length is unknown (or past int32)
        dtype = "int32" if seq.shape[0] is not None and seq.shape[0] <= 2**31 - 1 else "int64"
        return KerasTensor(tuple(getattr(values, "shape", np.shape(values))), dtype)
    vals = core.to_array(values, seq._device)
    return Tensor(seq._device.xp.searchsorted(seq._value, vals, side=side).astype("int32"),
                  seq._device)


def quantile_spec(x, q, axis, keepdims):
    """The output KerasTensor of quantile/percentile and their nan* forms on symbolic
    inputs (Keras's rule): the reduced shape of `x`, after `len(q)` for a 1-D `q`."""
    shape = tuple(x.shape)
    axes = range(len(shape)) if axis is None else {
        a % len(shape) for a in (axis if isinstance(axis, (list, tuple)) else [axis])}
    if keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    q_shape = getattr(q, "shape", None)
    if q_shape is not None:
        out = (tuple(q_shape)[0],) + out if len(q_shape) > 0 else out
    elif isinstance(q, (list, tuple)):
        out = (len(q),) + out
    dtype = config.floatx() if x.dtype == "int64" else result_type(x.dtype, float)
    return KerasTensor(out, dtype)


def is_symbolic(*values):
    """Whether any of the values is a KerasTensor."""
    return any(v.__class__ is KerasTensor for v in values)


@keras_op
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The q-th quantile(s) along `axis`, by linear interpolation of the sorted values.

    Args:
        x: tensor.
        q: a float in [0, 1] or a 1-D list of them.
        axis: int, tuple of ints, or None (all axes).
        method: "linear", "lower", "higher", "midpoint" or "nearest".
        keepdims: keep the reduced axes with length 1.

    Returns:
        Tensor (with a leading axis for each q when q is a list).

    Example:
        >>> ops.quantile(ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0]), 0.5)   # 2.5
    """
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("ops.quantile: `method` must be one of 'linear', 'lower', 'higher', "
                         f"'midpoint', 'nearest'. Received: method={method}")
    if is_symbolic(x, q):
        return quantile_spec(convert_to_tensor(x), q, axis, keepdims)
    x = core.float_operand(x)
    kept_shape = None  # the keepdims shape when several axes are merged into one
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) != 1):
        axes = range(x.ndim) if axis is None else sorted(a % x.ndim for a in axis)
        kept_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        rest = [i for i in range(x.ndim) if i not in axes]
        x = shape_ops.transpose(x, rest + list(axes))
        x = shape_ops.reshape(x, tuple(x.shape[:len(rest)]) + (-1,))
        axis = len(rest)
    elif isinstance(axis, (tuple, list)):
        axis = axis[0]
    flat = kept_shape is not None
    axis = axis % x.ndim
    # as Keras: `q` becomes a tensor first (a Python float a float32) and then float64
    qs = np.atleast_1d(core.convert_to_numpy(core.convert_to_tensor(q)).astype(np.float64))
    n = x.shape[axis]
    ordered = sort(x, axis=axis)
    # a slice holding a NaN gives NaN (Keras's TensorFlow backend)
    has_nan = reduction.any(ew.isnan(x), axis=axis, keepdims=True)
    results = []
    for qi in qs:
        value = _interpolated(ordered, float(qi), n, axis, method, x.dtype)
        value = ew.where(has_nan, np.asarray(np.nan, x.dtype), value)
        if not keepdims:
            value = shape_ops.squeeze(value, axis)
        elif flat:  # numpy keeps every reduced axis with length 1
            value = shape_ops.reshape(value, kept_shape)
        results.append(value)
    if np.ndim(core.convert_to_numpy(q)) == 0:
        return results[0]
    return shape_ops.stack(results, axis=0)


def _interpolated(ordered, q, n, axis, method, dtype):
    """One quantile of the sorted values as Keras's TensorFlow backend (tfp's percentile)
    computes it: the index `(n - 1) * q` in float64; "linear" weighs the values at
    `larger = ceil(index)` (clipped) and `smaller = larger - 1` by `1 - fraction` and
    `fraction = larger - index`, the fraction rounded to the values' dtype first."""
    exact = (n - 1) * q
    lower, higher = int(np.floor(exact)), int(np.ceil(exact))
    if method == "linear":
        larger = min(max(higher, 0), n - 1)
        smaller = max(larger - 1, 0)
        larger = min(smaller + 1, n - 1)
        fraction = np.asarray(larger - exact, dtype=np.float64).astype(dtype)
        return ew.add(ew.multiply(shape_ops.take(ordered, [larger], axis=axis),
                                  np.asarray(1, dtype) - fraction),
                      ew.multiply(shape_ops.take(ordered, [smaller], axis=axis), fraction))
    if method == "midpoint":
        return ew.multiply(0.5, ew.add(shape_ops.take(ordered, [lower], axis=axis),
                                       shape_ops.take(ordered, [higher], axis=axis)))
    index = {"lower": lower, "higher": higher, "nearest": int(np.round(exact))}[method]
    return shape_ops.take(ordered, [min(max(index, 0), n - 1)], axis=axis)


@keras_op
def median(x, axis=None, keepdims=False):
    """The median along `axis` (mean of the two middle values for even counts).

    Example:
        >>> ops.median(ops.convert_to_tensor([3.0, 1.0, 2.0]))   # 2.0
    """
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


@keras_op
def average(x, axis=None, weights=None):
    """Weighted mean along `axis` (plain mean without weights).

    Args:
        x: tensor.
        axis: int or None.
        weights: 1-D weights along `axis`, or weights shaped like `x`.

    Returns:
        Tensor.

    Example:
        >>> ops.average(ops.convert_to_tensor([1.0, 3.0]), weights=[3.0, 1.0])   # 1.5
    """
    x = core.convert_to_tensor(x)
    if weights is None:
        return reduction.mean(core.cast(x, result_type(x.dtype, float)), axis=axis)
    w = core.convert_to_tensor(weights)
    dtype = result_type(x.dtype, float, w.dtype)  # Keras: x, weights and a weak float
    x, w = core.cast(x, dtype), core.cast(w, dtype)
    if w.shape != x.shape:
        if axis is None or w.ndim != 1:
            raise ValueError(f"ops.average: weights of shape {w.shape} do not fit x of shape "
                             f"{x.shape} (1-D weights need an axis).")
        view = [1] * x.ndim
        view[axis] = -1
        w = shape_ops.reshape(w, view)
    total = reduction.sum(ew.multiply(x, w), axis=axis)
    return ew.divide(total, reduction.sum(ew.multiply(ew.add(ew.multiply(x, 0.0), 1.0), w), axis=axis))

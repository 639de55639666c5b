"""Gathers and scatters: take, take_along_axis, `x[key]`, scatter, slice_update, one_hot.

Gradients of gathers scatter-add into zeros (repeated indices accumulate);
the scatter-adds are ops themselves, so second order works too.
"""
import builtins

import numpy as np

from kerasish.autodiff import indexed_slices
from kerasish.autodiff.capture import derive
from kerasish.autodiff.keras_tensor import KerasTensor, NoShapeRule
from kerasish.autodiff.op import Op, broadcast_shapes
from kerasish.autodiff.tensor import Tensor
from kerasish.backend.config import is_float
from kerasish.backend import config
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.symbolic import keras_op


def check_indices(name, idx):
    """Raises a clear TypeError unless `idx` (raw array) holds integers or booleans."""
    if idx.dtype.kind not in "iub":
        raise TypeError(
            f"ops.{name}: indices must be integers; got dtype {idx.dtype.name} "
            f"(shape {tuple(idx.shape)}). Cast them with ops.cast(indices, 'int32').")


def _index_array(name, indices, device):
    idx = core.to_array(indices, device)
    check_indices(name, idx)
    return idx


@keras_op
def take(x, indices, axis=None):
    """Gathers entries along `axis` (numpy's take; negative indices count from the end).

    The gradient scatter-adds into zeros (no dense one-hot matmul).

    Args:
        x: tensor.
        indices: int tensor/array of any shape.
        axis: the axis to gather from (None: the flattened tensor).

    Returns:
        Tensor of shape `x.shape[:axis] + indices.shape + x.shape[axis+1:]`.

    Example:
        >>> ops.take(ops.convert_to_tensor([[1, 2], [3, 4]]), [1, 0], axis=0)  # [[3, 4], [1, 2]]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor or indices.__class__ is KerasTensor:
        if axis is None:
            x, axis = shape_ops.reshape(x, (-1,)), 0
        axis = shape_ops._axis("take", axis, x.ndim)
        index_shape = tuple(indices.shape) if hasattr(indices, "shape") else np.shape(indices)
        return KerasTensor(x.shape[:axis] + index_shape + x.shape[axis + 1:], x.dtype)
    if axis is None:
        x, axis = shape_ops.reshape(x, (-1,)), 0
    if x.ndim and not -x.ndim <= axis < x.ndim:  # it wrapped around silently
        raise ValueError(f"ops.take: axis {axis} is out of bounds for a tensor of rank {x.ndim}.")
    axis = axis % builtins.max(x.ndim, 1)
    idx = _index_array("take", indices, x._device)
    n = x.shape[axis]
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < -n):
        raise IndexError(
            f"ops.take: index out of range for axis {axis} of size {n} in a tensor of "
            f"shape {x.shape} (got min {int(idx.min())}, max {int(idx.max())}).")
    return Take(idx, axis)(x)


class Take(Op):
    """numpy.take along `axis` with raw int indices; the gradient is `ScatterAdd`."""

    name = "take"

    def __init__(self, idx, axis):
        self.idx, self.axis = idx, axis

    def forward(self, device, x):
        return device.xp.take(x, self.idx, axis=self.axis)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (self._table_gradient(g, saved[0]),)

    def _table_gradient(self, g, shape):
        table_grad = ScatterAdd(self.idx, self.axis, shape)(g)
        if self.axis == 0:  # as TensorFlow's gather: the rows reach the optimizer
            def recast(dtype):  # a cast IndexedSlices sums its rows in the new dtype
                return self._table_gradient(core.cast(g, dtype), shape)
            indexed_slices.attach(table_grad, g, self.idx, recast)
        return table_grad


class ScatterAdd(Op):
    """take's adjoint: adds `g` into zeros of `shape` at `idx` along `axis`."""

    name = "scatter_add"

    def __init__(self, idx, axis, shape):
        self.idx, self.axis, self.shape = idx, axis, shape

    def forward(self, device, g):
        xp, idx, axis = device.xp, self.idx, self.axis
        moved = xp.moveaxis(g, list(range(axis, axis + idx.ndim)), list(range(idx.ndim)))
        flat = moved.reshape((idx.size,) + moved.shape[idx.ndim:])
        target = xp.zeros((self.shape[axis],) + flat.shape[1:], dtype=g.dtype)
        device.kernel("index_add")(target, idx.reshape(-1) % self.shape[axis], flat)
        return xp.moveaxis(target, 0, axis)

    def backward(self, saved, needs, gg):
        return (Take(self.idx, self.axis)(gg),)


@keras_op
def take_along_axis(x, indices, axis=None):
    """Gathers with an index array shaped like `x` (numpy semantics).

    Args:
        x: tensor.
        indices: int array broadcastable against `x` except along `axis`.
        axis: the axis (None: flattened).

    Returns:
        Tensor shaped like `indices` (broadcast).

    Example:
        >>> x = ops.convert_to_tensor([[10., 30., 20.]])
        >>> ops.take_along_axis(x, ops.argsort(x), axis=-1)   # [[10., 20., 30.]]
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor or indices.__class__ is KerasTensor:
        return _symbolic_take_along_axis(x, indices, axis)
    if axis is None:
        x, axis = shape_ops.reshape(x, (-1,)), 0
    if not -x.ndim <= axis < x.ndim:  # it wrapped around silently
        raise ValueError(f"ops.take_along_axis: axis {axis} is out of bounds for a tensor of "
                         f"rank {x.ndim}.")
    axis = axis % x.ndim
    idx = _index_array("take_along_axis", indices, x._device)
    return TakeAlongAxis(idx, axis)(x)


def _symbolic_take_along_axis(x, indices, axis):
    """Keras's shape rule: `x` and `indices` broadcast except along `axis`, where
    the output takes the indices' size."""
    x_shape = list(x.shape)
    index_shape = list(indices.shape if hasattr(indices, "shape") else np.shape(indices))
    if axis is None:
        x_shape = [None if None in x_shape else int(np.prod(x_shape))]
        axis = 0
    if len(x_shape) != len(index_shape):
        raise ValueError("ops.take_along_axis: `x` and `indices` must have the same number of "
                         f"dimensions; got x.shape={tuple(x_shape)}, "
                         f"indices.shape={tuple(index_shape)}.")
    axis = shape_ops._axis("take_along_axis", axis, len(x_shape))
    size = index_shape[axis]
    del x_shape[axis], index_shape[axis]
    shape = list(broadcast_shapes(tuple(x_shape), tuple(index_shape)))
    shape.insert(axis, size)
    return KerasTensor(tuple(shape), x.dtype)


class TakeAlongAxis(Op):
    """numpy.take_along_axis with raw int indices; the gradient is an `IndexAdd`."""

    name = "take_along_axis"

    def __init__(self, idx, axis):
        self.idx, self.axis = idx, axis

    def forward(self, device, x):
        try:
            return device.xp.take_along_axis(x, self.idx, axis=self.axis)
        except (ValueError, IndexError) as err:
            raise ValueError(f"ops.take_along_axis: x has shape {x.shape}, indices have shape "
                             f"{tuple(self.idx.shape)} ({err}).") from None

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        xp, shape, axis, g_shape = g._device.xp, saved[0], self.axis, g.shape

        def scatter_index(idx):
            full = xp.broadcast_to(idx, g_shape) % shape[axis]
            grid = list(xp.indices(full.shape, sparse=True))
            grid[axis] = full
            return tuple(grid)
        return (IndexAdd(derive(scatter_index, self.idx), shape)(g),)


class IndexAdd(Op):
    """Adds `g` into zeros of `shape` at an advanced `index`; the gradient is `gg[index]`."""

    name = "index_add"

    def __init__(self, index, shape):
        self.index, self.shape = index, shape

    def forward(self, device, g):
        target = device.xp.zeros(self.shape, dtype=g.dtype)
        if _is_basic_index(self.index):
            target[self.index] = g  # a basic index never repeats an element
        else:
            device.kernel("index_add")(target, self.index, g)
        return target

    def backward(self, saved, needs, gg):
        return (GetItem(self.index)(gg),)


def _index_add(g, index, shape):
    """`IndexAdd(index, shape)(g)`."""
    return IndexAdd(index, shape)(g)


def _is_basic_index(index):
    """True when `index` has only ints, slices, None and Ellipsis."""
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(k, (int, np.integer, builtins.slice, type(None), type(Ellipsis)))
               for k in items)


@keras_op
def getitem(x, key):
    """`x[key]` with numpy indexing; the gradient scatters into zeros.

    Args:
        x: tensor.
        key: ints, slices, None, Ellipsis, int/bool arrays or tensors.

    Returns:
        Tensor.

    Example:
        >>> ops.ones((3, 4))[1:, ::2].shape
        (2, 2)
    """
    x = convert_to_tensor(x)
    key = _unwrap_key(key)
    try:
        return GetItem(key)(x)
    except IndexError as err:
        raise IndexError(f"ops.getitem: index {key!r} is invalid for a tensor of shape "
                         f"{x.shape} ({err}).") from None


class GetItem(Op):
    """`x[key]` (numpy indexing, raw key); the gradient is `IndexAdd(key, x.shape)`."""

    name = "getitem"

    def __init__(self, key):
        self.key = key

    def forward(self, device, x):
        return x[self.key]

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (IndexAdd(self.key, saved[0])(g),)

    def compute_output_spec(self, spec):
        return basic_index_shape(spec[0], self.key), spec[1]


def basic_index_shape(shape, key):
    """The shape of `x[key]` for ints, slices, None and Ellipsis (Keras's rule: a
    slice of an unknown (None) size stays None).

    Raises:
        NoShapeRule: for advanced (array) indices.
        IndexError: for an int out of range of a known size.
    """
    items = key if isinstance(key, tuple) else (key,)
    if not _is_basic_index(items):
        raise NoShapeRule("getitem: array indices have no symbolic shape rule.")
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise ValueError(f"ops.getitem: an index can only have a single ellipsis; got {key!r}.")
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    if consumed > len(shape):
        raise ValueError(f"ops.getitem: too many indices ({consumed}) for a tensor of rank "
                         f"{len(shape)}.")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (builtins.slice(None),) * (len(shape) - consumed) + items[at + 1:]
    else:
        items = items + (builtins.slice(None),) * (len(shape) - consumed)
    out, axis = [], 0
    for k in items:
        if k is None:
            out.append(1)
            continue
        n = shape[axis]
        axis += 1
        if isinstance(k, builtins.slice):
            out.append(None if n is None else len(range(*k.indices(n))))
        elif n is not None and not -n <= int(k) < n:
            raise ValueError(f"ops.getitem: index {int(k)} is out of bounds for axis "
                             f"{axis - 1} with size {n}.")
    return tuple(out)


def _unwrap_key(key):
    """Converts Tensor indices inside an index expression to raw arrays."""
    if isinstance(key, tuple):
        return tuple(_unwrap_key(k) for k in key)
    if isinstance(key, Tensor):
        if key._value.dtype.kind not in "iub":
            raise TypeError(f"ops.getitem: tensor indices must be integers or booleans; got "
                            f"shape {key.shape} {key.dtype}.")
        return key._value
    if isinstance(key, (float, np.floating)):
        raise TypeError(f"ops.getitem: indices must be integers or slices, not float ({key!r}).")
    if isinstance(key, list):
        arr = np.asarray(key)
        if is_float(arr.dtype):
            raise TypeError(f"ops.getitem: indices must be integers or booleans; got a list "
                            f"of floats of shape {arr.shape}.")
        return arr
    if isinstance(key, np.ndarray) and is_float(key.dtype):
        raise TypeError(f"ops.getitem: indices must be integers or booleans; got shape "
                        f"{key.shape} {key.dtype}.")
    return key


def _static_ints(name, values):
    out = []
    for v in values:
        v = core.convert_to_numpy(v) if isinstance(v, Tensor) else v
        if np.asarray(v).dtype.kind not in "iu":
            raise TypeError(f"ops.{name}: start indices must be integers; got {v!r}.")
        out.append(int(v))
    return out


@keras_op
def slice(inputs, start_indices, shape):  # noqa: A001 - Keras exports ops.slice
    """Static slice: `shape[i]` elements from `start_indices[i]` on each axis.

    Args:
        inputs: tensor.
        start_indices: one start per axis.
        shape: one length per axis.

    Returns:
        Tensor of `shape`.

    Example:
        >>> ops.slice(ops.arange(10), [2], [3])   # [2, 3, 4]
    """
    x = convert_to_tensor(inputs)
    shape = tuple(int(n) for n in shape)
    if len(shape) != x.ndim:
        raise ValueError(
            "ops.slice: the number of dimensions in `inputs` must match the number of "
            f"dimensions in `shape`. Received: inputs.shape={x.shape}, shape={shape}.")
    symbolic_starts = start_indices.__class__ is KerasTensor
    starts = None if symbolic_starts else _static_ints("slice", start_indices)
    if starts is not None and len(starts) != x.ndim:
        raise ValueError(
            "ops.slice: the number of dimensions in `start_indices` must match the number of "
            f"dimensions in `inputs`. Received: start_indices={tuple(starts)}, "
            f"inputs.shape={x.shape}.")
    if symbolic_starts or x.__class__ is KerasTensor:  # size -1: to the end, as tf.slice
        return KerasTensor(tuple(
            n if n != -1 else None if symbolic_starts or x.shape[i] is None
            else x.shape[i] - starts[i] for i, n in enumerate(shape)), x.dtype)
    index = tuple(builtins.slice(s, None if n == -1 else s + n) for s, n in zip(starts, shape))
    return getitem(x, index)


def _update(name, inputs, index, updates):
    """`inputs` with `inputs[index] = updates`; differentiable in both."""
    x = convert_to_tensor(inputs)
    u = core.cast(convert_to_tensor(updates), x.dtype) if not isinstance(updates, Tensor) \
        or updates.dtype != x.dtype else updates
    if u._device is not x._device:
        u = Tensor(x._device.send(u._value), x._device)
    try:
        return Update(name, index)(x, u)
    except (ValueError, IndexError) as err:
        raise ValueError(f"ops.{name}: cannot write updates of shape {u.shape} into a "
                         f"tensor of shape {x.shape} ({err}).") from None


class Update(Op):
    """`x` with `x[index] = u`; gradients: `g` outside the index, `g[index]` for `u`."""

    def __init__(self, name, index):
        self.name, self.index = name, index

    def forward(self, device, x, u):
        value = x.copy()
        value[self.index] = u
        return value

    def save(self, inputs, outputs):
        return inputs[0].shape, inputs[1].shape

    def backward(self, saved, needs, g):
        x_shape, u_shape = saved
        keep = g._device.xp.ones(x_shape, dtype=g._value.dtype)
        keep[self.index] = 0
        return (ew.multiply(g, Tensor(keep, g._device)), getitem(g, self.index).reshape(u_shape))


_SCATTER_REDUCTIONS = ("max", "min", "mul")


def _scatter_reduce(x, idx, updates, reduction):
    """`scatter_update` with "max"/"min"/"mul": each entry combined with every update
    aimed at it (the entries of `x` take part, as in Keras)."""
    lead, rest = x.shape[:idx.shape[-1]], x.shape[idx.shape[-1]:]
    idx = np.where(idx < 0, idx + np.asarray(lead), idx)
    pos = np.ravel_multi_index(tuple(idx.T), lead)
    width = int(np.prod(rest, dtype=np.int64))
    x2 = shape_ops.reshape(x, (int(np.prod(lead, dtype=np.int64)), width))
    u = core.cast(convert_to_tensor(updates), x.dtype)
    u2 = shape_ops.reshape(u, (len(pos), width))
    if reduction == "mul":
        out = _scatter_mul(x2, pos, u2)
    else:
        out = ScatterExtreme(reduction, pos)(x2, u2)
    return shape_ops.reshape(out, x.shape)


def _scatter_mul(x2, pos, u2):
    """Row `p` of `x2` times every row of `u2` aimed at it, as differentiable ops: the
    rows are multiplied in rounds (the k-th update of each row in round k)."""
    rows, where_row = np.unique(pos, return_inverse=True)
    order = np.argsort(where_row, kind="stable")
    rank = np.empty(len(pos), dtype=np.int64)
    rank[order] = np.arange(len(pos)) - np.searchsorted(where_row[order], where_row[order])
    product = take(x2, rows, axis=0)
    for k in range(int(rank.max()) + 1 if len(pos) else 0):
        chosen = np.nonzero(rank == k)[0]
        hit = np.zeros((len(rows), 1), dtype=bool)
        hit[where_row[chosen]] = True
        factor = scatter(where_row[chosen][:, None], take(u2, chosen, axis=0), product.shape)
        product = ew.multiply(product, ew.where(hit, factor, core.cast(1, product.dtype)))
    return _update("scatter_update", x2, (x2._device.send(rows),), product)


class ScatterExtreme(Op):
    """Rows of `x` combined by max (or min) with the rows of `u` at `pos`.

    The gradient is TensorFlow's (`tensor_scatter_nd_max`): every value equal to
    the result gets an equal share of the incoming gradient.
    """

    name = "scatter_update"

    def __init__(self, reduction, pos):
        self.reduction, self.pos = reduction, pos

    def forward(self, device, x, u):
        out = x.copy()
        ufunc = device.xp.maximum if self.reduction == "max" else device.xp.minimum
        ufunc.at(out, device.send(self.pos), u)
        return out

    def save(self, inputs, outputs):
        return inputs[0]._value, inputs[1]._value, outputs[0]._value

    def backward(self, saved, needs, g):
        x, u, out = saved
        xp, pos = g._device.xp, g._device.send(self.pos)
        x_hit = (x == out).astype(g._value.dtype)
        u_hit = (u == out[pos]).astype(g._value.dtype)
        count = x_hit.copy()
        xp.add.at(count, pos, u_hit)
        count = xp.maximum(count, 1)
        gx = ew.multiply(g, Tensor(x_hit / count, g._device))
        gu = ew.multiply(take(g, pos, axis=0), Tensor(u_hit / count[pos], g._device))
        return gx, gu


@keras_op
def slice_update(inputs, start_indices, updates):
    """Returns `inputs` with a block starting at `start_indices` replaced by `updates`.

    Args:
        inputs: tensor.
        start_indices: one start per axis.
        updates: the block (same rank as `inputs`).

    Returns:
        New Tensor (inputs is not modified).

    Example:
        >>> ops.slice_update(ops.zeros((4,)), [1], ops.ones((2,)))   # [0., 1., 1., 0.]
    """
    u = convert_to_tensor(updates)
    if KerasTensor in map(type, (inputs, start_indices, updates)):
        x = convert_to_tensor(inputs)
        return KerasTensor(x.shape, x.dtype)
    starts = _static_ints("slice_update", start_indices)
    index = tuple(builtins.slice(s, s + n) for s, n in zip(starts, u.shape))
    return _update("slice_update", inputs, index, u)


@keras_op
def scatter_update(inputs, indices, updates, reduction=None):
    """Returns `inputs` with the entries at `indices` set to (or combined with) `updates`.

    Args:
        inputs: tensor of rank R.
        indices: int array of shape (N, K), K <= R: one index tuple per row.
        updates: values of shape (N,) + inputs.shape[K:].
        reduction: None (replace), or how the entries are combined with the
            updates, repeated indices included: "add", "max", "min" or "mul".

    Returns:
        New Tensor.

    Example:
        >>> ops.scatter_update(ops.zeros((2, 2)), [[0, 1]], [5.0])   # [[0., 5.], [0., 0.]]
    """
    x = convert_to_tensor(inputs)
    if KerasTensor in map(type, (x, indices, updates)):
        return KerasTensor(x.shape, x.dtype)
    idx = np.asarray(core.convert_to_numpy(indices))
    check_indices("scatter_update", idx)
    if reduction == "add":
        return ew.add(x, scatter(idx, core.cast(convert_to_tensor(updates), x.dtype), x.shape))
    if reduction is not None and reduction not in _SCATTER_REDUCTIONS:
        raise ValueError(f"Unsupported reduction: {reduction}")
    idx = idx.reshape(-1, idx.shape[-1]) if idx.ndim else idx.reshape(1, 1)
    if reduction is not None:
        return _scatter_reduce(x, idx, updates, reduction)
    index = tuple(core.to_array(idx[:, i], x._device) for i in range(idx.shape[-1]))
    return _update("scatter_update", x, index, updates)


@keras_op
def scatter(indices, values, shape):
    """A zeros tensor of `shape` with `values` added at `indices` (Keras ops.scatter).

    Args:
        indices: int array of shape (N, K).
        values: (N,) + shape[K:]; repeated indices add up.
        shape: the output shape.

    Returns:
        Tensor.

    Example:
        >>> ops.scatter([[0], [2], [0]], [1.0, 2.0, 3.0], (3,))   # [4., 0., 2.]
    """
    values = convert_to_tensor(values)
    if values.__class__ is KerasTensor or indices.__class__ is KerasTensor:
        return KerasTensor(tuple(shape), values.dtype)
    idx = _index_array("scatter", indices, values._device)
    index = tuple(idx[..., i] for i in range(idx.shape[-1]))
    return _index_add(values, index, tuple(int(n) for n in shape))


@keras_op
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot encodes integer labels; labels outside [0, num_classes) give all zeros.

    Args:
        x: int tensor of labels.
        num_classes: depth of the encoding.
        axis: where the new class axis goes.
        dtype: output dtype (floatx by default).
        sparse: must be False (kerasish has no sparse tensors).

    Returns:
        Tensor of shape x.shape with `num_classes` inserted at `axis`.

    Example:
        >>> ops.one_hot(ops.convert_to_tensor([0, 2]), 3)   # [[1, 0, 0], [0, 0, 1]]
    """
    if sparse:
        raise NotImplementedError("ops.one_hot: sparse=True is not supported (no sparse tensors).")
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        shape = list(x.shape)
        shape.insert(len(shape) if axis == -1 else axis % (x.ndim + 1), int(num_classes))
        return KerasTensor(tuple(shape), config.standardize_dtype(dtype or config.floatx()))
    check_indices("one_hot", x._value)
    xp = x._device.xp
    classes = xp.arange(int(num_classes))
    out = (x._value[..., None] == classes).astype(config.to_numpy_dtype(dtype))
    if axis != -1:
        out = xp.moveaxis(out, -1, axis)
    return Tensor(out, x._device)


@keras_op
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot encodes integer labels: 1 for every class present in a row.

    Args:
        inputs: int tensor, (batch, n) or (n,).
        num_classes: depth of the encoding.
        axis: the class axis.
        dtype: output dtype (floatx by default).
        sparse: must be False.

    Returns:
        Tensor of shape (batch, num_classes) or (num_classes,).

    Example:
        >>> ops.multi_hot(ops.convert_to_tensor([[0, 2], [1, 1]]), 3)  # [[1, 0, 1], [0, 1, 0]]
    """
    num_classes = kwargs.pop("num_tokens", num_classes)
    if num_classes is None:
        raise ValueError("ops.multi_hot: `num_classes` is required.")
    x = convert_to_tensor(inputs)
    encoded = one_hot(x, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    reduce_axis = 1 if x.ndim > 1 else 0
    if x.__class__ is KerasTensor:
        return KerasTensor(encoded.shape[:reduce_axis] + encoded.shape[reduce_axis + 1:],
                           encoded.dtype)
    return Tensor(encoded._value.max(axis=reduce_axis), x._device)

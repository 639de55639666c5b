"""Shape and indexing ops: reshape, transpose, concatenate, take, getitem, ..."""
import builtins

import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core
from kerasish.ops.core import convert_to_tensor


def _record(name, x, out, backward):
    if _tape._active and x._value.dtype.kind == "f":
        _tape.record(name, (x,), (out,), lambda g: (backward(g),))


def reshape(x, newshape):
    """Reshapes `x`; one entry of `newshape` may be -1.

    Example:
        >>> ops.reshape(ops.ones(6), (2, -1)).shape
        (2, 3)
    """
    x = convert_to_tensor(x)
    newshape = tuple(int(n) for n in (newshape if isinstance(newshape, (tuple, list)) else (newshape,)))
    try:
        value = x._value.reshape(newshape)
    except ValueError:
        raise ValueError(
            f"ops.reshape: cannot reshape a tensor of shape {x.shape} "
            f"({x.size} elements) into shape {newshape}."
        ) from None
    out = Tensor(value, x._device)
    shape = x.shape
    _record("reshape", x, out, lambda g: reshape(g, shape))
    return out


def transpose(x, axes=None):
    """Permutes the axes (reverses them when `axes` is None)."""
    x = convert_to_tensor(x)
    axes = tuple(range(x.ndim))[::-1] if axes is None else tuple(a % x.ndim for a in axes)
    out = Tensor(x._value.transpose(axes), x._device)
    inverse = tuple(np.argsort(axes))
    _record("transpose", x, out, lambda g: transpose(g, inverse))
    return out


def moveaxis(x, source, destination):
    """Moves axes to new positions (numpy semantics)."""
    x = convert_to_tensor(x)
    src = [int(a) % x.ndim for a in np.atleast_1d(source)]
    dst = [int(a) % x.ndim for a in np.atleast_1d(destination)]
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def swapaxes(x, axis1, axis2):
    """Swaps two axes."""
    x = convert_to_tensor(x)
    order = list(range(x.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return transpose(x, order)


def expand_dims(x, axis):
    """Inserts a length-1 axis at `axis`."""
    x = convert_to_tensor(x)
    return reshape(x, np.expand_dims(np.empty(x.shape, dtype=bool), axis).shape)


def squeeze(x, axis=None):
    """Removes length-1 axes (all of them when `axis` is None)."""
    x = convert_to_tensor(x)
    if axis is not None:
        for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
            if x.shape[a] != 1:
                raise ValueError(
                    f"ops.squeeze: cannot squeeze axis {a} of size {x.shape[a]} (shape {x.shape})."
                )
    return reshape(x, np.squeeze(np.empty(x.shape, dtype=bool), axis=axis).shape)


def ravel(x):
    """Flattens to one dimension."""
    return reshape(x, (-1,))


def broadcast_to(x, shape):
    """Broadcasts `x` to `shape`; the gradient sums over broadcast axes."""
    from kerasish.ops.elementwise import unbroadcast
    x = convert_to_tensor(x)
    shape = tuple(int(n) for n in shape)
    try:
        value = x._device.xp.broadcast_to(x._value, shape)
    except ValueError:
        raise ValueError(f"ops.broadcast_to: cannot broadcast shape {x.shape} to {shape}.") from None
    out = Tensor(value, x._device)
    src = x.shape
    _record("broadcast_to", x, out, lambda g: unbroadcast(g, src))
    return out


def concatenate(xs, axis=0):
    """Joins tensors along an existing axis.

    Example:
        >>> ops.concatenate([ops.ones((2, 1)), ops.zeros((2, 2))], axis=1).shape
        (2, 3)
    """
    values, tensors, dev = core.operands("concatenate", *xs)
    ndim = values[0].ndim
    axis = axis % max(ndim, 1)
    for v in values[1:]:
        if v.ndim != ndim or any(a != b for i, (a, b) in enumerate(zip(v.shape, values[0].shape)) if i != axis):
            raise ValueError(
                "ops.concatenate: all inputs must have the same shape except along "
                f"axis {axis}. Received shapes {[tuple(v.shape) for v in values]}."
            )
    out = Tensor(dev.xp.concatenate(values, axis=axis), dev)
    if _tape._active and any(t._value.dtype.kind == "f" for t in tensors):
        sizes = [v.shape[axis] for v in values]

        def backward(g):
            bounds = np.cumsum(sizes)[:-1].tolist()
            return split(g, bounds, axis=axis)

        _tape.record("concatenate", tuple(tensors), (out,), backward)
    return out


def stack(xs, axis=0):
    """Stacks tensors of equal shape along a new axis."""
    xs = [convert_to_tensor(x) for x in xs]
    if len({x.shape for x in xs}) > 1:
        raise ValueError(f"ops.stack: all inputs must have the same shape; got {[x.shape for x in xs]}.")
    return concatenate([expand_dims(x, axis) for x in xs], axis=axis)


def split(x, indices_or_sections, axis=0):
    """Splits along `axis` into equal sections or at the given indices."""
    x = convert_to_tensor(x)
    if isinstance(indices_or_sections, int):
        if x.shape[axis] % indices_or_sections:
            raise ValueError(
                f"ops.split: axis {axis} of size {x.shape[axis]} does not split into "
                f"{indices_or_sections} equal sections."
            )
        step = x.shape[axis] // indices_or_sections
        bounds = [step * i for i in range(1, indices_or_sections)]
    else:
        bounds = [int(i) for i in indices_or_sections]
    edges = [0] + bounds + [x.shape[axis]]
    index = [builtins.slice(None)] * x.ndim
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        index[axis] = builtins.slice(lo, hi)
        pieces.append(x[tuple(index)])
    return pieces


def unstack(x, num=None, axis=0):
    """Splits along `axis` into tensors with that axis removed."""
    x = convert_to_tensor(x)
    return [squeeze(p, axis) for p in split(x, x.shape[axis], axis=axis)]


def tile(x, repeats):
    """Repeats the whole tensor `repeats` times per axis."""
    x = convert_to_tensor(x)
    repeats = (repeats,) if isinstance(repeats, int) else tuple(repeats)
    out = Tensor(x._device.xp.tile(x._value, repeats), x._device)
    ndim = out.ndim
    src = (1,) * (ndim - x.ndim) + x.shape
    reps = (1,) * (ndim - len(repeats)) + repeats

    def backward(g):
        from kerasish.ops import reduction
        split_shape = []
        for r, n in zip(reps, src):
            split_shape += [r, n]
        summed = reduction.sum(reshape(g, split_shape), axis=tuple(range(0, 2 * ndim, 2)))
        return reshape(summed, x.shape)

    _record("tile", x, out, backward)
    return out


def repeat(x, repeats, axis=None):
    """Repeats each element `repeats` times along `axis` (flattened if None)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = axis % x.ndim
    if not isinstance(repeats, int):
        reps = np.asarray(core.convert_to_numpy(repeats)).astype(np.int64)
        idx = np.repeat(np.arange(x.shape[axis]), reps)
        return take(x, idx, axis=axis)
    out = Tensor(x._device.xp.repeat(x._value, repeats, axis=axis), x._device)

    def backward(g):
        from kerasish.ops import reduction
        shape = x.shape[:axis] + (x.shape[axis], repeats) + x.shape[axis + 1:]
        return reduction.sum(reshape(g, shape), axis=axis + 1)

    _record("repeat", x, out, backward)
    return out


def pad(x, pad_width, mode="constant", constant_values=None):
    """Pads with `constant_values` (or "reflect"/"symmetric"/"edge" modes)."""
    x = convert_to_tensor(x)
    width = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                            if np.ndim(pad_width) else [[pad_width, pad_width]], (x.ndim, 2))
    kwargs = {"constant_values": constant_values or 0} if mode == "constant" else {}
    out = Tensor(x._device.xp.pad(x._value, width.tolist(), mode=mode, **kwargs), x._device)
    if mode == "constant":
        index = tuple(builtins.slice(int(lo), int(lo) + n) for (lo, _), n in zip(width, x.shape))
        _record("pad", x, out, lambda g: g[index])
    elif _tape._active and x._value.dtype.kind == "f":
        raise NotImplementedError(f"ops.pad: gradient of mode={mode!r} is not implemented; use 'constant'.")
    return out


def flip(x, axis=None):
    """Reverses the order of elements along `axis` (all axes if None)."""
    x = convert_to_tensor(x)
    out = Tensor(x._device.xp.flip(x._value, axis=axis), x._device)
    _record("flip", x, out, lambda g: flip(g, axis))
    return out


def roll(x, shift, axis=None):
    """Rolls elements along `axis` (numpy semantics)."""
    x = convert_to_tensor(x)
    out = Tensor(x._device.xp.roll(x._value, shift, axis=axis), x._device)
    neg = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    _record("roll", x, out, lambda g: roll(g, neg, axis))
    return out


def _check_indices(name, idx):
    if idx.dtype.kind not in "iub":
        raise TypeError(
            f"ops.{name}: indices must be integers; got dtype {idx.dtype.name}. "
            "Cast them with ops.cast(indices, 'int32')."
        )


def take(x, indices, axis=None):
    """Gathers entries along `axis` (numpy's take; negative indices allowed).

    The gradient scatter-adds into zeros (no dense one-hot matmul).
    """
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = axis % x.ndim
    idx = core.to_array(indices, x._device)
    _check_indices("take", idx)
    n = x.shape[axis]
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < -n):
        raise IndexError(
            f"ops.take: index out of range for axis {axis} of size {n} "
            f"(got min {int(idx.min())}, max {int(idx.max())})."
        )
    out = Tensor(x._device.xp.take(x._value, idx, axis=axis), x._device)
    _record("take", x, out, lambda g: _scatter_add_along(g, idx, axis, x.shape))
    return out


def _scatter_add_along(g, idx, axis, shape):
    """Gradient of take: adds rows of `g` at `idx` along `axis` into zeros."""
    return _ScatterAdd(idx, axis, shape)(g)


class _ScatterAdd:
    """take's adjoint as its own op so that gradients of gradients work."""

    def __init__(self, idx, axis, shape):
        self.idx, self.axis, self.shape = idx, axis, shape

    def __call__(self, g):
        xp = g._device.xp
        moved = xp.moveaxis(g._value, list(range(self.axis, self.axis + self.idx.ndim)),
                            list(range(self.idx.ndim)))
        flat = moved.reshape((self.idx.size,) + moved.shape[self.idx.ndim:])
        target = xp.zeros((self.shape[self.axis],) + flat.shape[1:], dtype=g._value.dtype)
        g._device.kernel("index_add")(target, self.idx.reshape(-1) % self.shape[self.axis], flat)
        out = Tensor(xp.moveaxis(target, 0, self.axis), g._device)
        if _tape._active:
            idx, axis = self.idx, self.axis
            _tape.record("scatter_add", (g,), (out,), lambda gg: (take(gg, idx, axis=axis),))
        return out


def take_along_axis(x, indices, axis=None):
    """Gathers with an index array shaped like `x` (numpy semantics)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = axis % x.ndim
    idx = core.to_array(indices, x._device)
    _check_indices("take_along_axis", idx)
    xp = x._device.xp
    out = Tensor(xp.take_along_axis(x._value, idx, axis=axis), x._device)

    def backward(g):
        full = xp.broadcast_to(idx, g.shape)
        grid = list(xp.indices(full.shape, sparse=True))
        grid[axis] = full
        return _index_add(g, tuple(grid), x.shape)

    _record("take_along_axis", x, out, backward)
    return out


def _index_add(g, index, shape):
    """Adds `g` into zeros of `shape` at an advanced `index` (differentiable)."""
    xp = g._device.xp
    target = xp.zeros(shape, dtype=g._value.dtype)
    if _is_basic_index(index):
        target[index] = g._value  # a basic index never repeats an element
    else:
        g._device.kernel("index_add")(target, index, g._value)
    out = Tensor(target, g._device)
    if _tape._active:
        _tape.record("index_add", (g,), (out,), lambda gg: (gg[index],))
    return out


def _is_basic_index(index):
    """True when `index` has only ints, slices, None and Ellipsis."""
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(k, (int, np.integer, type(None), type(Ellipsis)))
               or type(k).__name__ == "slice" for k in items)


def getitem(x, key):
    """`x[key]` with numpy indexing; the gradient scatters into zeros."""
    x = convert_to_tensor(x)
    key = _unwrap_key(key)
    out = Tensor(x._value[key], x._device)
    if _tape._active and x._value.dtype.kind == "f":
        shape = x.shape
        _tape.record("getitem", (x,), (out,), lambda g: (_index_add(g, key, shape),))
    return out


def _unwrap_key(key):
    """Converts Tensor indices inside an index expression to raw arrays."""
    if isinstance(key, tuple):
        return tuple(_unwrap_key(k) for k in key)
    if isinstance(key, Tensor):
        if key._value.dtype.kind not in "iub":
            raise TypeError(f"Tensor indices must be integers or booleans; got dtype {key.dtype}.")
        return key._value
    if isinstance(key, float):
        raise TypeError(f"Indices must be integers or slices, not float ({key!r}).")
    if isinstance(key, list):
        arr = np.asarray(key)
        if arr.dtype.kind == "f":
            raise TypeError("Indices must be integers or booleans; got a list of floats.")
        return arr
    if isinstance(key, np.ndarray) and key.dtype.kind == "f":
        raise TypeError(f"Indices must be integers or booleans; got dtype {key.dtype}.")
    return key


def slice(x, start_indices, shape):  # noqa: A001 - Keras exports ops.slice
    """Static slice: `shape[i]` elements from `start_indices[i]` on each axis."""
    import builtins
    index = tuple(builtins.slice(int(s), int(s) + int(n)) for s, n in zip(start_indices, shape))
    return getitem(x, index)


def one_hot(x, num_classes, axis=-1, dtype=None):
    """One-hot encodes integer labels (out-of-range labels give all zeros, as in Keras)."""
    x = convert_to_tensor(x)
    _check_indices("one_hot", x._value)
    xp = x._device.xp
    eye = xp.arange(num_classes)
    out = (x._value[..., None] == eye).astype(core.config.to_numpy_dtype(dtype))
    if axis != -1:
        out = xp.moveaxis(out, -1, axis)
    return Tensor(out, x._device)


def flatten(x):
    """Flattens to one dimension (alias of ravel)."""
    return ravel(x)


def scatter(indices, values, shape):
    """A zeros tensor of `shape` with `values` added at `indices` (Keras ops.scatter)."""
    values = convert_to_tensor(values)
    idx = core.to_array(indices, values._device)
    _check_indices("scatter", idx)
    index = tuple(idx[..., i] for i in range(idx.shape[-1]))
    return _index_add(values, index, tuple(shape))


def size(x):
    """Number of elements."""
    return convert_to_tensor(x).size

"""Shape ops: reshape, transpose, concatenate, stack, split, tile, pad, meshgrid, ...

Gathers and scatters (take, getitem, one_hot, scatter...) live in
`indexing.py` and are re-exported here, so `manipulation.take` keeps working.
"""
import builtins

import numpy as np

from kerasish.autodiff.op import Op
from kerasish.autodiff.primitives import Reshape
from kerasish.backend import config
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.indexing import (_index_add, _unwrap_key,  # noqa: F401
                                   getitem, multi_hot, one_hot, scatter,
                                   scatter_update, slice, slice_update, take,
                                   take_along_axis)


def _axis(name, axis, ndim):
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):
        raise ValueError(f"ops.{name}: axis {axis} is out of bounds for a tensor of rank {ndim}.")
    return axis % builtins.max(ndim, 1)


def reshape(x, newshape):
    """Reshapes `x`; one entry of `newshape` may be -1.

    Args:
        x: tensor-like.
        newshape: int or tuple of ints.

    Returns:
        Tensor.

    Example:
        >>> ops.reshape(ops.ones(6), (2, -1)).shape
        (2, 3)
    """
    x = convert_to_tensor(x)
    newshape = tuple(int(n) for n in (newshape if isinstance(newshape, (tuple, list)) else (newshape,)))
    if any(n < -1 for n in newshape):  # numpy would accept any negative entry as -1
        raise ValueError("ops.reshape: Each dimension of `newshape` must be a non-negative "
                         f"integer or -1. Received: newshape={newshape}")
    if newshape.count(-1) > 1:
        raise ValueError("ops.reshape: There must be at most one unknown dimension in "
                         f"`newshape`. Received: newshape={newshape}")
    try:
        return Reshape(newshape)(x)
    except ValueError:
        raise ValueError(
            f"ops.reshape: cannot reshape a tensor of shape {x.shape} ({x.size} elements, "
            f"{x.dtype}) into shape {newshape}.") from None


def transpose(x, axes=None):
    """Permutes the axes (reverses them when `axes` is None).

    Args:
        x: tensor-like.
        axes: a permutation of range(ndim), or None.

    Returns:
        Tensor.

    Example:
        >>> ops.transpose(ops.zeros((2, 3))).shape
        (3, 2)
    """
    x = convert_to_tensor(x)
    return Transpose(_transpose_axes(axes, x.ndim))(x)


def _transpose_axes(axes, ndim):
    """Validates `axes` for a rank-`ndim` transpose (Keras's wording); returns them >= 0."""
    if axes is None:
        return tuple(range(ndim))[::-1]
    if len(axes) != ndim:
        raise ValueError(f"ops.transpose: `axes` must be a list of the same length as the "
                         f"input shape, expected {ndim}, but received {len(axes)}. "
                         f"Received: axes={axes}")
    if any(not -ndim <= int(a) < ndim for a in axes):
        raise ValueError(f"ops.transpose: Each axis in `axes` must be an integer in "
                         f"[-{ndim}, {ndim}). Received: axes={axes}")
    positive = tuple(int(a) % builtins.max(ndim, 1) for a in axes)
    if sorted(positive) != list(range(ndim)):
        raise ValueError(f"ops.transpose: `axes` must be a valid permutation of "
                         f"{list(range(ndim))} for a tensor of rank {ndim}. "
                         f"Received: axes={axes}")
    return positive


class Transpose(Op):
    """Permutes the axes; the gradient applies the inverse permutation."""

    name = "transpose"

    def __init__(self, axes):
        self.axes = axes

    def forward(self, device, x):
        return x.transpose(self.axes)

    def backward(self, saved, needs, g):
        return (Transpose(tuple(int(i) for i in np.argsort(self.axes)))(g),)

    def compute_output_spec(self, spec):
        return tuple(spec[0][a] for a in self.axes), spec[1]


def moveaxis(x, source, destination):
    """Moves axes to new positions (numpy semantics).

    Example:
        >>> ops.moveaxis(ops.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    x = convert_to_tensor(x)
    src = _moveaxis_axes("source", source, x.ndim)
    dst = _moveaxis_axes("destination", destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError("ops.moveaxis: `source` and `destination` must have the same number "
                         f"of elements. Received: source={source}, destination={destination}")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def _moveaxis_axes(name, axes, ndim):
    """`axes` as non-negative ints; an out-of-range or repeated axis raises (numpy)."""
    axes = [int(a) for a in np.atleast_1d(axes)]
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"ops.moveaxis: `{name}` axis {a} is out of bounds for a tensor "
                             f"of rank {ndim}.")
    positive = [a % ndim for a in axes]
    if len(set(positive)) != len(positive):
        raise ValueError(f"ops.moveaxis: repeated axis in `{name}`. Received: {name}={axes}")
    return positive


def swapaxes(x, axis1, axis2):
    """Swaps two axes.

    Example:
        >>> ops.swapaxes(ops.zeros((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    x = convert_to_tensor(x)
    for name, axis in (("axis1", axis1), ("axis2", axis2)):
        if not -x.ndim <= int(axis) < x.ndim:
            raise ValueError(f"ops.swapaxes: `{name}` axis {axis} is out of bounds for a "
                             f"tensor of rank {x.ndim}.")
    order = list(range(x.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return transpose(x, order)


def expand_dims(x, axis):
    """Inserts length-1 axes at `axis` (an int or a tuple).

    Example:
        >>> ops.expand_dims(ops.zeros((2,)), -1).shape
        (2, 1)
    """
    x = convert_to_tensor(x)
    return reshape(x, np.expand_dims(np.empty(x.shape, dtype=bool), axis).shape)


def squeeze(x, axis=None):
    """Removes length-1 axes (all of them when `axis` is None).

    Example:
        >>> ops.squeeze(ops.zeros((1, 2, 1))).shape
        (2,)
    """
    x = convert_to_tensor(x)
    if axis is not None:
        for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
            a = _axis("squeeze", a, x.ndim)
            if x.shape[a] != 1:
                raise ValueError(
                    f"ops.squeeze: cannot squeeze axis {a} of size {x.shape[a]} (shape {x.shape}).")
    return reshape(x, np.squeeze(np.empty(x.shape, dtype=bool), axis=axis).shape)


def ravel(x):
    """Flattens to one dimension.

    Example:
        >>> ops.ravel(ops.zeros((2, 3))).shape
        (6,)
    """
    return reshape(x, (-1,))


flatten = ravel


def broadcast_to(x, shape):
    """Broadcasts `x` to `shape`; the gradient sums over broadcast axes.

    Example:
        >>> ops.broadcast_to(ops.ones((3,)), (2, 3)).shape
        (2, 3)
    """
    x = convert_to_tensor(x)
    shape = tuple(int(n) for n in shape)
    try:
        return BroadcastTo(shape)(x)
    except ValueError:
        raise ValueError(f"ops.broadcast_to: cannot broadcast shape {x.shape} to {shape}.") from None


class BroadcastTo(Op):
    """Broadcasts to `shape`; the gradient sums over the broadcast axes."""

    name = "broadcast_to"

    def __init__(self, shape):
        self.shape = shape

    def forward(self, device, x):
        return device.xp.broadcast_to(x, self.shape)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (ew.unbroadcast(g, saved[0]),)

    def compute_output_spec(self, spec):
        return self.shape, spec[1]


def concatenate(xs, axis=0):
    """Joins tensors along an existing axis (dtypes promoted as in Keras).

    Args:
        xs: a list of tensors with equal shapes except along `axis`.
        axis: the axis.

    Returns:
        Tensor.

    Example:
        >>> ops.concatenate([ops.ones((2, 1)), ops.zeros((2, 2))], axis=1).shape
        (2, 3)
    """
    if not len(xs):
        raise ValueError("ops.concatenate: needs at least one tensor.")
    values, tensors, dev = core.operands("concatenate", *[convert_to_tensor(x) for x in xs])
    ndim = values[0].ndim
    axis = _axis("concatenate", axis, ndim)
    for v in values[1:]:
        if v.ndim != ndim or any(a != b for i, (a, b) in enumerate(zip(v.shape, values[0].shape)) if i != axis):
            raise ValueError(
                "ops.concatenate: all inputs must have the same shape except along "
                f"axis {axis}. Received {core.describe(*values)}.")
    return Concatenate(axis)(*tensors)


class Concatenate(Op):
    """Joins along `axis` (dtypes promoted); the gradient splits and casts back."""

    name = "concatenate"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, device, *values):
        dtypes = {v.dtype for v in values}
        if len(dtypes) > 1:
            target = config.to_numpy_dtype(result_type(*dtypes))
            values = [v.astype(target, copy=False) for v in values]
        return device.xp.concatenate(values, axis=self.axis)

    def save(self, inputs, outputs):
        return tuple(inputs)

    def backward(self, saved, needs, g):
        bounds = np.cumsum([t.shape[self.axis] for t in saved])[:-1].tolist()
        return [ew.fit_gradient(p, t) for p, t in zip(split(g, bounds, axis=self.axis), saved)]

    def compute_output_spec(self, *specs):
        shape = list(specs[0][0])
        sizes = [s[0][self.axis] for s in specs]
        shape[self.axis] = None if None in sizes else sum(sizes)
        return tuple(shape), result_type(*[s[1] for s in specs])


def append(x1, x2, axis=None):
    """Appends `x2` to `x1` along `axis` (both flattened when None).

    Example:
        >>> ops.append(ops.ones(2), ops.zeros(1)).shape
        (3,)
    """
    if axis is None:
        return concatenate([ravel(x1), ravel(x2)], axis=0)
    return concatenate([x1, x2], axis=axis)


def stack(x, axis=0):
    """Stacks tensors of equal shape along a new axis.

    Example:
        >>> ops.stack([ops.ones(3), ops.zeros(3)]).shape
        (2, 3)
    """
    xs = [convert_to_tensor(t) for t in x]
    if len({t.shape for t in xs}) > 1:
        raise ValueError(f"ops.stack: all inputs must have the same shape; got {core.describe(*xs)}.")
    rank = xs[0].ndim + 1 if xs else 1  # the new axis makes the valid range one larger
    if not -rank <= int(axis) < rank:
        raise ValueError(f"ops.stack: axis {axis} is out of bounds for the stacked tensor of "
                         f"rank {rank}.")
    return concatenate([expand_dims(t, axis) for t in xs], axis=axis)


def hstack(xs):
    """Concatenates along axis 1 (axis 0 for 1-D inputs), like numpy.hstack.

    Example:
        >>> ops.hstack([ops.ones((2, 1)), ops.ones((2, 2))]).shape
        (2, 3)
    """
    xs = [convert_to_tensor(x) for x in xs]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1)


def vstack(xs):
    """Stacks rows: 1-D inputs become rows, then concatenates along axis 0.

    Example:
        >>> ops.vstack([ops.ones(3), ops.zeros(3)]).shape
        (2, 3)
    """
    xs = [convert_to_tensor(x) for x in xs]
    return concatenate([reshape(x, (1, -1)) if x.ndim < 2 else x for x in xs], axis=0)


def split(x, indices_or_sections, axis=0):
    """Splits along `axis` into equal sections or at the given indices.

    Args:
        x: tensor.
        indices_or_sections: number of equal sections, or split points.
        axis: the axis.

    Returns:
        list of Tensors.

    Example:
        >>> [p.shape for p in ops.split(ops.zeros((4, 2)), 2)]
        [(2, 2), (2, 2)]
    """
    x = convert_to_tensor(x)
    axis = _axis("split", axis, x.ndim)
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or x.shape[axis] % sections:
            raise ValueError(
                f"ops.split: axis {axis} of size {x.shape[axis]} (shape {x.shape}) does not "
                f"split into {sections} equal sections.")
        step = x.shape[axis] // sections
        bounds = [step * i for i in range(1, sections)]
    else:
        bounds = [int(i) for i in indices_or_sections]
    edges = [0] + bounds + [x.shape[axis]]
    index = [builtins.slice(None)] * x.ndim
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        index[axis] = builtins.slice(lo, hi)
        pieces.append(getitem(x, tuple(index)))
    return pieces


def unstack(x, num=None, axis=0):
    """Splits along `axis` into tensors with that axis removed.

    Example:
        >>> len(ops.unstack(ops.zeros((3, 2))))
        3
    """
    x = convert_to_tensor(x)
    axis = _axis("unstack", axis, x.ndim)
    if num is not None and num != x.shape[axis]:
        raise ValueError(f"ops.unstack: num={num} but axis {axis} of shape {x.shape} has "
                         f"{x.shape[axis]} entries.")
    index = [builtins.slice(None)] * x.ndim
    pieces = []
    for i in range(x.shape[axis]):
        index[axis] = i
        pieces.append(getitem(x, tuple(index)))
    return pieces


def size(x):
    """Number of elements.

    Example:
        >>> ops.size(ops.zeros((2, 3)))
        6
    """
    return convert_to_tensor(x).size


# Layout ops (tile, repeat, pad, flip, roll, rot90, meshgrid, diff), re-exported.
from kerasish.ops.layout import (diff, flip, meshgrid, pad, repeat, roll,  # noqa: E402,F401
                                 rot90, tile)

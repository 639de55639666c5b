"""Shape ops: reshape, transpose, concatenate, stack, split, tile, pad, meshgrid, ...

Gathers and scatters (take, getitem, one_hot, scatter...) live in
`indexing.py` and are re-exported here, so `manipulation.take` keeps working.
"""
import builtins

import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor, is_symbolic
from kerasish.autodiff.op import Op, broadcast_shapes
from kerasish.autodiff.primitives import Reshape
from kerasish.backend import config, keras_graph
from kerasish.backend.dtypes import result_type
from kerasish.ops import core, elementwise as ew
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.indexing import (_index_add, _unwrap_key,  # noqa: F401
                                   getitem, multi_hot, one_hot, scatter,
                                   scatter_update, slice, slice_update, take,
                                   take_along_axis)
from kerasish.ops.symbolic import keras_op


def _axis(name, axis, ndim):
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):
        raise ValueError(f"ops.{name}: axis {axis} is out of bounds for a tensor of rank {ndim}.")
    return axis % builtins.max(ndim, 1)


@keras_op
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
    if x.__class__ is KerasTensor or is_symbolic(newshape):
        return KerasTensor(reshaped_shape(x.shape, newshape), x.dtype)
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


def reshaped_shape(shape, newshape):
    """The shape `reshape` gives, Keras's symbolic rule: sizes that are None or
    KerasTensors are unknown (None); -1 is inferred when every other size is known.

    Raises:
        ValueError: when known sizes cannot hold the input's elements.
    """
    if newshape.__class__ is KerasTensor:  # a shape tensor: only its length is known
        if newshape.ndim != 1 or newshape.shape[0] is None:
            raise ValueError(f"ops.reshape: a symbolic `newshape` must be 1-D with a known "
                             f"length; got shape {newshape.shape}.")
        return (None,) * newshape.shape[0]
    dims = newshape if isinstance(newshape, (tuple, list)) else (newshape,)
    dims = [None if d is None or d.__class__ is KerasTensor else int(d) for d in dims]
    known_in = None not in shape
    total = int(np.prod(shape)) if known_in else None
    known_out = [d for d in dims if d is not None and d != -1]
    product = int(np.prod(known_out)) if known_out else 1
    if -1 in dims:
        missing = None
        if known_in and None not in dims:
            if product == 0 or total % product:
                raise ValueError(f"ops.reshape: cannot reshape a tensor of shape {shape} "
                                 f"into shape {tuple(dims)}.")
            missing = total // product
        return tuple(missing if d == -1 else d for d in dims)
    if known_in and None not in dims and total != product:
        raise ValueError(f"ops.reshape: cannot reshape a tensor of shape {shape} "
                         f"({total} elements) into shape {tuple(dims)}.")
    return tuple(dims)


@keras_op
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


@keras_op
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


@keras_op
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
    axis1, axis2 = _axis("swapaxes", axis1, x.ndim), _axis("swapaxes", axis2, x.ndim)
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return transpose(x, order)


@keras_op
def expand_dims(x, axis):
    """Inserts length-1 axes at `axis` (an int or a tuple).

    Example:
        >>> ops.expand_dims(ops.zeros((2,)), -1).shape
        (2, 1)
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        out_ndim = x.ndim + len(axes)
        axes = sorted(_axis("expand_dims", a, out_ndim) for a in axes)
        dims = iter(x.shape)
        return KerasTensor(tuple(1 if i in axes else next(dims) for i in range(out_ndim)),
                           x.dtype)
    return reshape(x, np.expand_dims(np.empty(x.shape, dtype=bool), axis).shape)


@keras_op
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
            if x.shape[a] != 1:  # an unknown (None) size is refused too, as Keras does
                raise ValueError(
                    f"ops.squeeze: cannot squeeze axis {a} of size {x.shape[a]} (shape {x.shape}).")
    if x.__class__ is KerasTensor:  # unknown sizes are squeezed only when named in `axis`
        if axis is None:
            return KerasTensor(tuple(n for n in x.shape if n != 1), x.dtype)
        axes = {_axis("squeeze", a, x.ndim) for a in (axis if isinstance(axis, (tuple, list))
                                                      else (axis,))}
        return KerasTensor(tuple(n for i, n in enumerate(x.shape) if i not in axes), x.dtype)
    return reshape(x, np.squeeze(np.empty(x.shape, dtype=bool), axis=axis).shape)


@keras_op
def ravel(x):
    """Flattens to one dimension.

    Example:
        >>> ops.ravel(ops.zeros((2, 3))).shape
        (6,)
    """
    return reshape(x, (-1,))


flatten = ravel


@keras_op
def broadcast_to(x, shape):
    """Broadcasts `x` to `shape`; the gradient sums over broadcast axes.

    Example:
        >>> ops.broadcast_to(ops.ones((3,)), (2, 3)).shape
        (2, 3)
    """
    x = convert_to_tensor(x)
    shape = tuple(int(n) for n in shape)
    if x.__class__ is KerasTensor:
        try:
            if broadcast_shapes(x.shape, shape) != shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"ops.broadcast_to: cannot broadcast shape {x.shape} to "
                             f"{shape}.") from None
    try:
        return BroadcastTo(shape)(x)
    except ValueError:
        if keras_graph.active():
            raise ValueError(f"ops.broadcast_to: cannot broadcast shape {x.shape} to "
                             f"{shape}.") from None
        # TensorFlow's eager error (Keras 3.15.1 on TensorFlow 2.21)
        where = "CPU:0" if x._device.xp is np else "GPU:0"
        shapes = " vs. ".join("[" + ",".join(str(d) for d in s) + "]" for s in (x.shape, shape))
        raise ew.InvalidArgumentError(
            f"{{{{function_node __wrapped__BroadcastTo_device_/job:localhost/replica:0/task:0/"
            f"device:{where}}}}} Incompatible shapes: {shapes} [Op:BroadcastTo]") from None


class BroadcastTo(Op):
    """Broadcasts to `shape`; the gradient sums over the broadcast axes."""

    name = "broadcast_to"

    def __init__(self, shape):
        self.shape = shape

    def forward(self, device, x):
        return device.kernel("broadcast_to")(x, self.shape)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (ew.unbroadcast(g, saved[0]),)

    def compute_output_spec(self, spec):
        return self.shape, spec[1]


@keras_op
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
    tensors = [convert_to_tensor(x) for x in xs]
    if KerasTensor in map(type, tensors):
        if axis is None:
            raise ValueError("ops.concatenate: `axis` cannot be None for symbolic inputs.")
        if len({t.ndim for t in tensors}) > 1:
            raise ValueError("ops.concatenate: all inputs must have the same rank. "
                             f"Received {core.describe(*tensors)}.")
        return Concatenate(_axis("concatenate", axis, tensors[0].ndim))(*tensors)
    values, tensors, dev = core.operands("concatenate", *tensors)
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
        shape = []
        for i in range(len(specs[0][0])):
            sizes = [s[0][i] for s in specs]
            if i == self.axis:
                shape.append(None if None in sizes else sum(sizes))
                continue
            known = {n for n in sizes if n is not None}
            if len(known) > 1:
                raise ValueError(
                    "ops.concatenate: all inputs must have the same shape except along axis "
                    f"{self.axis}. Received shapes {[s[0] for s in specs]}.")
            shape.append(known.pop() if known else None)
        return tuple(shape), result_type(*[s[1] for s in specs])


@keras_op
def append(x1, x2, axis=None):
    """Appends `x2` to `x1` along `axis` (both flattened when None).

    Example:
        >>> ops.append(ops.ones(2), ops.zeros(1)).shape
        (3,)
    """
    if axis is None:
        return concatenate([ravel(x1), ravel(x2)], axis=0)
    return concatenate([x1, x2], axis=axis)


@keras_op
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


@keras_op
def hstack(xs):
    """Concatenates along axis 1 (axis 0 for 1-D inputs), like numpy.hstack.

    Example:
        >>> ops.hstack([ops.ones((2, 1)), ops.ones((2, 2))]).shape
        (2, 3)
    """
    xs = [convert_to_tensor(x) for x in xs]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1)


@keras_op
def vstack(xs):
    """Stacks rows: 1-D inputs become rows, then concatenates along axis 0.

    Example:
        >>> ops.vstack([ops.ones(3), ops.zeros(3)]).shape
        (2, 3)
    """
    xs = [convert_to_tensor(x) for x in xs]
    return concatenate([reshape(x, (1, -1)) if x.ndim < 2 else x for x in xs], axis=0)


@keras_op
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
    if x.__class__ is KerasTensor and x.shape[axis] is None:
        return _split_unknown(x, indices_or_sections, axis)
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


def _split_unknown(x, indices_or_sections, axis):
    """`split` of an axis of unknown size: equal sections stay unknown; between
    split points the sizes are known, the last piece's is not (Keras's rule)."""
    if isinstance(indices_or_sections, (int, np.integer)):
        sizes = [None] * int(indices_or_sections)
    else:
        bounds = [0] + [int(i) for i in indices_or_sections]
        sizes = [hi - lo for lo, hi in zip(bounds[:-1], bounds[1:])] + [None]
    return [KerasTensor(x.shape[:axis] + (n,) + x.shape[axis + 1:], x.dtype) for n in sizes]


@keras_op
def unstack(x, num=None, axis=0):
    """Splits along `axis` into tensors with that axis removed.

    Example:
        >>> len(ops.unstack(ops.zeros((3, 2))))
        3
    """
    x = convert_to_tensor(x)
    axis = _axis("unstack", axis, x.ndim)
    if x.__class__ is KerasTensor:
        n = x.shape[axis] if x.shape[axis] is not None else num
        if n is None:
            raise ValueError(
                f"ops.unstack: Cannot infer argument `num` from shape {x.shape}. Either provide "
                "a tensor with a concrete shape in the `axis` dimension or explicitly pass the "
                "`num` argument.")
        rest = x.shape[:axis] + x.shape[axis + 1:]
        return [KerasTensor(rest, x.dtype) for _ in range(n)]
    if num is not None and num != x.shape[axis]:
        raise ValueError(f"ops.unstack: num={num} but axis {axis} of shape {x.shape} has "
                         f"{x.shape[axis]} entries.")
    index = [builtins.slice(None)] * x.ndim
    pieces = []
    for i in range(x.shape[axis]):
        index[axis] = i
        pieces.append(getitem(x, tuple(index)))
    return pieces


@keras_op
def size(x):
    """Number of elements, as a scalar int32 tensor (as Keras's TensorFlow backend).

    Example:
        >>> int(ops.size(ops.zeros((2, 3))))
        6
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor((), "int32")
    return convert_to_tensor(x.size, dtype="int32")


# Layout ops (tile, repeat, pad, flip, roll, rot90, meshgrid, diff), re-exported.
from kerasish.ops.layout import (diff, flip, meshgrid, pad, repeat, roll,  # noqa: E402,F401
                                 rot90, tile)

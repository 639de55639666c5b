"""Layout ops: tile, repeat, pad, flip, roll, rot90, meshgrid, diff.

Re-exported by `manipulation`; every gradient is written with ops.
"""
import builtins

import numpy as np

from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.ops import core, elementwise as ew, reduction
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.indexing import getitem, take
from kerasish.ops.manipulation import _axis, broadcast_to, ravel, reshape, transpose
from kerasish.ops.symbolic import keras_op


@keras_op
def tile(x, repeats):
    """Repeats the whole tensor `repeats` times per axis.

    Example:
        >>> ops.tile(ops.ones((2,)), 3).shape
        (6,)
    """
    x = convert_to_tensor(x)
    repeats = (int(repeats),) if isinstance(repeats, (int, np.integer)) else tuple(int(r) for r in repeats)
    return Tile(repeats)(x)


class Tile(Op):
    """numpy.tile; the gradient sums the copies."""

    name = "tile"

    def __init__(self, repeats):
        self.repeats = repeats

    def forward(self, device, x):
        return device.xp.tile(x, self.repeats)

    def save(self, inputs, outputs):
        return inputs[0].shape, outputs[0].ndim

    def backward(self, saved, needs, g):
        shape, ndim = saved
        src = (1,) * (ndim - len(shape)) + tuple(shape)
        reps = (1,) * (ndim - len(self.repeats)) + self.repeats
        split_shape = []
        for r, n in zip(reps, src):
            split_shape += [r, n]
        summed = reduction.sum(reshape(g, split_shape), axis=tuple(range(0, 2 * ndim, 2)))
        return (reshape(summed, shape),)

    def compute_output_spec(self, spec):
        shape, reps = tuple(spec[0]), self.repeats
        ndim = max(len(shape), len(reps))
        shape = (1,) * (ndim - len(shape)) + shape
        reps = (1,) * (ndim - len(reps)) + tuple(reps)
        return tuple(None if n is None else n * r for n, r in zip(shape, reps)), spec[1]


@keras_op
def repeat(x, repeats, axis=None):
    """Repeats each element `repeats` times along `axis` (flattened if None).

    Example:
        >>> ops.repeat(ops.convert_to_tensor([1, 2]), 2)   # [1, 1, 2, 2]
    """
    x = convert_to_tensor(x)
    flattened = axis is None
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _axis("repeat", axis, x.ndim)
    if x.__class__ is KerasTensor or repeats.__class__ is KerasTensor:
        n = x.shape[axis]
        if n is not None and repeats.__class__ is not KerasTensor:
            reps = np.asarray(core.convert_to_numpy(repeats)).reshape(-1)
            if reps.size not in (1, n):
                raise ValueError(
                    "Size of `repeats` and dimensions of `x` after flattening should be "
                    f"compatible. Received: {reps.size} and {n}" if flattened else
                    f"Size of `repeats` and dimensions of `axis {axis} of x` should be "
                    f"compatible. Received: {reps.size} and {list(x.shape)}")
            n = n * int(reps[0]) if reps.size == 1 else int(reps.sum())  # one count: for all
        elif repeats.__class__ is KerasTensor:
            n = None
        return KerasTensor(x.shape[:axis] + (n,) + x.shape[axis + 1:], x.dtype)
    if not isinstance(repeats, (int, np.integer)):
        reps = np.asarray(core.convert_to_numpy(repeats)).astype(np.int64)
        idx = np.repeat(np.arange(x.shape[axis]), reps)
        return take(x, idx, axis=axis)
    return Repeat(int(repeats), axis)(x)


class Repeat(Op):
    """Each element `repeats` times along `axis`; the gradient sums each run."""

    name = "repeat"

    def __init__(self, repeats, axis):
        self.repeats, self.axis = repeats, axis

    def forward(self, device, x):
        return device.xp.repeat(x, self.repeats, axis=self.axis)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        shape, axis = saved[0], self.axis
        split = shape[:axis] + (shape[axis], self.repeats) + shape[axis + 1:]
        return (reduction.sum(reshape(g, split), axis=axis + 1),)


_GATHER_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")


@keras_op
def pad(x, pad_width, mode="constant", constant_values=None):
    """Pads a tensor (numpy.pad semantics).

    Args:
        x: tensor.
        pad_width: int, (before, after) or one pair per axis.
        mode: "constant", "edge", "reflect", "symmetric" or "wrap".
        constant_values: fill value for "constant" (0 by default).

    Returns:
        Tensor.

    Example:
        >>> ops.pad(ops.ones((1, 2)), [[1, 1], [0, 0]]).shape
        (3, 2)
    """
    x = convert_to_tensor(x)
    if constant_values is not None and mode != "constant":
        raise ValueError("ops.pad: Argument `constant_values` can only be provided when "
                         f"`mode == 'constant'`. Received: mode={mode!r}")
    try:
        width = np.asarray(pad_width, dtype=np.int64)
        width = np.broadcast_to(np.repeat(width.reshape(1), 2) if width.size == 1
                                else width.reshape(-1, 2), (x.ndim, 2))
    except ValueError:
        raise ValueError(f"ops.pad: pad_width {pad_width!r} does not fit a tensor of shape "
                         f"{x.shape}.") from None
    if mode in _GATHER_PAD_MODES and x.__class__ is KerasTensor:
        return KerasTensor(_padded_shape(x.shape, width.tolist()), x.dtype)
    if mode in _GATHER_PAD_MODES:  # a gather per axis: differentiable through take
        for axis, (lo, hi) in enumerate(width.tolist()):
            if lo or hi:
                x = take(x, np.pad(np.arange(x.shape[axis]), (lo, hi), mode=mode), axis=axis)
        return x
    if mode != "constant":
        raise NotImplementedError(
            f"ops.pad: mode={mode!r} is not supported; use one of "
            f"{('constant',) + _GATHER_PAD_MODES}.")
    fill = 0 if constant_values is None else constant_values
    return ConstantPad(width.tolist(), fill)(x)


class ConstantPad(Op):
    """numpy.pad with a constant; the gradient is the unpadded window."""

    name = "pad"

    def __init__(self, width, fill):
        self.width, self.fill = width, fill

    def forward(self, device, x):
        return device.xp.pad(x, self.width, mode="constant", constant_values=self.fill)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        index = tuple(builtins.slice(int(lo), int(lo) + n)
                      for (lo, _), n in zip(self.width, saved[0]))
        return (g[index],)

    def compute_output_spec(self, spec):
        return _padded_shape(spec[0], self.width), spec[1]


def _padded_shape(shape, width):
    return tuple(None if n is None else n + int(lo) + int(hi) for n, (lo, hi) in zip(shape, width))


@keras_op
def flip(x, axis=None):
    """Reverses the order of elements along `axis` (all axes if None).

    Example:
        >>> ops.flip(ops.convert_to_tensor([1, 2, 3]))   # [3, 2, 1]
    """
    return Flip(axis)(convert_to_tensor(x))


class Flip(Op):
    """Reverses `axis` (all when None); its own adjoint."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "flip"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, device, x):
        return device.xp.flip(x, axis=self.axis)

    def backward(self, saved, needs, g):
        return (self(g),)

    def compute_output_spec(self, spec):
        _check_axes(self.name, self.axis, len(spec[0]))
        return spec


def _check_axes(name, axis, ndim):
    """Raises Keras's ValueError for an axis out of range (symbolic inputs)."""
    for a in ((axis,) if isinstance(axis, int) else axis or ()):
        _axis(name, a, ndim)


@keras_op
def roll(x, shift, axis=None):
    """Rolls elements along `axis` (numpy semantics).

    Example:
        >>> ops.roll(ops.convert_to_tensor([1, 2, 3]), 1)   # [3, 1, 2]
    """
    return Roll(shift, axis)(convert_to_tensor(x))


class Roll(Op):
    """numpy.roll; the gradient rolls back."""

    elementwise = True  # shaped like its (broadcast) inputs

    name = "roll"

    def __init__(self, shift, axis):
        self.shift, self.axis = shift, axis

    def forward(self, device, x):
        return device.xp.roll(x, self.shift, axis=self.axis)

    def backward(self, saved, needs, g):
        shift = self.shift
        neg = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
        return (Roll(neg, self.axis)(g),)

    def compute_output_spec(self, spec):
        _check_axes(self.name, self.axis, len(spec[0]))
        return spec


@keras_op
def rot90(array, k=1, axes=(0, 1)):
    """Rotates by 90 degrees `k` times in the plane of `axes` (numpy.rot90).

    Example:
        >>> ops.rot90(ops.convert_to_tensor([[1, 2], [3, 4]]))   # [[2, 4], [1, 3]]
    """
    x = convert_to_tensor(array)
    if x.ndim < 2 or len(axes) != 2 or axes[0] % x.ndim == axes[1] % x.ndim:
        raise ValueError(f"ops.rot90: needs rank >= 2 and two distinct axes; got shape "
                         f"{x.shape}, axes={axes}.")
    k = k % 4
    a0, a1 = axes
    if k == 2:
        return flip(flip(x, a0), a1)
    if k == 0:
        return x
    order = list(range(x.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    return transpose(flip(x, a1), order) if k == 1 else flip(transpose(x, order), a1)


@keras_op
def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-D tensors (numpy.meshgrid; differentiable).

    Args:
        *x: 1-D tensors.
        indexing: "xy" (Cartesian) or "ij" (matrix).

    Returns:
        list of Tensors, all of the same shape.

    Example:
        >>> [g.shape for g in ops.meshgrid(ops.arange(3), ops.arange(2))]
        [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ops.meshgrid: indexing must be 'xy' or 'ij'; got {indexing!r}.")
    xs = [ravel(convert_to_tensor(v)) for v in x]
    shape = [v.shape[0] for v in xs]
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, v in enumerate(xs):
        where = i
        if indexing == "xy" and len(xs) > 1 and i < 2:
            where = 1 - i
        view = [1] * len(xs)
        view[where] = -1
        grids.append(broadcast_to(reshape(v, view), shape))
    return grids


@keras_op
def diff(a, n=1, axis=-1):
    """n-th discrete difference along `axis` (numpy.diff).

    Example:
        >>> ops.diff(ops.convert_to_tensor([1, 4, 9]))   # [3, 5]
    """
    x = convert_to_tensor(a)
    axis = _axis("diff", axis, x.ndim)
    for _ in range(n):
        hi = [builtins.slice(None)] * x.ndim
        lo = [builtins.slice(None)] * x.ndim
        hi[axis], lo[axis] = builtins.slice(1, None), builtins.slice(None, -1)
        # numpy (and Keras) difference booleans with `!=`
        step = ew.not_equal if x.dtype == "bool" else ew.subtract
        x = step(getitem(x, tuple(hi)), getitem(x, tuple(lo)))
    return x

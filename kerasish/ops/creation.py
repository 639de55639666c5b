"""Tensor constructors: zeros, ones, full, arange, linspace, eye, ..."""
import numpy as np

from kerasish.autodiff.capture import constant_creator
from kerasish.autodiff.keras_tensor import KerasTensor, in_trace
from kerasish.autodiff.op import broadcast_shapes
from kerasish.autodiff.tensor import Tensor
from kerasish.backend import config, devices as _dev
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.symbolic import keras_op


@constant_creator
def _make(fn, dtype, shape=None):
    if shape is not None and in_trace() and _unknown(shape):
        # inside a trace, a size read off a KerasTensor may be unknown: a symbolic result
        dims = (shape,) if not isinstance(shape, (tuple, list)) else shape
        return KerasTensor(tuple(None if _is_unknown(n) else int(n) for n in dims),
                           config.standardize_dtype(dtype or config.floatx()))
    dev = _dev.current_device()
    return Tensor(fn(dev.xp, config.to_numpy_dtype(dtype)), dev)


def _is_unknown(n):
    return n is None or n.__class__ is KerasTensor


def _unknown(shape):
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return any(_is_unknown(n) for n in dims)


def _shape(shape):
    return (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)


@keras_op
def zeros(shape, dtype=None):
    """A tensor of zeros (dtype defaults to floatx).

    Example:
        >>> ops.zeros((2, 3)).shape
        (2, 3)
    """
    return _make(lambda xp, dt: xp.zeros(_shape(shape), dt), dtype, shape)


@keras_op
def ones(shape, dtype=None):
    """A tensor of ones (dtype defaults to floatx).

    Example:
        >>> ops.ones((2,))   # [1., 1.]
    """
    return _make(lambda xp, dt: xp.ones(_shape(shape), dt), dtype, shape)


@keras_op
def full(shape, fill_value, dtype=None):
    """A tensor filled with `fill_value` (dtype defaults to floatx).

    Example:
        >>> ops.full((2,), 7.0)   # [7., 7.]
    """
    return _make(lambda xp, dt: xp.full(_shape(shape), fill_value, dt), dtype, shape)


@keras_op
def empty(shape, dtype=None):
    """An uninitialised tensor (dtype defaults to floatx).

    Example:
        >>> ops.empty((2, 3)).shape
        (2, 3)
    """
    return _make(lambda xp, dt: xp.empty(_shape(shape), dt), dtype, shape)


def _like(x, dtype):
    x = convert_to_tensor(x)
    return x, config.to_numpy_dtype(dtype or x.dtype)


def _symbolic_like(x, dtype):
    """The spec of `*_like(x)` for a KerasTensor `x`."""
    return KerasTensor(x.shape, config.standardize_dtype(dtype or x.dtype))


@keras_op
@constant_creator
def zeros_like(x, dtype=None):
    """Zeros with the shape (and dtype) of `x`, on `x`'s device.

    Example:
        >>> ops.zeros_like(ops.ones((2,), "int32"))   # [0, 0] int32
    """
    x, dt = _like(x, dtype)
    if x.__class__ is KerasTensor:
        return _symbolic_like(x, dt)
    return Tensor(x._device.xp.zeros(x.shape, dt), x._device)


@keras_op
@constant_creator
def ones_like(x, dtype=None):
    """Ones with the shape (and dtype) of `x`, on `x`'s device.

    Example:
        >>> ops.ones_like(ops.zeros((2,)))   # [1., 1.]
    """
    x, dt = _like(x, dtype)
    if x.__class__ is KerasTensor:
        return _symbolic_like(x, dt)
    return Tensor(x._device.xp.ones(x.shape, dt), x._device)


@keras_op
@constant_creator
def full_like(x, fill_value, dtype=None):
    """`fill_value` with the shape (and dtype) of `x`.

    Example:
        >>> ops.full_like(ops.zeros((2,)), 3.0)   # [3., 3.]
    """
    x, dt = _like(x, dtype)
    if x.__class__ is KerasTensor:
        return _symbolic_like(x, dt)
    return Tensor(x._device.xp.full(x.shape, fill_value, dt), x._device)


@keras_op
@constant_creator
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop); int32 for int arguments, else floatx.

    Example:
        >>> ops.arange(3)   # [0, 1, 2] int32
    """
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                     for v in (start, stop, step) if v is not None)
        dtype = "int32" if is_int else config.floatx()
    if in_trace() and _unknown_range(start, stop, step):
        # In a layer's symbolic trace a bound read off a KerasTensor's unknown dim
        # (`ops.arange(0, ops.shape(x)[1], 1)`) is None; Keras's TensorFlow trace
        # sees a dynamic scalar there and infers a length-None range.
        return KerasTensor((None,), config.standardize_dtype(dtype))
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    return _make(lambda xp, dt: xp.arange(start, stop, step, dtype=dt), dtype)


def _unknown_range(start, stop, step):
    """Whether `arange`'s bounds hold an unknown size: `start` unknown (the
    one-argument form), `stop` unknown, or `stop` None where it cannot mean the
    one-argument form (a step is given, or `start` is 0)."""
    if _is_unknown(start) or (stop is not None and _is_unknown(stop)):
        return True
    return stop is None and (step is not None or (isinstance(start, (int, np.integer))
                                                  and not isinstance(start, bool) and start == 0))


@keras_op
@constant_creator
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from `start` to `stop` (floatx by default).

    Example:
        >>> ops.linspace(0.0, 1.0, 3)   # [0., 0.5, 1.]
    """
    if start.__class__ is KerasTensor or stop.__class__ is KerasTensor:
        out = _symbolic_space(start, stop, num, dtype, axis)
        return (out, KerasTensor((), out.dtype)) if retstep else out
    dev = _dev.current_device()
    dt = config.to_numpy_dtype(dtype)
    values, step = dev.xp.linspace(start, stop, num, endpoint=endpoint, retstep=True, axis=axis)
    out = Tensor(values.astype(dt), dev)
    return (out, step) if retstep else out


def _symbolic_space(start, stop, num, dtype, axis):
    """linspace/logspace on KerasTensors: the broadcast of start and stop, with `num`
    inserted at `axis`."""
    shape = list(broadcast_shapes(tuple(getattr(start, "shape", ())),
                                  tuple(getattr(stop, "shape", ()))))
    shape.insert(axis if axis >= 0 else len(shape) + axis + 1, int(num))
    return KerasTensor(tuple(shape), config.standardize_dtype(dtype or config.floatx()))


@keras_op
@constant_creator
def eye(N, M=None, k=0, dtype=None):
    """A 2-D tensor with ones on the k-th diagonal.

    Example:
        >>> ops.eye(2)   # [[1., 0.], [0., 1.]]
    """
    return _make(lambda xp, dt: xp.eye(N, M, k, dtype=dt), dtype)


@keras_op
def identity(n, dtype=None):
    """The n x n identity matrix.

    Example:
        >>> ops.identity(2)   # [[1., 0.], [0., 1.]]
    """
    return eye(n, dtype=dtype)


@keras_op
@constant_creator
def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the k-th diagonal.

    Example:
        >>> ops.tri(2)   # [[1., 0.], [1., 1.]]
    """
    return _make(lambda xp, dt: xp.tri(N, M, k, dtype=dt), dtype)


@keras_op
def empty_like(x, dtype=None):
    """An uninitialised tensor with the shape (and dtype) of `x`.

    Example:
        >>> ops.empty_like(ops.ones((2, 3))).shape
        (2, 3)
    """
    x, dt = _like(x, dtype)
    if x.__class__ is KerasTensor:
        return _symbolic_like(x, dt)
    return Tensor(x._device.xp.empty(x.shape, dt), x._device)


@keras_op
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """`num` values evenly spaced on a log scale from base**start to base**stop.

    Example:
        >>> ops.logspace(0, 2, 3)   # [1., 10., 100.]
    """
    if start.__class__ is KerasTensor or stop.__class__ is KerasTensor:
        return _symbolic_space(start, stop, num, dtype, axis)
    dev = _dev.current_device()
    values = dev.xp.logspace(start, stop, num, endpoint=endpoint, base=base, axis=axis)
    return Tensor(values.astype(config.to_numpy_dtype(dtype)), dev)


@keras_op
def array(x, dtype=None):
    """Creates a tensor from data (same as `convert_to_tensor`).

    Example:
        >>> ops.array([1, 2]).dtype
        'int32'
    """
    return convert_to_tensor(x, dtype=dtype)

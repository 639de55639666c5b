"""Reductions over axes: sum, mean, max, min, prod, var, std, logsumexp, ...

This module defines `sum`, `max`, `min`, `any` and `all`: the builtins are
reached through `builtins.` here.
"""
import builtins

from kerasish.autodiff.capture import apply_raw
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.autodiff.op import Op
from kerasish.autodiff.tensor import Tensor
from kerasish.ops import core, elementwise as ew, manipulation as shape_ops
from kerasish.ops.core import convert_to_tensor
from kerasish.ops.symbolic import keras_op


def _axes(axis, ndim, name="reduce"):
    """Normalises `axis` to a sorted tuple of non-negative ints (None = all)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < builtins.max(ndim, 1):
            raise ValueError(f"ops.{name}: axis {a} is out of bounds for a tensor of rank {ndim}.")
        out.append(a % builtins.max(ndim, 1))
    return tuple(sorted(set(out)))


def _expand_to(g, x_shape, axes, keepdims):
    """Broadcasts a reduced gradient back to the input's shape."""
    if not keepdims:
        kept = tuple(1 if i in axes else n for i, n in enumerate(x_shape))
        g = shape_ops.reshape(g, kept)
    return shape_ops.broadcast_to(g, x_shape)


_ACCUMULATE_AS = {"bool": "int32", "int8": "int32", "int16": "int32",
                  "uint8": "uint32", "uint16": "uint32"}


def accumulator_dtype(dtype):
    """Keras's result dtype of sum/prod/cumsum: small ints widen to (u)int32, others keep."""
    name = core.config.standardize_dtype(dtype)
    return _ACCUMULATE_AS.get(name, name)


def _scan_dtype(dtype):
    """cumsum/cumprod keep the input dtype (bool becomes int32), as in Keras."""
    return "int32" if dtype.kind == "b" else dtype


@keras_op
def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras exports ops.sum
    """Sum of elements over `axis` (None: all).

    Args:
        x: tensor-like.
        axis: int, tuple of ints or None.
        keepdims: keep reduced axes with length 1.

    Returns:
        Tensor; ints keep their dtype (bool/int8/int16 give int32), as in Keras.

    Example:
        >>> ops.sum(ops.ones((2, 3)), axis=1)   # [3., 3.]
    """
    x = convert_to_tensor(x)
    return Sum(_axes(axis, x.ndim, "sum"), keepdims)(x)


class Sum(Op):
    """Sum over `axes`; the gradient broadcasts back (small ints accumulate wider)."""

    name = "sum"

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, device, x):
        if x.dtype.kind == "f":  # in TensorFlow's order of additions (last bits as Keras)
            return device.kernel("ordered_sum")(x, self.axes, self.keepdims)
        if x.dtype.name == "bfloat16":  # TensorFlow accumulates bfloat16 in float32
            return device.xp.sum(x, axis=self.axes, keepdims=self.keepdims,
                                 dtype="float32").astype(x.dtype)
        value = device.xp.sum(x, axis=self.axes, keepdims=self.keepdims)
        return value.astype(accumulator_dtype(x.dtype))

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        return (_expand_to(g, saved[0], self.axes, self.keepdims),)

    def compute_output_spec(self, spec):
        return _reduced_shape(spec[0], self.axes, self.keepdims), accumulator_dtype(spec[1])


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


@keras_op
def mean(x, axis=None, keepdims=False):
    """Mean over `axis`; integer inputs give floatx results as in Keras.

    Args:
        x: tensor-like.
        axis: int, tuple of ints or None (all).
        keepdims: keep reduced axes with length 1.

    Returns:
        Tensor.

    Example:
        >>> ops.mean(ops.convert_to_tensor([1, 2]))   # 1.5 (float32)
    """
    x = core.float_operand(x)
    return Mean(_axes(axis, x.ndim, "mean"), keepdims)(x)


class Mean(Op):
    """Mean over `axes`; the gradient is `g / count` broadcast back."""

    name = "mean"

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, device, x):
        # (dtype.kind and itemsize: dtype.name is slow for a step's small arrays)
        if x.dtype.kind != "f" and x.dtype.name == "bfloat16":
            # TensorFlow accumulates bfloat16 in float32
            return device.xp.mean(x, axis=self.axes, keepdims=self.keepdims,
                                  dtype="float32").astype(x.dtype)
        if x.dtype.kind == "f" and x.dtype.itemsize == 2:
            # float16: Keras computes the mean in float32 (no overflow)
            return device.kernel("ordered_mean")(x.astype("float32"), self.axes,
                                                 self.keepdims).astype(x.dtype)
        return device.kernel("ordered_mean")(x, self.axes, self.keepdims)

    def save(self, inputs, outputs):
        return (inputs[0].shape,)

    def backward(self, saved, needs, g):
        count = 1
        for a in self.axes:
            count *= saved[0][a]
        return (_expand_to(ew.divide(g, float(builtins.max(count, 1))), saved[0], self.axes,
                           self.keepdims),)

    def compute_output_spec(self, spec):
        return _reduced_shape(spec[0], self.axes, self.keepdims), spec[1]


def _extremum(name, fn):
    def op(x, axis=None, keepdims=False, initial=None):
        x = convert_to_tensor(x)
        if x.__class__ is not KerasTensor and x.size == 0 and initial is None:
            raise ValueError(f"ops.{name}: cannot reduce an empty tensor of shape {x.shape}.")
        return Extremum(name, fn, _axes(axis, x.ndim, name), keepdims, initial)(x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"`{name}` over `axis`; ties share the gradient equally.\n\n"
                  "    Args:\n        x: tensor-like.\n        axis: int, tuple or None (all).\n"
                  "        keepdims: keep reduced axes.\n        initial: optional starting value.\n\n"
                  "    Returns:\n        Tensor of the input dtype.\n\n"
                  f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([1.0, 3.0]))\n")
    return keras_op(op, name=op.__name__)


class Extremum(Op):
    """max or min over `axes`; ties share the gradient equally."""

    def __init__(self, name, fn, axes, keepdims, initial=None):
        self.name, self.fn, self.axes, self.keepdims = name, fn, axes, keepdims
        self.initial = initial

    def forward(self, device, x):
        kwargs = {} if self.initial is None else {"initial": self.initial}
        return self.fn(device.xp)(x, axis=self.axes, keepdims=self.keepdims, **kwargs)

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        x, out = saved
        shape, axes = x.shape, self.axes
        full = _expand_to(out, shape, axes, self.keepdims)
        hits = core.cast(ew.equal(x, full), g.dtype)
        count = _expand_to(sum(hits, axis=axes, keepdims=True), shape, axes, True)
        return (ew.divide(ew.multiply(_expand_to(g, shape, axes, self.keepdims), hits), count),)

    def compute_output_spec(self, spec):
        return _reduced_shape(spec[0], self.axes, self.keepdims), spec[1]


max = _extremum("max", lambda xp: xp.max)  # noqa: A001
min = _extremum("min", lambda xp: xp.min)  # noqa: A001
amax = max
amin = min


@keras_op
def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over `axis` (gradient: product of the others, zero-safe).

    Args:
        x: tensor-like.
        axis: int, tuple of ints or None (all).
        keepdims: keep reduced axes with length 1.
        dtype: optional dtype to compute in.

    Returns:
        Tensor (small ints widen to int32 as in Keras).

    Example:
        >>> ops.prod(ops.convert_to_tensor([2.0, 3.0]))   # 6.0
    """
    x = convert_to_tensor(x, dtype=dtype)
    return Prod(_axes(axis, x.ndim, "prod"), keepdims)(x)


class Prod(Op):
    """Product over `axes`; the gradient is the product of the other entries (zero-safe)."""

    name = "prod"

    def __init__(self, axes, keepdims):
        self.axes, self.keepdims = axes, keepdims

    def forward(self, device, x):
        value = device.xp.prod(x, axis=self.axes, keepdims=self.keepdims)
        return value.astype(accumulator_dtype(x.dtype), copy=False)

    def save(self, inputs, outputs):
        return (inputs[0],)

    def backward(self, saved, needs, g):
        x, axes = saved[0], self.axes
        # product of all other entries = exp-free "exclusive product" via cumprods
        moved = shape_ops.moveaxis(x, axes, tuple(range(-len(axes), 0)))
        flat = shape_ops.reshape(moved, moved.shape[:moved.ndim - len(axes)] + (-1,))
        left = _exclusive_cumprod(flat, reverse=False)
        right = _exclusive_cumprod(flat, reverse=True)
        others = shape_ops.reshape(ew.multiply(left, right), moved.shape)
        others = shape_ops.moveaxis(others, tuple(range(-len(axes), 0)), axes)
        return (ew.multiply(_expand_to(g, x.shape, axes, self.keepdims), others),)

    compute_output_spec = Sum.compute_output_spec


def _exclusive_cumprod(x, reverse):
    if reverse:
        x = shape_ops.flip(x, axis=-1)
    ones = ew.add(ew.multiply(shape_ops.take(x, [0], axis=-1), 0.0), 1.0)
    shifted = shape_ops.concatenate([ones, x[..., :-1]], axis=-1)
    out = cumprod(shifted, axis=-1)
    return shape_ops.flip(out, axis=-1) if reverse else out


@keras_op
def cumsum(x, axis=None, dtype=None):
    """Cumulative sum along `axis` (flattened when None).

    Example:
        >>> ops.cumsum(ops.convert_to_tensor([1, 2, 3]))   # [1, 3, 6]
    """
    x = convert_to_tensor(x, dtype=dtype)
    if axis is None:
        x, axis = shape_ops.reshape(x, (-1,)), 0
    if x.__class__ is KerasTensor:
        shape_ops._axis("cumsum", axis, x.ndim)
    return Cumsum(axis)(x)


class Cumsum(Op):
    """Cumulative sum along `axis`; the gradient is the reversed cumulative sum."""

    name = "cumsum"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, device, x):
        return device.xp.cumsum(x, axis=self.axis).astype(_scan_dtype(x.dtype), copy=False)

    def backward(self, saved, needs, g):
        axis = self.axis
        return (shape_ops.flip(cumsum(shape_ops.flip(g, axis), axis), axis),)

    def compute_output_spec(self, spec):
        return spec[0], "int32" if spec[1] == "bool" else spec[1]


@keras_op
def cumprod(x, axis=None, dtype=None):
    """Cumulative product along `axis` (flattened when None); gradient needs nonzero x.

    Example:
        >>> ops.cumprod(ops.convert_to_tensor([1, 2, 3]))   # [1, 2, 6]
    """
    x = convert_to_tensor(x, dtype=dtype)
    if axis is None:
        x, axis = shape_ops.reshape(x, (-1,)), 0
    if x.__class__ is KerasTensor:
        shape_ops._axis("cumprod", axis, x.ndim)
    return Cumprod(axis)(x)


class Cumprod(Op):
    """Cumulative product along `axis`; the gradient needs nonzero inputs."""

    name = "cumprod"

    def __init__(self, axis):
        self.axis = axis

    def forward(self, device, x):
        return device.xp.cumprod(x, axis=self.axis).astype(_scan_dtype(x.dtype), copy=False)

    def save(self, inputs, outputs):
        return inputs[0], outputs[0]

    def backward(self, saved, needs, g):
        x, out = saved
        axis = self.axis
        # d out_j / d x_i = out_j / x_i for j >= i (valid for nonzero x)
        summed = shape_ops.flip(cumsum(shape_ops.flip(ew.multiply(g, out), axis), axis), axis)
        return (ew.divide(summed, x),)

    def compute_output_spec(self, spec):
        return spec[0], "int32" if spec[1] == "bool" else spec[1]


@keras_op
def var(x, axis=None, keepdims=False):
    """Biased variance over `axis` (divides by N, like Keras).

    Example:
        >>> ops.var(ops.convert_to_tensor([1.0, 3.0]))   # 1.0
    """
    x = core.float_operand(x)
    dtype = x.dtype
    if dtype in ("float16", "bfloat16"):  # as Keras: computed in float32, cast back
        x = core.cast(x, "float32")
    centred = ew.subtract(x, mean(x, axis=axis, keepdims=True))
    out = mean(ew.square(centred), axis=axis, keepdims=keepdims)
    return out if out.dtype == dtype else core.cast(out, dtype)


@keras_op
def std(x, axis=None, keepdims=False):
    """Standard deviation over `axis` (biased, like Keras).

    Example:
        >>> ops.std(ops.convert_to_tensor([1.0, 3.0]))   # 1.0
    """
    return ew.sqrt(var(x, axis=axis, keepdims=keepdims))


@keras_op
def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over `axis`, computed stably (max-shifted).

    Args:
        x: tensor-like.
        axis: int, tuple of ints or None (all).
        keepdims: keep reduced axes with length 1.

    Returns:
        Tensor.

    Example:
        >>> ops.logsumexp(ops.convert_to_tensor([1e4, 1e4]))   # 1e4 + log(2)
    """
    x = core.float_operand(x)
    m = core.stop_gradient(max(x, axis=axis, keepdims=True))
    m = ew.where(ew.isfinite(m), m, 0.0)
    summed = sum(ew.exp(ew.subtract(x, m)), axis=axis, keepdims=True)
    out = ew.add(ew.log(summed), m)
    if not keepdims:
        axes = _axes(axis, x.ndim, "logsumexp")
        out = shape_ops.reshape(out, tuple(n for i, n in enumerate(x.shape) if i not in axes))
    return out


def _index_reduction(name):
    def op(x, axis=None, keepdims=False):
        x = convert_to_tensor(x)
        if x.__class__ is KerasTensor:
            return KerasTensor(_reduced_shape(x.shape, _axes(axis, x.ndim, name), keepdims),
                               "int32")
        return apply_raw(lambda xp, a: xp.asarray(getattr(xp, name)(
            a, axis=axis, keepdims=keepdims)).astype("int32"), x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Indices of the {name[3:]}imum along `axis` (int32, no gradient).\n\n"
                  f"    Example:\n        >>> ops.{name}(ops.convert_to_tensor([1.0, 3.0, 2.0]))\n")
    return keras_op(op, name=op.__name__)


argmax = _index_reduction("argmax")
argmin = _index_reduction("argmin")


@keras_op
def any(x, axis=None, keepdims=False):  # noqa: A001
    """True where any element along `axis` is truthy.

    Example:
        >>> ops.any(ops.convert_to_tensor([0, 1]))   # True
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor(_reduced_shape(x.shape, _axes(axis, x.ndim, "any"), keepdims), "bool")
    return apply_raw(lambda xp, a: xp.any(a, axis=axis, keepdims=keepdims),
                     x)


@keras_op
def all(x, axis=None, keepdims=False):  # noqa: A001
    """True where every element along `axis` is truthy.

    Example:
        >>> ops.all(ops.convert_to_tensor([0, 1]))   # False
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor(_reduced_shape(x.shape, _axes(axis, x.ndim, "all"), keepdims), "bool")
    return apply_raw(lambda xp, a: xp.all(a, axis=axis, keepdims=keepdims),
                     x)


@keras_op
def count_nonzero(x, axis=None):
    """Number of non-zero elements along `axis` (int32).

    Example:
        >>> ops.count_nonzero(ops.convert_to_tensor([0, 1, 2]))   # 2
    """
    x = convert_to_tensor(x)
    if x.__class__ is KerasTensor:
        return KerasTensor(_reduced_shape(x.shape, _axes(axis, x.ndim, "count_nonzero"), False),
                           "int32")
    return apply_raw(lambda xp, a: xp.asarray(xp.count_nonzero(a, axis=axis)).astype("int32"),
                     x)

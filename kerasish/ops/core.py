"""Conversion, casting and the helpers every op is built from.

An op function converts its inputs with `operands` (or `convert_to_tensor`)
and applies an `Op` (see `kerasish.autodiff.op`): forward on raw arrays,
explicit saved values, backward written with ops.
"""
import numpy as np

from kerasish.autodiff import capture as _capture
from kerasish.autodiff import primitives as _primitives, recording as _recording
from kerasish.autodiff.keras_tensor import KerasTensor, NoShapeRule, in_trace
from kerasish.autodiff.op import Op, broadcast_shapes
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import config, devices as _dev
from kerasish.backend.config import is_float, is_inexact
from kerasish.backend.dtypes import result_type
from kerasish.ops import symbolic
from kerasish.utils import tree
from kerasish.ops.symbolic import keras_op

_PY_SCALARS = (int, float, bool, np.number, np.bool_)


def is_tensor(x):
    """True for kerasish Tensors and Variables.

    Args:
        x: anything.

    Returns:
        bool.

    Example:
        >>> ops.is_tensor(ops.ones(2))
        True
    """
    return isinstance(x, Tensor)


def _default_dtype(array, x):
    """Keras's dtype for Python data: floats -> floatx, ints -> int32 (int64 when a
    value does not fit in int32, as TensorFlow infers; int32 wrapped it silently)."""
    if isinstance(x, (np.ndarray, np.generic)) or _dev.is_array(x):
        return None
    kind = array.dtype.kind
    if kind == "f":
        return config.floatx()
    if kind in "iu":
        if array.size and (array.min() < _INT32_MIN or array.max() > _INT32_MAX):
            return "int64"
        return "int32"
    return None


_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def to_array(x, device=None, dtype=None):
    """Returns `x` (Tensor, array, number, nested list) as a raw array on `device`.

    Args:
        x: the data.
        device: a Device; the current device if None.
        dtype: optional dtype to cast to.

    Returns:
        a numpy or cupy array.
    """
    device = device or _dev.current_device()
    if isinstance(x, Tensor):
        array = x._value if x._device is device else device.send(x._value)
    elif _dev.is_array(x):
        array = device.send(x)
    else:
        if isinstance(x, (list, tuple)) and any(isinstance(v, Tensor) for v in x):
            x = np.stack([convert_to_numpy(v) for v in x])  # keeps the tensors' dtype
        try:
            host = np.asarray(x)
        except ValueError:
            host = np.empty(0, dtype=object)
        if host.dtype == object:
            raise ValueError(
                f"convert_to_tensor: cannot convert {type(x).__name__} of mixed or "
                "ragged data to a tensor.")
        dtype = dtype or _default_dtype(host, x)
        array = device.send(host)
    if dtype is not None:
        target = config.to_numpy_dtype(dtype)
        if array.dtype != target:
            array = array.astype(target)
    return array


@_capture.constant_creator
def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """Converts numpy arrays, Python numbers and lists to a Tensor.

    Tensors pass through (cast if `dtype` differs). Python floats become
    `floatx()` and Python ints `int32`, as in Keras; numpy arrays keep their
    dtype. New tensors go to the current device.

    Args:
        x: the data.
        dtype: optional dtype.
        sparse, ragged: accepted for Keras compatibility; must be falsy.

    Returns:
        Tensor.

    Example:
        >>> ops.convert_to_tensor([1, 2]).dtype
        'int32'
    """
    if isinstance(x, Tensor):
        if dtype is not None and config.standardize_dtype(dtype) != x.dtype:
            return cast(x, dtype)
        return x
    if x.__class__ is KerasTensor:
        if not in_trace():  # a graph node, as Keras's ConvertToTensor
            given = {"dtype": dtype, "sparse": sparse, "ragged": ragged}
            return symbolic.symbolic_call(convert_to_tensor, "ConvertToTensor", (x,),
                                          {k: v for k, v in given.items() if v is not None})
        if dtype is not None and config.standardize_dtype(dtype) != x.dtype:
            x = cast(x, dtype)
        # Keras: sparse/ragged=False densifies; True or None keeps what x is
        if (sparse is not None and not sparse and x.sparse) or \
                (ragged is not None and not ragged and x.ragged):
            return KerasTensor(tuple(x.shape), x.dtype,
                               sparse=x.sparse and (sparse is None or bool(sparse)),
                               ragged=x.ragged and (ragged is None or bool(ragged)))
        return x
    if sparse or ragged:
        raise NotImplementedError(
            "convert_to_tensor: kerasish has no sparse or ragged tensors "
            f"(got sparse={sparse}, ragged={ragged}).")
    device = _dev.current_device()
    out = Tensor(to_array(x, device, dtype), device)
    if _recording._active and isinstance(x, (list, tuple)) and _holds_tensor(x):
        # TF packs a list of tensors with a (differentiable) stack: `ops.sum(model.losses)`
        # inside a GradientTape has gradients
        return _stacked(x, out.dtype)
    return out


def strong_scalar(x):
    """A Python scalar as a tensor of TensorFlow's inferred dtype (bool, int32 or
    int64, float32 whatever floatx is); anything else unchanged.

    Keras's TensorFlow backend converts both operands of some binary ops
    (arctan2, hypot, logaddexp, gcd, bitwise ops, ...) before promoting, so a
    Python scalar there is not weak: `arctan2(float16, 1.5)` is float32.
    """
    if isinstance(x, (bool, int, float)) and not hasattr(x, "dtype"):
        return convert_to_tensor(x, "float32" if isinstance(x, float) else None)
    return x


def _holds_tensor(x):
    return any(_holds_tensor(v) if isinstance(v, (list, tuple)) else isinstance(v, Tensor)
               for v in x)


def _stacked(x, dtype):
    if isinstance(x, (list, tuple)):
        return _primitives.stack([_stacked(v, dtype) for v in x], axis=0)
    return convert_to_tensor(x, dtype)


def convert_to_numpy(x):
    """Returns `x` as a numpy array (from Tensor, cupy array, list...).

    Args:
        x: a Tensor, array or Python data.

    Returns:
        numpy.ndarray.

    Example:
        >>> ops.convert_to_numpy(ops.ones(2))
        array([1., 1.], dtype=float32)
    """
    if isinstance(x, Tensor):
        return x.numpy()
    if x.__class__ is KerasTensor:
        raise ValueError(
            "convert_to_numpy: a KerasTensor is symbolic (shape "
            f"{x.shape}, dtype {x.dtype}) and has no value to convert.")
    return _dev.to_host(x) if _dev.is_array(x) else np.asarray(x)


def describe(*xs):
    """"shape (2, 3) float32, shape (3,) int32" for error messages."""
    parts = []
    for x in xs:
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            parts.append(f"shape {tuple(x.shape)} {config.standardize_dtype(x.dtype)}")
        else:
            parts.append(f"{type(x).__name__} {x!r}")
    return ", ".join(parts)


def common_device(name, tensors):
    """The device an op on `tensors` runs on; errors on an unscoped device mix."""
    dev = tensors[0]._device
    for t in tensors[1:]:
        if t._device is not dev:
            scope = _dev.scope_device()
            if scope is None:
                found = "; ".join(f"{t.device}: {describe(t)}" for t in tensors)
                raise ValueError(
                    f"ops.{name}: got tensors on different devices ({found}). Move "
                    "them with keras.ops.convert_to_tensor inside `with keras.device(...)`,"
                    " or run the op inside a device scope.")
            return scope
    return dev


def operands(name, *xs):
    """Prepares an op's inputs.

    Python scalars stay raw scalars (weakly typed, never differentiated);
    everything else becomes a Tensor.

    Args:
        name: the op's name (for error messages).
        *xs: the inputs.

    Returns:
        (values, tensors, device): raw values for computing, the Tensor inputs
        (None for Python scalars) and the device to compute on.
    """
    tensors = [x if isinstance(x, Tensor) else
               None if isinstance(x, _PY_SCALARS) else convert_to_tensor(x) for x in xs]
    present = [t for t in tensors if t is not None]
    if not present:
        tensors[0] = convert_to_tensor(xs[0])
        present = [tensors[0]]
    try:  # a KerasTensor has no `_device`: found here at no cost on tensors
        dev = present[0]._device
        if len(present) > 1:
            for t in present:
                if t._device is not dev:
                    dev = common_device(name, present)
                    break
    except AttributeError:
        raise SymbolicOperands(name, tensors) from None
    values = []
    for x, t in zip(xs, tensors):
        if t is None:
            values.append(x)
        elif t._device is dev:
            values.append(t._value)
        else:
            values.append(dev.send(t._value))
    return values, tensors, dev


class SymbolicOperands(NoShapeRule):
    """Raised by `operands` when an input is a KerasTensor and the op has no symbolic rule.

    Attributes:
        tensors: the converted inputs (KerasTensors, Tensors, None for Python scalars).
    """

    def __init__(self, name, tensors):
        super().__init__(
            f"ops.{name} cannot take symbolic inputs (KerasTensors) here; got "
            f"{describe(*[t for t in tensors if t is not None])}.")
        self.tensors = tensors


def promote(a, b):
    """Casts two raw operands (arrays or Python scalars) to their Keras result type.

    Python scalars stay weak: they never widen a float array, a Python float
    turns an int/bool array into floatx, a Python int turns bool into int32.

    Args:
        a, b: raw arrays, numpy scalars or Python scalars.

    Returns:
        (a, b) ready for the array library.
    """
    da = getattr(a, "dtype", None)
    db = getattr(b, "dtype", None)
    if da is not None and db is not None:
        if da == db:
            return a, b
        target = config.to_numpy_dtype(result_type(da, db))
        return (a if da == target else a.astype(target),
                b if db == target else b.astype(target))
    if da is None and db is None:
        return a, b
    array, scalar = (a, b) if da is not None else (b, a)
    kind = array.dtype.kind
    if kind in "fc" or isinstance(scalar, bool):
        return a, b
    if is_float(array.dtype):  # bfloat16: numpy would widen it for a Python float
        scalar = array.dtype.type(scalar)
        return (array, scalar) if da is not None else (scalar, array)
    if isinstance(scalar, float) or (kind == "b" and isinstance(scalar, int)):
        target = config.to_numpy_dtype(result_type(array.dtype, type(scalar)))
        array = array.astype(target)
        return (array, b) if da is not None else (a, array)
    return a, b


@keras_op
def cast(x, dtype):
    """Casts a tensor to `dtype`; differentiable between float types.

    Args:
        x: tensor-like.
        dtype: target dtype name.

    Returns:
        Tensor of `dtype`. A Variable cast to its own dtype gives a new tensor
        holding its current value, as in Keras.

    Example:
        >>> ops.cast(ops.ones(2), "int32").dtype
        'int32'
    """
    x = convert_to_tensor(x)
    target = config.to_numpy_dtype(dtype)
    if x.__class__ is KerasTensor:
        return x if x.dtype == config.standardize_dtype(target) else Cast(target)(x)
    if x._value.dtype == target and not isinstance(x, Variable):
        return x
    return Cast(target)(x)  # of a Variable: a read, as in Keras (later assigns don't show)


class Cast(Op):
    """astype(`dtype`); differentiable between float types (the gradient casts back)."""

    name = "cast"

    def __init__(self, dtype):
        self.dtype = dtype
        self.differentiable = is_float(dtype)

    def forward(self, device, x):
        return x.astype(self.dtype)

    def save(self, inputs, outputs):
        return (inputs[0]._value.dtype,)

    def backward(self, saved, needs, g):
        rows = getattr(g, "_indexed_slices", None)
        if rows is not None and rows.recast is not None and g._value.dtype != saved[0]:
            return (rows.recast(saved[0]),)  # TensorFlow casts a lookup's rows, then sums
        return (cast(g, saved[0]),)

    def compute_output_spec(self, spec):
        return spec[0], config.standardize_dtype(self.dtype)


@keras_op
def stop_gradient(variable):
    """Returns the value unchanged but cut from gradient computation.

    Args:
        variable: a tensor-like (a Variable's current value is copied).

    Returns:
        Tensor with no recorded history.

    Example:
        >>> y = ops.stop_gradient(x) * 2   # d y / d x == None
    """
    x = convert_to_tensor(variable)
    if x.__class__ is KerasTensor:
        return x
    value = x._value.copy() if isinstance(x, Variable) else x._value
    out = Tensor(value, x._device)
    if _capture.tracer is not None and value is not x._value:
        _capture.hook_pair(lambda xp, a: a.copy(), None, x._device, (x,), (x._value,), out)
    return out


def dtype(x):
    """The dtype name of a tensor-like.

    Args:
        x: tensor-like.

    Returns:
        str, e.g. "float32".

    Example:
        >>> ops.dtype([1.0])
        'float32'
    """
    # a plain str, as Keras's standardize_dtype (a tensor's own `.dtype` prints as tf.DType)
    if x.__class__ is KerasTensor:
        return str.__str__(x.dtype)
    return str.__str__(convert_to_tensor(x).dtype)


def shape(x):
    """The static shape of a tensor-like, as a tuple.

    Args:
        x: tensor-like.

    Returns:
        tuple of ints.

    Example:
        >>> ops.shape(ops.zeros((2, 3)))
        (2, 3)
    """
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def ndim(x):
    """The number of dimensions of a tensor-like.

    Args:
        x: tensor-like.

    Returns:
        int.

    Example:
        >>> ops.ndim(ops.zeros((2, 3)))
        2
    """
    return len(shape(x))  # a KerasTensor's static rank


def result_dtype(*values):
    """The Keras result dtype name of mixing raw arrays and weak Python scalars."""
    return result_type(*[v.dtype if hasattr(v, "dtype") else
                         (bool if isinstance(v, bool) else int if isinstance(v, int) else float)
                         for v in values])


def symbolic_elementwise(fn, args, kwargs=None, name=None):
    """The KerasTensor result of an elementwise op function `fn` on symbolic `args`.

    Outside a trace this records the op's graph node (`symbolic.symbolic_call`).
    Inside, the shape is the broadcast of the inputs' shapes (unknown sizes
    stay None) and the dtype is the one `fn` itself gives on one-element
    inputs of the same dtypes, so it follows the eager promotion rules exactly.

    Args:
        fn: the op function (broadcasting, elementwise).
        args: its positional arguments (KerasTensors, tensors, numbers).
        kwargs: its non-tensor keyword arguments.
        name: the op's public name (default `fn.__name__`).

    Returns:
        KerasTensor.
    """
    kwargs = kwargs or {}
    name = name or fn.__name__
    if not in_trace():
        return symbolic.symbolic_call(fn, symbolic.op_class_name(name), args, kwargs)
    shapes = [tuple(a.shape) for a in args if hasattr(a, "shape") and hasattr(a, "dtype")]
    try:
        shape = broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"ops.{name}: cannot broadcast inputs with "
                         f"{describe(*[a for a in args if hasattr(a, 'shape')])}.") from None
    dummies = [Tensor(np.ones((), config.to_numpy_dtype(a.dtype)), _dev.current_device())
               if a.__class__ is KerasTensor else a for a in args]
    try:
        with np.errstate(all="ignore"):
            dtype = fn(*dummies, **kwargs).dtype
    except (TypeError, ValueError):  # e.g. a bitwise op on floats: Keras infers, not checks
        dtype = result_type(*[a.dtype for a in args if hasattr(a, "dtype")])
    return KerasTensor(shape, dtype)


def evaluate_spec(fn, args, kwargs):
    """KerasTensor outputs of an op function without shape rules, by evaluation.

    Runs `fn` outside the trace on zeros, with every unknown (None) size
    set to 2 and then 3; output sizes that follow are None. Used only for
    op functions listed in `symbolic.EVALUATED` (see docs/design.md).
    """
    runs = []
    for size in (2, 3):
        def make(x):
            if x.__class__ is not KerasTensor:
                return x
            shape = tuple(size if d is None else d for d in x.shape)
            return Tensor(np.zeros(shape, config.to_numpy_dtype(x.dtype)), _dev.current_device())
        concrete_args = tree.map_structure(make, args)
        concrete_kwargs = tree.map_structure(make, kwargs)
        with np.errstate(all="ignore"):
            runs.append(fn(*concrete_args, **concrete_kwargs))
    def spec(a, b):
        if not hasattr(a, "shape"):
            return a
        shape = tuple(None if da != db else da for da, db in zip(a.shape, b.shape))
        return KerasTensor(shape, a.dtype)
    return tree.map_structure(spec, runs[0], runs[1])


def float_operand(x):
    """Casts int/bool tensors to floatx (for ops that only make sense on floats)."""
    x = convert_to_tensor(x)
    if not is_inexact(config.to_numpy_dtype(x.dtype) if x.__class__ is KerasTensor
                      else x._value.dtype):
        return cast(x, config.floatx())
    return x


def check_finite_input(name, array, xp=None):
    """Raises a clear error when a float `array` holds NaN or infinity.

    For inputs that are used as labels or indices, where NaN would silently
    turn into garbage integers.

    Args:
        name: the op's name.
        array: raw array (or Tensor).
        xp: its array module (found from the array if None).
    """
    if isinstance(array, Tensor):
        array = array._value
    xp = xp or _dev.xp_of(array)
    if is_float(array.dtype) and not bool(xp.isfinite(array).all()):
        bad = int((~xp.isfinite(array)).sum())
        raise ValueError(
            f"ops.{name}: received {bad} NaN/infinite value(s) in an input that must "
            f"be finite (shape {tuple(array.shape)}, dtype {array.dtype.name}).")


symbolic.set_fallback(evaluate_spec)

__all__ = ["Tensor", "Variable", "cast", "convert_to_numpy", "convert_to_tensor",
           "dtype", "is_tensor", "ndim", "shape", "stop_gradient"]

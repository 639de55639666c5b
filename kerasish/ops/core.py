"""Conversion, casting and the helpers every op is built from.

An op converts its inputs with `operands`, computes on raw arrays with the
device's `xp`, wraps the result with `Tensor(array, device)` and, only when
a tape is recording (`tape._active`), calls `tape.record` with a backward
written in ops.
"""
import numpy as np

from kerasish.autodiff import tape as _tape
from kerasish.autodiff.tensor import Tensor, Variable
from kerasish.backend import config, devices as _dev

_PY_SCALARS = (int, float, bool, np.number, np.bool_)


def is_tensor(x):
    """True for kerasish Tensors and Variables.

    Example:
        >>> ops.is_tensor(ops.ones(2))
        True
    """
    return isinstance(x, Tensor)


def _default_dtype(array, x):
    """Keras's dtype for Python data: floats -> floatx, ints -> int32."""
    if isinstance(x, (np.ndarray, np.generic)) or _dev.is_array(x):
        return None
    kind = array.dtype.kind
    if kind == "f":
        return config.floatx()
    if kind in "iu":
        return "int32"
    return None


def to_array(x, device=None, dtype=None):
    """Returns `x` (Tensor, array, number, nested list) as a raw array on `device`.

    Args:
        x: the data.
        device: a Device; the current device if None.
        dtype: optional dtype to cast to.
    """
    device = device or _dev.current_device()
    if isinstance(x, Tensor):
        array = x._value if x._device is device else device.send(x._value)
    elif _dev.is_array(x):
        array = device.send(x)
    else:
        host = np.asarray(x)
        if host.dtype == object:
            raise ValueError(f"Cannot convert {type(x).__name__} of mixed/ragged data to a tensor.")
        dtype = dtype or _default_dtype(host, x)
        array = device.send(host)
    if dtype is not None:
        target = config.to_numpy_dtype(dtype)
        if array.dtype != target:
            array = array.astype(target)
    return array


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
    if sparse or ragged:
        raise NotImplementedError("kerasish has no sparse or ragged tensors.")
    if isinstance(x, Tensor):
        if dtype is not None and config.standardize_dtype(dtype) != x.dtype:
            return cast(x, dtype)
        return x
    device = _dev.current_device()
    return Tensor(to_array(x, device, dtype), device)


def convert_to_numpy(x):
    """Returns `x` as a numpy array (from Tensor, cupy array, list...)."""
    if isinstance(x, Tensor):
        return x.numpy()
    return _dev.to_host(x) if _dev.is_array(x) else np.asarray(x)


def common_device(name, tensors):
    """The device an op on `tensors` runs on; errors on an unscoped device mix."""
    dev = tensors[0]._device
    for t in tensors[1:]:
        if t._device is not dev:
            scope = _dev.scope_device()
            if scope is None:
                found = ", ".join(sorted({t._device.name for t in tensors}))
                raise ValueError(
                    f"Op '{name}' got tensors on different devices ({found}). Move them "
                    "with keras.ops.convert_to_tensor inside `with keras.device(...)`, "
                    "or run the op inside a device scope."
                )
            return scope
    return dev


def operands(name, *xs):
    """Prepares an op's inputs.

    Python scalars stay raw scalars (weakly typed, never differentiated);
    everything else becomes a Tensor.

    Returns:
        (values, tensors, device): raw values for computing, the Tensor inputs
        (for recording) and the device to compute on.
    """
    tensors = [x if isinstance(x, Tensor) else None for x in xs]
    for i, x in enumerate(xs):
        if tensors[i] is None and not isinstance(x, _PY_SCALARS):
            tensors[i] = convert_to_tensor(x)
    present = [t for t in tensors if t is not None]
    if not present:
        tensors[0] = convert_to_tensor(xs[0])
        present = [tensors[0]]
    dev = present[0]._device if len(present) == 1 else common_device(name, present)
    values = []
    for x, t in zip(xs, tensors):
        if t is None:
            values.append(x)
        elif t._device is dev:
            values.append(t._value)
        else:
            values.append(dev.send(t._value))
    return values, tensors, dev


def cast(x, dtype):
    """Casts a tensor to `dtype`; differentiable between float types.

    Args:
        x: tensor-like.
        dtype: target dtype name.

    Example:
        >>> ops.cast(ops.ones(2), "int32").dtype
        'int32'
    """
    x = convert_to_tensor(x)
    target = config.to_numpy_dtype(dtype)
    if x._value.dtype == target:
        return x
    out = Tensor(x._value.astype(target), x._device)
    if _tape._active and target.kind == "f" and x._value.dtype.kind == "f":
        source = x.dtype
        _tape.record("cast", (x,), (out,), lambda g: (cast(g, source),))
    return out


def stop_gradient(x):
    """Returns `x` unchanged but cut from gradient computation.

    Example:
        >>> y = ops.stop_gradient(x) * 2   # d y / d x == None
    """
    x = convert_to_tensor(x)
    return Tensor(x._value, x._device)


def dtype(x):
    """The dtype name of a tensor-like."""
    return convert_to_tensor(x).dtype


def shape(x):
    """The static shape of a tensor-like, as a tuple."""
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def ndim(x):
    """The number of dimensions of a tensor-like."""
    return len(shape(x))


def result_dtype(*values):
    """The numpy result dtype of mixing raw arrays and weak Python scalars."""
    return np.result_type(*[v.dtype if hasattr(v, "dtype") else v for v in values])


def float_operand(x):
    """Casts int/bool tensors to floatx (for ops that only make sense on floats)."""
    x = convert_to_tensor(x)
    if x._value.dtype.kind not in "fc":
        return cast(x, config.floatx())
    return x


def check_finite_input(name, array, xp):
    """Raises a clear error when `array` holds NaN (for ops that must not get NaN)."""
    if array.dtype.kind == "f" and bool(xp.isnan(array).any()):
        raise ValueError(f"Op '{name}' received NaN input values (shape {array.shape}).")


__all__ = ["Tensor", "Variable", "cast", "convert_to_numpy", "convert_to_tensor",
           "dtype", "is_tensor", "ndim", "shape", "stop_gradient"]

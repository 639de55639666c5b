"""Global numeric settings: default float type, fuzz factor, image data format.

These mirror `keras.config`: `floatx()`, `set_floatx()`, `epsilon()`,
`set_epsilon()`, `image_data_format()`, `set_image_data_format()`.
"""
import os

import numpy as np

_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
_state = {
    "floatx": os.environ.get("KERASISH_FLOATX", "float32"),
    "epsilon": 1e-7,
    "image_data_format": "channels_last",
}


def floatx():
    """Returns the default float type as a string, e.g. `"float32"`.

    Returns:
        str: the name of the default float dtype.

    Example:
        >>> import kerasish as keras
        >>> keras.config.floatx()
        'float32'
    """
    return _state["floatx"]


def set_floatx(value):
    """Sets the default float type.

    Args:
        value: one of `"float16"`, `"bfloat16"`, `"float32"`, `"float64"`.

    Example:
        >>> keras.config.set_floatx("float64")
    """
    value = str(value)
    if value not in _FLOAT_TYPES:
        raise ValueError(
            f"Unknown `floatx` value: {value!r}. Expected one of {_FLOAT_TYPES}."
        )
    standardize_dtype(value)  # raises if the array library lacks it (bfloat16)
    _state["floatx"] = value


def epsilon():
    """Returns the fuzz factor used in numeric expressions (default 1e-7)."""
    return _state["epsilon"]


def set_epsilon(value):
    """Sets the fuzz factor used in numeric expressions."""
    _state["epsilon"] = float(value)


def image_data_format():
    """Returns `"channels_last"` (default) or `"channels_first"`."""
    return _state["image_data_format"]


def set_image_data_format(data_format):
    """Sets the default image data format for convolution layers."""
    data_format = str(data_format).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of 'channels_first', "
            f"'channels_last'. Received: data_format={data_format!r}"
        )
    _state["image_data_format"] = data_format


def _bfloat16():
    try:
        import ml_dtypes  # optional dependency
    except ImportError:
        return None
    return ml_dtypes.bfloat16


_names = {}  # dtype object/str -> canonical name (numpy's dtype.name is slow)


def standardize_dtype(dtype):
    """Returns the canonical string name of `dtype` (a str, numpy dtype or type).

    Args:
        dtype: anything numpy understands as a dtype, `"bfloat16"`, or None
            (meaning `floatx()`).

    Returns:
        str: e.g. `"float32"`, `"int64"`, `"bool"`.
    """
    if dtype is None:
        return floatx()
    try:
        return _names[dtype]
    except (KeyError, TypeError):
        pass
    name = _standardize_uncached(dtype)
    try:
        _names[dtype] = name
    except TypeError:
        pass
    return name


def _standardize_uncached(dtype):
    if dtype in ("string", "str", str, np.str_, np.bytes_) or (
            isinstance(dtype, np.dtype) and dtype.kind in "US"):
        return "string"   # as Keras: text inputs (e.g. `keras.Input(dtype="string")`)
    if dtype == "bfloat16" or getattr(dtype, "__name__", None) == "bfloat16":
        if _bfloat16() is None:
            raise ValueError(
                "dtype 'bfloat16' needs the `ml_dtypes` package with the numpy "
                "backend: `pip install ml_dtypes`."
            )
        return "bfloat16"
    if hasattr(dtype, "name") and not isinstance(dtype, str):
        name = dtype.name
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError as e:
            raise ValueError(f"Invalid dtype: {dtype!r}") from e
    if name == "bfloat16" and _bfloat16() is None:
        raise ValueError("dtype 'bfloat16' needs the `ml_dtypes` package.")
    return name


def to_numpy_dtype(dtype):
    """Returns the numpy dtype object for a dtype name (bfloat16 via ml_dtypes)."""
    name = standardize_dtype(dtype)
    if name == "bfloat16":
        return np.dtype(_bfloat16())
    return np.dtype(name)


def is_float_dtype(dtype):
    """True for float16/bfloat16/float32/float64."""
    return standardize_dtype(dtype) in _FLOAT_TYPES


_BFLOAT16 = _bfloat16()
_BFLOAT16 = np.dtype(_BFLOAT16) if _BFLOAT16 is not None else None


def is_float(dtype):
    """True for a real floating dtype object, bfloat16 included (the one float test).

    numpy reports ml_dtypes' bfloat16 with `kind == "V"`, so `dtype.kind == "f"`
    alone misses it; use this (or `is_float_array`) instead.

    Args:
        dtype: a numpy dtype object (an array's `.dtype`).

    Returns:
        bool.

    Example:
        >>> keras.backend.is_float(np.dtype("float16"))
        True
    """
    return dtype.kind == "f" or dtype == _BFLOAT16


def is_inexact(dtype):
    """True for real floating (bfloat16 included) and complex dtype objects.

    Args:
        dtype: a numpy dtype object.

    Returns:
        bool.
    """
    return dtype.kind in "fc" or dtype == _BFLOAT16


def finfo(dtype):
    """Machine limits of a float dtype object, bfloat16 included (numpy's finfo refuses it).

    Args:
        dtype: a numpy dtype object.

    Returns:
        numpy.finfo (or ml_dtypes.finfo for bfloat16).
    """
    if dtype == _BFLOAT16:
        import ml_dtypes  # optional dependency: only reached with a bfloat16 dtype
        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def is_float_array(array):
    """True when a raw array (numpy or cupy) holds real floats, bfloat16 included.

    Args:
        array: a numpy or cupy array.

    Returns:
        bool.
    """
    dtype = array.dtype
    return dtype.kind == "f" or dtype == _BFLOAT16


def is_int_dtype(dtype):
    """True for signed and unsigned integer dtypes."""
    return "int" in standardize_dtype(dtype)

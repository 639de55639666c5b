"""`keras.config`: global settings (float type, epsilon, image data format)."""
from kerasish.backend.config import (epsilon, floatx, image_data_format, set_epsilon,
                                     set_floatx, set_image_data_format)
from kerasish.backend import backend
from kerasish.dtype_policies import global_policy as dtype_policy
from kerasish.dtype_policies import set_global_policy as set_dtype_policy

_unsafe = [False]


def enable_unsafe_deserialization():
    """Allows loading Lambda layers from saved files (trusted files only)."""
    _unsafe[0] = True


def is_unsafe_deserialization_enabled():
    return _unsafe[0]


__all__ = ["backend", "dtype_policy", "enable_unsafe_deserialization", "epsilon", "floatx",
           "image_data_format", "set_dtype_policy", "set_epsilon", "set_floatx",
           "set_image_data_format"]

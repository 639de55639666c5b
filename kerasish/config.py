"""`keras.config`: global settings (float type, epsilon, image data format)."""
from kerasish.backend.config import (epsilon, floatx, image_data_format, set_epsilon,
                                     set_floatx, set_image_data_format)
from kerasish.backend import backend
from kerasish.dtype_policies import global_policy as dtype_policy
from kerasish.dtype_policies import set_global_policy as set_dtype_policy
from kerasish.utils.registry import REGISTRY


def enable_unsafe_deserialization():
    """Allows loading Lambda layers from saved files (trusted files only)."""
    REGISTRY.unsafe_deserialization = True


def is_unsafe_deserialization_enabled():
    """True after `enable_unsafe_deserialization()`."""
    return REGISTRY.unsafe_deserialization


__all__ = ["backend", "dtype_policy", "enable_unsafe_deserialization", "epsilon", "floatx",
           "image_data_format", "set_dtype_policy", "set_epsilon", "set_floatx",
           "set_image_data_format"]

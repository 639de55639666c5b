"""The backend: the only package that knows numpy from cupy.

Everything above it asks for a `Device` (which carries `xp`, the array
module, a random generator and fused kernels) and never imports cupy.
"""
from kerasish.backend.config import (epsilon, finfo, floatx, image_data_format,
                                     is_float, is_float_array, is_float_dtype,
                                     is_inexact, is_int_dtype,
                                     set_epsilon, set_floatx,
                                     set_image_data_format, standardize_dtype,
                                     to_numpy_dtype)
from kerasish.backend.dtypes import result_type
from kerasish.backend.symbolic_scope import (SymbolicScope, get_symbolic_scope,  # noqa: F401
                                             in_symbolic_scope)
from kerasish.backend.devices import (Device, cupy_available, current_device,
                                     default_device, device, device_of_array,
                                     get_device, is_array, list_devices,
                                     scope_device, to_host, xp_of)
from kerasish.backend import devices as _devices_module
from kerasish.backend.allocator import tune_malloc as _tune_malloc
from kerasish.utils import naming

_tune_malloc()


def backend():
    """Name of the array library of the default device: "numpy" or "cupy".

    Example:
        >>> keras.backend.backend()
        'numpy'
    """
    return "numpy" if default_device().kind == "cpu" else "cupy"


def clear_session(free_memory=True):
    """Resets the global state: layer auto-names (dense, dense_1, ...) restart,
    and the global SeedGenerator (of `seed=None` draws) is made anew on next use.

    Args:
        free_memory: also run Python's garbage collector, as Keras does, so
            that the arrays of models no longer referenced are freed now.

    Example:
        >>> keras.backend.clear_session()
    """
    naming.reset_uids()
    _devices_module.random_state["global_generator"] = None
    if free_memory:
        import gc
        gc.collect()


__all__ = [
    "Device", "backend", "clear_session", "cupy_available", "current_device",
    "default_device", "device", "device_of_array", "epsilon", "finfo", "floatx",
    "get_device", "image_data_format", "is_array", "is_float", "is_float_array",
    "is_float_dtype", "is_inexact",
    "is_int_dtype", "list_devices", "result_type", "scope_device", "set_epsilon",
    "set_floatx", "set_image_data_format", "standardize_dtype", "to_host",
    "to_numpy_dtype", "xp_of",
]

"""`keras.config`: global settings (float type, epsilon, image data format)."""
from kerasish.backend.config import (epsilon, floatx, image_data_format, set_epsilon,
                                     set_floatx, set_image_data_format)
from kerasish.backend import backend, devices
from kerasish.backend.switches import (disable_flash_attention, disable_interactive_logging,
                                       disable_traceback_filtering, enable_flash_attention,
                                       enable_interactive_logging, enable_traceback_filtering,
                                       is_flash_attention_enabled,
                                       is_interactive_logging_enabled,
                                       is_traceback_filtering_enabled, max_epochs,
                                       max_steps_per_epoch, set_max_epochs,
                                       set_max_steps_per_epoch)
from kerasish.dtype_policies import global_policy as dtype_policy
from kerasish.dtype_policies import set_global_policy as set_dtype_policy
from kerasish.utils.registry import REGISTRY


def enable_unsafe_deserialization():
    """Allows loading Lambda layers from saved files (trusted files only)."""
    REGISTRY.unsafe_deserialization = True


def is_unsafe_deserialization_enabled():
    """True after `enable_unsafe_deserialization()`."""
    return REGISTRY.unsafe_deserialization


_BACKENDS = ("numpy", "cupy")


def set_backend(backend):
    """Keras's backend switch. kerasish runs on its own engine over numpy (CPU) or cupy
    (GPU): "numpy" or "cupy" pick the default device (like `KERASISH_BACKEND`); any other
    name (tensorflow, jax, torch, openvino) is a clear error.

    Args:
        backend: "numpy" or "cupy".

    Example:
        >>> keras.config.set_backend("numpy")
    """
    if backend not in _BACKENDS:
        raise ValueError(f"keras.config.set_backend: kerasish has the backends {_BACKENDS} "
                         f"(its own engine over numpy on CPU and cupy on GPU); it cannot run "
                         f"on {backend!r}. Received: backend={backend!r}")
    devices.set_default_backend(backend)


def is_nnx_enabled():
    """False: Flax NNX integration exists only on Keras's JAX backend."""
    return False


__all__ = ["disable_flash_attention", "disable_interactive_logging",
           "disable_traceback_filtering", "enable_flash_attention", "enable_interactive_logging",
           "enable_traceback_filtering", "is_flash_attention_enabled",
           "is_interactive_logging_enabled", "is_nnx_enabled", "is_traceback_filtering_enabled",
           "max_epochs", "max_steps_per_epoch", "set_backend", "set_max_epochs",
           "set_max_steps_per_epoch",
           "backend", "dtype_policy", "enable_unsafe_deserialization", "epsilon", "floatx",
           "image_data_format", "set_dtype_policy", "set_epsilon", "set_floatx",
           "set_image_data_format"]

"""Fused kernels: one name, one numpy and one cupy implementation.

Ops above the backend ask a device for a kernel by name
(`device.kernel("adam_update")`) and never branch on the array library.
The numpy implementations live in `numpy_kernels.py` (vectorised numpy,
also the readable reference); the cupy ones in `cupy_kernels.py` (fused
`ElementwiseKernel`s, compiled on first use). A kernel without a cupy
version falls back to its numpy code written against `xp`, which runs on
cupy arrays too.
"""
import importlib

_MODULES = {"cpu": "kerasish.backend.kernels.numpy_kernels",
            "gpu": "kerasish.backend.kernels.cupy_kernels"}
_cache = {}


def lookup(name, kind):
    """Returns the implementation of kernel `name` for a device kind.

    Args:
        name: the kernel's name, e.g. "adam_update".
        kind: "cpu" or "gpu".

    Returns:
        callable: the kernel function.
    """
    key = (name, kind)
    fn = _cache.get(key)
    if fn is not None:
        return fn
    module = importlib.import_module(_MODULES[kind])
    fn = getattr(module, name, None)
    if fn is None and kind == "gpu":
        fn = getattr(importlib.import_module(_MODULES["cpu"]), name, None)
    if fn is None:
        raise NotImplementedError(f"No fused kernel named {name!r} for {kind}.")
    _cache[key] = fn
    return fn


def names():
    """Names of all kernels with a numpy implementation."""
    module = importlib.import_module(_MODULES["cpu"])
    return sorted(n for n in getattr(module, "__all__", []))

"""Devices: where arrays live and which array library computes on them.

A `Device` owns its array module (`numpy` for "cpu:N", `cupy` for "gpu:N"),
its random generator and its fused kernels. Devices are singletons per name,
so code compares them with `is`.
"""
import contextlib
import os
import threading

import numpy as np

from kerasish.backend import kernels as _kernels

try:  # cupy is optional: importing kerasish never requires it.
    import cupy as _cupy
except Exception:  # pragma: no cover - depends on the machine
    _cupy = None


def cupy_available():
    """True when cupy imports and at least one CUDA device is visible."""
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # pragma: no cover - no driver
        return False


class Device:
    """A place where arrays live: "cpu:N" (numpy) or "gpu:N" (cupy).

    Several CPU devices ("cpu:0", "cpu:1") all compute with numpy; they are
    distinct replicas for `MirroredStrategy` tests and for reasoning about
    placement, not separate hardware.

    Args:
        kind: "cpu" or "gpu".
        index: device ordinal.
    """

    def __init__(self, kind, index):
        if kind == "gpu" and not cupy_available():
            raise RuntimeError(
                f"Device 'gpu:{index}' needs cupy and a CUDA GPU, but "
                + ("cupy is not installed (`pip install kerasish[gpu]`)."
                   if _cupy is None else "no CUDA device is visible.")
            )
        if kind == "gpu" and index >= _cupy.cuda.runtime.getDeviceCount():
            raise ValueError(
                f"Device 'gpu:{index}' does not exist: "
                f"{_cupy.cuda.runtime.getDeviceCount()} GPU(s) visible."
            )
        self.kind = kind
        self.index = index
        self.name = f"{kind}:{index}"
        self.xp = np if kind == "cpu" else _cupy
        self._rng = None
        self._seed = _global_seed[0]
        self._kernels = {}   # name -> implementation (a step asks for several each time)

    def __repr__(self):
        return f"Device({self.name!r})"

    @contextlib.contextmanager
    def activate(self):
        """Makes this device current for the array library (a no-op on CPU)."""
        if self.kind == "gpu":
            with _cupy.cuda.Device(self.index):
                yield
        else:
            yield

    def send(self, array):
        """Returns `array` (numpy, cupy or scalar) as an array on this device."""
        if self.kind == "cpu":
            if _cupy is not None and isinstance(array, _cupy.ndarray):
                return _cupy.asnumpy(array)
            return np.asarray(array)
        with _cupy.cuda.Device(self.index):
            if isinstance(array, _cupy.ndarray) and array.device.id == self.index:
                return array
            return _cupy.asarray(array)

    def owns(self, array):
        """True when `array` already lives on this device's array library."""
        if self.kind == "cpu":
            return isinstance(array, np.ndarray)
        return isinstance(array, _cupy.ndarray) and array.device.id == self.index

    # Random numbers -------------------------------------------------------
    @property
    def rng(self):
        """This device's global random generator (seeded by `set_random_seed`)."""
        if self._rng is None:
            self._rng = self.make_rng(self._seed)
        return self._rng

    def make_rng(self, seed):
        """Returns a fresh generator of this device's array library."""
        if self.kind == "cpu":
            return np.random.default_rng(seed)
        with _cupy.cuda.Device(self.index):
            return _cupy.random.default_rng(seed)

    def seed(self, seed):
        """Re-seeds this device's global random generator."""
        self._seed = seed
        self._rng = self.make_rng(seed)

    def kernel(self, name):
        """Returns this device's implementation of the fused kernel `name`."""
        fn = self._kernels.get(name)
        if fn is None:
            fn = self._kernels[name] = _kernels.lookup(name, self.kind)
        return fn


_devices = {}
_lock = threading.Lock()
_global_seed = [None]  # set by kerasish.random.set_seed; seeds devices made later too
# Keras's global SeedGenerator (seed=None draws), made on first use by kerasish.random;
# `set_random_seed` and `clear_session` drop it, as Keras's global state does.
random_state = {"global_generator": None}


def global_seed():
    """The seed given to `keras.utils.set_random_seed` (None if it was never called)."""
    return _global_seed[0]


def set_global_seed(seed):
    """Re-seeds every existing device's generator and remembers `seed` for new ones.

    Args:
        seed: an int (or None for fresh entropy).
    """
    _global_seed[0] = seed
    with _lock:
        devices = list(_devices.values())
    for dev in devices:
        dev.seed(seed)
_local = threading.local()


def get_device(spec=None):
    """Returns the `Device` for a spec like "cpu:0", "gpu:1", "GPU", or a Device.

    Args:
        spec: a device name (case-insensitive; "/gpu:0" and "cuda:0" accepted),
            a `Device`, or None for the current device.

    Returns:
        Device: the singleton for that name.
    """
    if spec is None:
        return current_device()
    if isinstance(spec, Device):
        return spec
    if type(spec) is str:   # a canonical name ("cpu:0") of an existing device: no parsing
        dev = _devices.get(spec)
        if dev is not None:
            return dev
    text = str(spec).lower().strip().lstrip("/")
    text = text.replace("device:", "").replace("cuda", "gpu")
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "gpu"):
        raise ValueError(
            f"Unknown device {spec!r}. Expected 'cpu:N' or 'gpu:N'."
        )
    try:
        index = int(index or 0)
    except ValueError:
        raise ValueError(f"Invalid device index in {spec!r}.") from None
    name = f"{kind}:{index}"
    with _lock:
        if name not in _devices:
            _devices[name] = Device(kind, index)
        return _devices[name]


_default = []  # the default Device, resolved once from KERASISH_BACKEND


def default_device():
    """The device used outside any `device()` scope.

    `KERASISH_BACKEND` ("numpy", the default, or "cupy") is read on first
    use, like Keras reads `KERAS_BACKEND` once.

    Returns:
        Device: "cpu:0" for numpy, "gpu:0" for cupy.
    """
    if _default:
        return _default[0]
    choice = os.environ.get("KERASISH_BACKEND", "numpy").strip().lower()
    if choice not in ("numpy", "cupy"):
        raise ValueError(
            f"KERASISH_BACKEND must be 'numpy' or 'cupy'. Received: {choice!r}"
        )
    dev = get_device("gpu:0" if choice == "cupy" else "cpu:0")
    _default.append(dev)
    return dev


def set_default_backend(name):
    """Makes "numpy" (cpu:0) or "cupy" (gpu:0) the default device from now on.

    Args:
        name: "numpy" or "cupy" (cupy needs a CUDA GPU).
    """
    if name not in ("numpy", "cupy"):
        raise ValueError(f"The backend must be 'numpy' or 'cupy'. Received: {name!r}")
    if name == "cupy" and not cupy_available():
        raise RuntimeError("The 'cupy' backend needs cupy and a CUDA GPU; neither is usable "
                           "here (pip install kerasish[gpu]).")
    _default[:] = [get_device("gpu:0" if name == "cupy" else "cpu:0")]


def _scope_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current_device():
    """The device of the innermost active `device()` scope, else the default."""
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    return _default[0] if _default else default_device()


def scope_device():
    """The device of the innermost `device()` scope, or None outside scopes."""
    stack = _scope_stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def device(spec):
    """Context manager that places new tensors and computation on a device.

    Like `tf.device`: inside `with kerasish.device("gpu:1"):` tensors created
    from Python or numpy data land on the second GPU, and ops on tensors from
    other devices move their inputs there.

    Args:
        spec: "cpu:N" or "gpu:N".

    Example:
        >>> with keras.device("cpu:0"):
        ...     a = keras.ops.ones((2, 3))
    """
    dev = get_device(spec)
    stack = _scope_stack()
    stack.append(dev)
    try:
        with dev.activate():
            yield dev
    finally:
        stack.pop()


def device_of_array(array):
    """The device that owns a raw array (cpu:0 for numpy arrays)."""
    if isinstance(array, np.ndarray) or _cupy is None:
        return get_device("cpu:0")
    if isinstance(array, _cupy.ndarray):
        return get_device(f"gpu:{array.device.id}")
    return get_device("cpu:0")


def is_array(x):
    """True for numpy or cupy arrays."""
    return isinstance(x, np.ndarray) or (
        _cupy is not None and isinstance(x, _cupy.ndarray)
    )


def to_host(array):
    """Returns a numpy array for a numpy/cupy array (copying from the GPU)."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy.asnumpy(array)
    return np.asarray(array)


def xp_of(array):
    """The array module (numpy or cupy) that owns `array`."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy
    return np


def list_devices(kind=None):
    """Names of the available devices, e.g. ["cpu:0", "gpu:0"].

    Args:
        kind: None for all, or "cpu"/"gpu".
    """
    names = ["cpu:0"]
    if cupy_available():
        names += [f"gpu:{i}" for i in range(_cupy.cuda.runtime.getDeviceCount())]
    if kind is not None:
        names = [n for n in names if n.startswith(kind.lower())]
    return names

"""`keras.distribution`: Keras 3's distribution API, mapped onto `kerasish.distribute`.

Keras's `DataParallel` (one model replica per device, the batch split between them) is
what kerasish's `MirroredStrategy` does, so `set_distribution(DataParallel(...))` makes a
`MirroredStrategy` over those devices the strategy of every model built afterwards, as if
its `scope()` were open. `ModelParallel` (weights sharded by a `LayoutMap`) has no kerasish
counterpart and raises NotImplementedError. Multi-process jobs use
`kerasish.distribute.MultiWorkerMirroredStrategy` under `mpiexec` instead of
`initialize(...)`. See docs/distributed_training.md.

    keras.distribution.set_distribution(keras.distribution.DataParallel(devices=["cpu:0", "cpu:1"]))
"""
import numpy as np

from kerasish.backend import devices as _devices
from kerasish.distribute import distribute_lib
from kerasish.distribute.mirrored_strategy import MirroredStrategy

_state = {"distribution": None}


def list_devices(device_type=None):
    """The devices kerasish can use: `["cpu:0"]`, or `["gpu:0", "gpu:1", ...]`.

    Args:
        device_type: "cpu" or "gpu" (default: GPUs if any, else the CPU).

    Returns:
        list of device names.
    """
    kind = (device_type or ("gpu" if _devices.list_devices("gpu") else "cpu")).lower()
    if kind not in ("cpu", "gpu"):
        raise ValueError(f"list_devices: device_type must be 'cpu' or 'gpu', got {device_type!r}.")
    return [d if isinstance(d, str) else d.name for d in _devices.list_devices(kind)]


def get_device_count(device_type=None):
    """How many devices of `device_type` (default: GPUs if any, else CPUs) there are."""
    return len(list_devices(device_type))


class DeviceMesh:
    """Devices arranged in a named grid, e.g. shape (2,) with axis "batch".

    Args:
        shape: the grid's shape; its product must equal the number of devices.
        axis_names: one name per grid axis.
        devices: device names (default: `list_devices()`).
    """

    def __init__(self, shape, axis_names, devices=None):
        shape, axis_names = tuple(shape), list(axis_names)
        if len(shape) != len(axis_names):
            raise ValueError("Shape and axis_names cannot be mismatched. Received: "
                             f"shape={shape}, axis_names={axis_names}")
        devices = list(devices) if devices is not None else list_devices()
        if int(np.prod(shape)) != len(devices):
            raise ValueError(f"Shape {shape} does not match the number of devices "
                             f"{len(devices)}.")
        self.shape, self.axis_names = shape, axis_names
        self.devices = np.array(devices, dtype=object).reshape(shape)


class TensorLayout:
    """How a tensor is laid over a mesh: one mesh axis name (or None) per tensor axis."""

    def __init__(self, axes, device_mesh=None):
        self.axes = tuple(axes)
        self.device_mesh = device_mesh


class LayoutMap(dict):
    """Layer/variable path patterns -> `TensorLayout`s (used only by `ModelParallel`)."""

    def __init__(self, device_mesh):
        super().__init__()
        self.device_mesh = device_mesh


class DataParallel:
    """Data parallelism: every device holds the whole model and gets a slice of each batch.

    Args:
        device_mesh: a 1-D `DeviceMesh` (its devices are used).
        devices: device names (default: every device of `list_devices()`).
        auto_shard_dataset: accepted (kerasish always splits each global batch).

    Example:
        >>> dp = keras.distribution.DataParallel(devices=["cpu:0", "cpu:1"])
        >>> dp.strategy.num_replicas_in_sync
        2
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is not None:
            if len(device_mesh.shape) != 1:
                raise ValueError("DataParallel needs a 1-D device mesh; got shape "
                                 f"{device_mesh.shape}.")
            devices = list(device_mesh.devices.reshape(-1))
        self.devices = list(devices) if devices is not None else list_devices()
        self.device_mesh = device_mesh or DeviceMesh((len(self.devices),), ["batch"],
                                                     self.devices)
        self.auto_shard_dataset = auto_shard_dataset
        self._strategy = None

    @property
    def strategy(self):
        """The `kerasish.distribute.MirroredStrategy` that does the work."""
        if self._strategy is None:
            self._strategy = MirroredStrategy(self.devices)
        return self._strategy


class ModelParallel:
    """Keras's model parallelism (weights sharded over a mesh): not available in kerasish."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "keras.distribution.ModelParallel shards weights across devices (JAX's tensor "
            "parallelism); kerasish has no sharded weights. Use "
            "keras.distribution.DataParallel or kerasish.distribute.MirroredStrategy / "
            "MultiWorkerMirroredStrategy (data parallelism) instead.")


def set_distribution(value):
    """Makes `value` (a `DataParallel`, or None to stop) the distribution of models built
    from now on, like entering its strategy's `scope()` for good.

    Args:
        value: a `DataParallel` or None.
    """
    current = _state["distribution"]
    if current is not None:
        distribute_lib.pop(current.strategy)
        _state["distribution"] = None
    if value is None:
        return
    if not isinstance(value, DataParallel):
        raise ValueError("keras.distribution.set_distribution: kerasish supports "
                         f"DataParallel (or None); received {type(value).__name__}.")
    distribute_lib.push(value.strategy)
    _state["distribution"] = value


def distribution():
    """The distribution set by `set_distribution` (None when unset)."""
    return _state["distribution"]


def distribute_tensor(tensor, layout):
    """Places `tensor` for `layout`. Under data parallelism every replica gets the whole
    tensor when it is used, so the tensor is returned as it is; a layout that shards a
    tensor axis over a mesh axis is refused (no sharded tensors in kerasish).

    Args:
        tensor: a tensor or array.
        layout: a `TensorLayout`.

    Returns:
        `tensor`.
    """
    if any(axis is not None for axis in getattr(layout, "axes", ())):
        raise NotImplementedError("distribute_tensor: kerasish has no sharded tensors; only "
                                  "replicated layouts (every axis None) are supported.")
    return tensor


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Keras's multi-process set-up (JAX). One process needs nothing; for several, launch
    with `mpiexec` and use `kerasish.distribute.MultiWorkerMirroredStrategy`.

    Args:
        job_addresses, num_processes, process_id: as in Keras.
    """
    if num_processes not in (None, 1):
        raise NotImplementedError(
            "keras.distribution.initialize: kerasish joins processes with MPI. Launch with "
            "`mpiexec -n N python train.py` and use "
            "kerasish.distribute.MultiWorkerMirroredStrategy().")


__all__ = ["DataParallel", "DeviceMesh", "LayoutMap", "ModelParallel", "TensorLayout",
           "distribute_tensor", "distribution", "get_device_count", "initialize",
           "list_devices", "set_distribution"]

"""`MirroredStrategy` and `OneDeviceStrategy`: replicas in one process."""
import contextlib

from kerasish.backend import devices as _devices
from kerasish.distribute import cross_device_ops as _cross_device_ops
from kerasish.distribute.strategy import Strategy


def _resolve_devices(devices):
    """Device specs -> distinct `Device`s (all local GPUs, else cpu:0, when None)."""
    if devices is None:
        names = _devices.list_devices("gpu") or ["cpu:0"]
    elif isinstance(devices, (str, _devices.Device)):
        names = [devices]
    else:
        names = list(devices)
    if not names:
        raise ValueError("MirroredStrategy needs at least one device; got an empty list.")
    resolved = [_devices.get_device(n) for n in names]
    if len({d.name for d in resolved}) != len(resolved):
        raise ValueError(f"MirroredStrategy got duplicate devices: {[d.name for d in resolved]}.")
    return resolved


class MirroredStrategy(Strategy):
    """Synchronous data parallelism on the devices of one machine.

    Each device runs one replica. A global batch is split evenly across the
    replicas, each computes forward and backward under its own tape on its
    device, the gradients are summed once per step (one flat buffer per
    dtype: NCCL on GPUs, a host sum on CPU replicas), and one identical
    update is applied. On GPUs every variable has one copy per GPU; on CPU
    replicas ("cpu:0", "cpu:1", ... all compute with numpy) the trainable
    variables are one shared numpy copy, so every replica always computes
    with the same weights.

    Args:
        devices: device names, e.g. ["gpu:0", "gpu:1"] or ["cpu:0", "cpu:1"].
            None: every local GPU (cupy), else ["cpu:0"].
        cross_device_ops: None (NCCL between GPUs when available), or
            `keras.distribute.NcclAllReduce()`, `ReductionToOneDevice()`,
            `HierarchicalCopyAllReduce()`.

    Example:
        >>> strategy = keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
        >>> strategy.num_replicas_in_sync
        2
    """

    def __init__(self, devices=None, cross_device_ops=None):
        resolved = _resolve_devices(devices)
        reducer = _cross_device_ops.make_local_reducer(resolved, cross_device_ops)
        super().__init__(resolved, reducer, _cross_device_ops.LocalWorld())
        self._cross_device_ops = cross_device_ops


class OneDeviceStrategy(MirroredStrategy):
    """Places variables and runs every step on one device.

    Args:
        device: the device name, e.g. "gpu:1" or "cpu:0".

    Example:
        >>> strategy = keras.distribute.OneDeviceStrategy("cpu:0")
        >>> with strategy.scope():
        ...     model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    """

    def __init__(self, device):
        if not isinstance(device, (str, _devices.Device)):
            raise ValueError(f"OneDeviceStrategy takes one device name; got {device!r}.")
        super().__init__([device])


class _DefaultStrategy(OneDeviceStrategy):
    """The strategy in force outside any `scope()`: plain single-device execution."""

    def __init__(self):
        super().__init__(_devices.default_device())

    @contextlib.contextmanager
    def scope(self):
        yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*args, **(kwargs or {}))


_default = []


def default_strategy():
    """The process-wide default strategy (created on first use)."""
    if not _default:
        _default.append(_DefaultStrategy())
    return _default[0]

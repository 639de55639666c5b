"""How replicas exchange data: flat buffers, local reducers, the worker world.

One step's payload (gradients, counters, metric deltas, replica state) is
packed into one flat buffer per dtype (`Layout`). Each local replica owns
such a buffer on its device (CPU replicas share one host buffer and simply
add into it). A *local reducer* sums the local replicas' buffers into the
first one (NCCL `reduce` on GPUs, device copies without NCCL, nothing on
CPU), and the *world* sums that buffer across worker processes (MPI
`Allreduce` for host buffers, NCCL bootstrapped over MPI for GPU buffers).
So a step costs one collective per dtype, whatever the number of weights.

The `CrossDeviceOps` classes keep TensorFlow's names for choosing the local
reducer: `MirroredStrategy(cross_device_ops=keras.distribute.NcclAllReduce())`.
"""
import numpy as np

from kerasish.backend import devices as _devices
from kerasish.distribute import mpi_utils


# TensorFlow-compatible choices ---------------------------------------------------
class CrossDeviceOps:
    """Base of the local-reduction choices accepted by `MirroredStrategy`."""

    implementation = "auto"

    def __repr__(self):
        return f"{type(self).__name__}()"


class ReductionToOneDevice(CrossDeviceOps):
    """Copies every replica's buffer to the first device and sums there.

    Works for CPU and GPU replicas and needs no NCCL.

    Args:
        reduce_to_device: accepted for TensorFlow compatibility; the sum is
            always formed on the strategy's first device.
        accumulation_fn: accepted for TensorFlow compatibility (unused).
    """

    implementation = "one_device"

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device


class HierarchicalCopyAllReduce(ReductionToOneDevice):
    """TensorFlow's name; behaves as `ReductionToOneDevice` in kerasish.

    Args:
        num_packs: accepted for TensorFlow compatibility (one pack per dtype).
    """

    def __init__(self, num_packs=1):
        super().__init__()


class NcclAllReduce(CrossDeviceOps):
    """NCCL collectives between the local GPUs (`cupy.cuda.nccl`).

    Args:
        num_packs: accepted for TensorFlow compatibility (one pack per dtype).
    """

    implementation = "nccl"

    def __init__(self, num_packs=1):
        self.num_packs = num_packs


# Packing -----------------------------------------------------------------------
class Layout:
    """Where each named segment sits in the per-dtype flat buffers.

    Args:
        segments: list of `(key, shape, dtype)`; the order fixes the layout,
            so every replica and worker must build it from the same list.

    Example:
        >>> layout = Layout([("g0", (3, 2), "float32"), ("n", (2,), "float32")])
        >>> bufs = layout.zeros(keras.backend.get_device("cpu:0"))
        >>> layout.view(bufs, "g0").shape
        (3, 2)
    """

    def __init__(self, segments):
        self.dtypes = []
        self.sizes = {}
        self.slots = {}
        for key, shape, dtype in segments:
            dtype = np.dtype(dtype).name
            if dtype not in self.sizes:
                self.dtypes.append(dtype)
                self.sizes[dtype] = 0
            size = int(np.prod(shape, dtype=np.int64))
            start = self.sizes[dtype]
            self.slots[key] = (dtype, start, start + size, tuple(shape))
            self.sizes[dtype] = start + size

    @property
    def nbytes(self):
        """Total bytes of one set of buffers."""
        return sum(self.sizes[d] * np.dtype(d).itemsize for d in self.dtypes)

    def zeros(self, device):
        """A fresh set of zeroed buffers (dict dtype -> flat array) on `device`."""
        with device.activate():
            return {d: device.xp.zeros(self.sizes[d], dtype=d) for d in self.dtypes}

    def view(self, buffers, key):
        """The segment `key` of `buffers`, reshaped (a view, no copy)."""
        dtype, start, stop, shape = self.slots[key]
        return buffers[dtype][start:stop].reshape(shape)

    def add(self, buffers, key, array):
        """Adds `array` (same device as the buffers) into segment `key`."""
        dtype, start, stop, _ = self.slots[key]
        segment = buffers[dtype][start:stop]
        segment += array.reshape(-1).astype(dtype, copy=False)

    def put(self, buffers, key, array):
        """Writes `array` into segment `key`."""
        dtype, start, stop, _ = self.slots[key]
        buffers[dtype][start:stop] = array.reshape(-1).astype(dtype, copy=False)


def zero(buffers):
    """Sets every buffer of a set to zero in place."""
    for array in buffers.values():
        array.fill(0)


# Local reducers ------------------------------------------------------------------
class HostReducer:
    """CPU replicas: all replicas add into one shared host buffer.

    Args:
        devices: the strategy's local CPU devices.
    """

    def __init__(self, devices):
        self.devices = devices

    def buffers(self, layout):
        shared = layout.zeros(self.devices[0])
        return [shared] * len(self.devices)

    def reduce(self, buffer_sets):
        """Nothing to do: the replicas already summed into the shared buffer."""

    def broadcast(self, buffer_sets):
        """Nothing to do: the replicas share one buffer."""


class OneDeviceReducer:
    """GPU replicas without NCCL: copy every buffer to the first GPU and sum.

    Args:
        devices: the strategy's local GPU devices.
    """

    def __init__(self, devices):
        self.devices = devices

    def buffers(self, layout):
        return [layout.zeros(d) for d in self.devices]

    def reduce(self, buffer_sets):
        root = self.devices[0]
        with root.activate():
            for other in buffer_sets[1:]:
                for dtype, array in other.items():
                    buffer_sets[0][dtype] += copy_to_device(array, root)

    def broadcast(self, buffer_sets):
        for device, target in zip(self.devices[1:], buffer_sets[1:]):
            for dtype, array in buffer_sets[0].items():
                with device.activate():
                    target[dtype][...] = copy_to_device(array, device)


class NcclReducer:
    """GPU replicas driven by one process: NCCL `reduce` / `bcast` in a group.

    The communicators come from `NcclCommunicator.initAll(device_ids)`; every
    call is issued inside `groupStart()` / `groupEnd()` so that one thread
    can drive all GPUs without deadlocking.

    Args:
        devices: the strategy's local GPU devices.
    """

    def __init__(self, devices):
        from cupy.cuda import nccl  # optional dependency
        self.devices = devices
        self._nccl = nccl
        self._comms = nccl.NcclCommunicator.initAll([d.index for d in devices])

    def buffers(self, layout):
        return [layout.zeros(d) for d in self.devices]

    def reduce(self, buffer_sets):
        self._grouped(lambda comm, array, stream: comm.reduce(
            array.data.ptr, array.data.ptr, array.size, nccl_dtype(array.dtype),
            self._nccl.NCCL_SUM, 0, stream), buffer_sets)

    def broadcast(self, buffer_sets):
        self._grouped(lambda comm, array, stream: comm.bcast(
            array.data.ptr, array.size, nccl_dtype(array.dtype), 0, stream), buffer_sets)

    def _grouped(self, call, buffer_sets):
        import cupy  # optional dependency
        self._nccl.groupStart()
        try:
            for device, comm, buffers in zip(self.devices, self._comms, buffer_sets):
                with cupy.cuda.Device(device.index):
                    stream = cupy.cuda.get_current_stream().ptr
                    for array in buffers.values():
                        call(comm, array, stream)
        finally:
            self._nccl.groupEnd()


def nccl_dtype(dtype):
    """The NCCL datatype constant for a numpy dtype."""
    from cupy.cuda import nccl  # optional dependency
    name = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
            "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint8": "NCCL_UINT8",
            "int8": "NCCL_INT8"}.get(np.dtype(dtype).name)
    if name is None:
        raise TypeError(f"NCCL cannot reduce arrays of dtype {np.dtype(dtype).name}.")
    return getattr(nccl, name)


def copy_to_device(array, device):
    """A copy of a cupy/numpy array on `device` (cupy copies across GPUs)."""
    if device.kind == "cpu":
        return np.array(_devices.to_host(array), copy=True)
    import cupy  # optional dependency
    with cupy.cuda.Device(device.index):
        if isinstance(array, cupy.ndarray):
            return array.copy()  # cupy copies onto the *current* device
        return cupy.asarray(array)


def nccl_available():
    """True when cupy's NCCL bindings import."""
    try:
        from cupy.cuda import nccl  # optional dependency
    except Exception:  # pragma: no cover - depends on the machine
        return False
    return bool(getattr(nccl, "available", True))


def make_local_reducer(devices, cross_device_ops=None):
    """The local reducer for a list of devices and a `CrossDeviceOps` choice.

    Args:
        devices: the local `Device`s (all CPU or all GPU).
        cross_device_ops: None (NCCL on GPUs when available), or an instance
            of `NcclAllReduce`, `ReductionToOneDevice`, `HierarchicalCopyAllReduce`.

    Returns:
        a `HostReducer`, `OneDeviceReducer` or `NcclReducer`.
    """
    kinds = {d.kind for d in devices}
    if len(kinds) > 1:
        raise ValueError(
            f"MirroredStrategy needs devices of one kind; got {[d.name for d in devices]}.")
    if "cpu" in kinds:
        if isinstance(cross_device_ops, NcclAllReduce):
            raise ValueError("NcclAllReduce needs GPU devices; the strategy has CPU devices.")
        return HostReducer(devices)
    wants_nccl = cross_device_ops is None or isinstance(cross_device_ops, NcclAllReduce)
    if len(devices) > 1 and wants_nccl and nccl_available():
        return NcclReducer(devices)
    if isinstance(cross_device_ops, NcclAllReduce) and len(devices) > 1:
        raise RuntimeError(
            "NcclAllReduce was requested but cupy's NCCL bindings are not available "
            "(`pip install nvidia-nccl-cu12`); use ReductionToOneDevice() instead.")
    return OneDeviceReducer(devices)


# Worlds: summing across worker processes ----------------------------------------------
class LocalWorld:
    """A world of one process: every collective is the identity."""

    size = 1
    rank = 0

    def allreduce(self, buffers):
        """Nothing to sum with."""

    def bcast(self, buffers, root=0):
        """Nothing to send."""

    def bcast_object(self, obj, root=0):
        return obj

    def allgather_object(self, obj):
        return [obj]

    def barrier(self):
        """Nothing to wait for."""


class MpiWorld:
    """Worker processes joined by MPI; host buffers are reduced in place.

    GPU buffers are staged through host memory, since the PyPI MPI builds are
    not CUDA-aware (use `NcclWorld` for GPU buffers). With a `JobGuard`
    (several ranks) every collective is non-blocking and polled with a
    deadline, so a rank that left or stalled ends the job instead of
    hanging it (see `job_guard`).

    Args:
        comm: an mpi4py communicator (usually `MPI.COMM_WORLD`).
        guard: the process's `JobGuard`, or None (blocking collectives).
    """

    def __init__(self, comm, guard=None):
        self._MPI = mpi_utils.import_mpi()
        self.comm = comm
        self.size = comm.size
        self.rank = comm.rank
        self.guard = guard

    def _run(self, start, blocking, what):
        """Runs one collective: `start()` (non-blocking, then polled) with a guard."""
        if self.guard is None:
            return blocking()
        self.guard.check_peers(what)
        self.guard.wait(start(), what)
        return None

    def _in_place(self, array, start, blocking, what):
        """A collective on a numpy or device array (device arrays go through the host)."""
        host = array if isinstance(array, np.ndarray) else _devices.to_host(array)
        self._run(lambda: start(host), lambda: blocking(host), what)
        if host is not array:
            array.set(host)

    def allreduce(self, buffers):
        """Sums every buffer across the ranks, in place (one call per dtype)."""
        MPI = self._MPI
        for array in buffers.values():
            self._in_place(
                array, lambda a: self.comm.Iallreduce(MPI.IN_PLACE, a, op=MPI.SUM),
                lambda a: self.comm.Allreduce(MPI.IN_PLACE, a, op=MPI.SUM), "allreduce")

    def bcast(self, buffers, root=0):
        """Copies `root`'s buffers to every rank, in place."""
        for array in buffers.values():
            self._in_place(array, lambda a: self.comm.Ibcast(a, root=root),
                           lambda a: self.comm.Bcast(a, root=root), "broadcast")

    def barrier(self, what="barrier"):
        """Waits until every rank reached this point (with the guard's deadline)."""
        self._run(self.comm.Ibarrier, self.comm.Barrier, what)

    def bcast_object(self, obj, root=0):
        self.barrier("broadcast of a Python object")
        return self.comm.bcast(obj, root=root)

    def allgather_object(self, obj):
        self.barrier("allgather of a Python object")
        return self.comm.allgather(obj)


class NcclWorld(MpiWorld):
    """Worker processes with one GPU each: NCCL for GPU buffers, MPI for the rest.

    The NCCL unique id is created by rank 0 and broadcast over MPI, then every
    rank joins one NCCL communicator on its GPU (ChainerMN's `pure_nccl`).

    Args:
        comm: the mpi4py world communicator.
        device: this process's GPU `Device`.
    """

    def __init__(self, comm, device, guard=None):
        super().__init__(comm, guard)
        import cupy  # optional dependency
        from cupy.cuda import nccl  # optional dependency
        self._nccl = nccl
        self._cupy = cupy
        self.device = device
        unique_id = nccl.get_unique_id() if comm.rank == 0 else None
        unique_id = self.bcast_object(unique_id, root=0)
        with cupy.cuda.Device(device.index):
            self._comm = nccl.NcclCommunicator(comm.size, unique_id, comm.rank)

    def allreduce(self, buffers):
        if any(not isinstance(a, np.ndarray) for a in buffers.values()):
            self.barrier("allreduce (NCCL)")  # NCCL calls cannot time out; MPI can
        for array in buffers.values():
            if isinstance(array, np.ndarray):
                super().allreduce({"host": array})
                continue
            with self._cupy.cuda.Device(self.device.index):
                self._comm.allReduce(array.data.ptr, array.data.ptr, array.size,
                                     nccl_dtype(array.dtype), self._nccl.NCCL_SUM,
                                     self._cupy.cuda.get_current_stream().ptr)

    def bcast(self, buffers, root=0):
        if any(not isinstance(a, np.ndarray) for a in buffers.values()):
            self.barrier("broadcast (NCCL)")
        for array in buffers.values():
            if isinstance(array, np.ndarray):
                super().bcast({"host": array}, root=root)
                continue
            with self._cupy.cuda.Device(self.device.index):
                self._comm.bcast(array.data.ptr, array.size, nccl_dtype(array.dtype), root,
                                 self._cupy.cuda.get_current_stream().ptr)

"""`MultiWorkerMirroredStrategy`: one process per worker, joined by MPI.

Launch the same script on every worker with MPI:

    mpiexec -n 4 python train.py                      # one machine
    mpiexec -n 8 -hosts node1,node2 python train.py   # two machines
    srun -N 2 --ntasks-per-node=4 python train.py     # Slurm (MPI built with PMI)

No TF_CONFIG is needed: rank and world size come from MPI. Rank 0 is the
chief: it alone writes checkpoints, logs and the progress bar.
"""
import enum

from kerasish.backend import devices as _devices
from kerasish.distribute import cross_device_ops, job_guard, mpi_utils
from kerasish.distribute.strategy import Strategy


class CommunicationImplementation(enum.Enum):
    """How workers sum their buffers (TensorFlow's names).

    AUTO: NCCL for GPU buffers when available, else MPI. RING: always MPI
    (GPU buffers staged through host memory). NCCL: NCCL bootstrapped over MPI.
    """

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """Options of the cross-worker collectives.

    Args:
        bytes_per_pack: accepted for TensorFlow compatibility (one pack per dtype).
        timeout_seconds: accepted for TensorFlow compatibility (unused).
        implementation: a `CommunicationImplementation` (or its name).

    Example:
        >>> options = keras.distribute.experimental.CommunicationOptions(
        ...     implementation=keras.distribute.experimental.CommunicationImplementation.RING)
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if not isinstance(implementation, CommunicationImplementation):
            implementation = CommunicationImplementation(str(implementation).upper())
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


class ClusterSpec:
    """The workers of the job: `{"worker": [host of rank 0, host of rank 1, ...]}`.

    Args:
        cluster: dict job name -> list of task addresses.
    """

    def __init__(self, cluster):
        self._cluster = {k: list(v) for k, v in cluster.items()}

    def as_dict(self):
        return {k: list(v) for k, v in self._cluster.items()}

    @property
    def jobs(self):
        return list(self._cluster)

    def num_tasks(self, job_name):
        return len(self._cluster[job_name])

    def job_tasks(self, job_name):
        return list(self._cluster[job_name])


class MPIClusterResolver:
    """Rank information from MPI (what TF_CONFIG gives TensorFlow).

    Args:
        comm: the mpi4py world communicator (COMM_WORLD when None).

    Example:
        >>> resolver = strategy.cluster_resolver
        >>> resolver.task_type, resolver.task_id
        ('worker', 0)
    """

    def __init__(self, comm=None):
        self._comm = comm if comm is not None else mpi_utils.world()
        self.task_type = "worker"
        self.task_id = self._comm.rank
        self.rpc_layer = "mpi"
        self._hosts = None

    @property
    def num_workers(self):
        return self._comm.size

    def cluster_spec(self):
        """The `ClusterSpec` (one allgather of host names on first call)."""
        if self._hosts is None:
            self._hosts = mpi_utils.host_names(self._comm)
        return ClusterSpec({"worker": self._hosts})

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """{"GPU": n} visible to this worker."""
        return {"GPU": len(_devices.list_devices("gpu"))}

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""


def _worker_device(comm):
    """This worker's device: its local GPU under KERASISH_BACKEND=cupy, else cpu:0."""
    if _devices.default_device().kind != "gpu":
        return _devices.get_device("cpu:0")
    gpus = _devices.list_devices("gpu")
    return _devices.get_device(gpus[mpi_utils.local_rank(comm) % len(gpus)])


def _make_world(comm, device, options, guard):
    implementation = options.implementation
    use_nccl = device.kind == "gpu" and comm.size > 1 and (
        implementation is CommunicationImplementation.NCCL or (
            implementation is CommunicationImplementation.AUTO
            and cross_device_ops.nccl_available()))
    if implementation is CommunicationImplementation.NCCL and device.kind != "gpu":
        raise ValueError("CommunicationImplementation.NCCL needs GPU workers "
                         "(KERASISH_BACKEND=cupy); use RING or AUTO on CPU.")
    if use_nccl:
        return cross_device_ops.NcclWorld(comm, device, guard)
    return cross_device_ops.MpiWorld(comm, guard)


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism across worker processes (MPI).

    Every worker runs the same script under `mpiexec` and drives one device
    (its local GPU under `KERASISH_BACKEND=cupy`, else the CPU). Gradients
    are summed once per step with MPI `Allreduce` (host buffers) or NCCL
    (GPU buffers); each worker then applies the same update. In-memory
    arrays are sharded by index and datasets by global-batch rows, so no
    data is ever sent between workers. The chief's initial weights are
    broadcast to every worker before the first step, after checking that
    every worker built the same weights (count, shapes, dtypes).

    A worker that ends in any way (an exception, `sys.exit`, `os._exit`, a
    signal) or stalls in a collective for longer than
    `KERASISH_COLLECTIVE_TIMEOUT` seconds (default 300) ends the whole job
    with a non-zero exit code and one line naming the rank and the cause
    (see `kerasish.distribute.job_guard` and docs/reliability.md).

    Args:
        cluster_resolver: accepted for TensorFlow compatibility; the ranks
            always come from MPI (an `MPIClusterResolver`).
        communication_options: `keras.distribute.experimental.CommunicationOptions`.

    Example:
        >>> strategy = keras.distribute.MultiWorkerMirroredStrategy()
        >>> strategy.cluster_resolver.task_id  # this worker's rank
        0
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        comm = mpi_utils.world()
        guard = job_guard.install(comm) if comm.size > 1 else None
        options = communication_options or CommunicationOptions()
        device = _worker_device(comm)
        world = _make_world(comm, device, options, guard)
        super().__init__([device], cross_device_ops.HostReducer([device]), world)
        self._comm = comm
        self._resolver = MPIClusterResolver(comm)
        self._communication_options = options

    @property
    def cluster_resolver(self):
        """The `MPIClusterResolver`: `task_type` "worker", `task_id` = rank."""
        return self._resolver

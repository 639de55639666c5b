"""MPI plumbing for multi-worker training: the world, rank info, the launcher.

mpi4py is imported lazily, so `import kerasish` never needs it. Without
`mpiexec`, mpi4py starts in singleton mode (a world of one process).
"""
import os
import socket


def import_mpi():
    """Returns `mpi4py.MPI`, with a clear error when it is missing.

    Raises:
        ImportError: mpi4py (or an MPI library) is not installed.
    """
    try:
        from mpi4py import MPI  # optional dependency
    except ImportError as error:
        raise ImportError(
            "MultiWorkerMirroredStrategy needs mpi4py and an MPI library: "
            "`pip install mpi4py mpich` (or `pip install kerasish[mpi]`), then launch with "
            "`mpiexec -n 2 python train.py`.") from error
    return MPI


def world():
    """`MPI.COMM_WORLD` (initialises MPI on first use)."""
    return import_mpi().COMM_WORLD


def local_rank(comm):
    """This process's index among the processes on the same host.

    Args:
        comm: an mpi4py communicator.

    Returns:
        int: the rank inside `comm.Split_type(COMM_TYPE_SHARED)`.
    """
    MPI = import_mpi()
    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.rank)
    try:
        return node.rank
    finally:
        node.Free()


def host_names(comm):
    """The host name of every rank, in rank order (one allgather)."""
    return comm.allgather(socket.gethostname())


# Environment variables by which MPI launchers tell a process its place in the job
# (MPICH/Intel MPI hydra, Open MPI, MVAPICH, PMIx).
_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE")
_RANK_VARIABLES = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK")


def launcher_world():
    """(rank, size) as set by an MPI launcher in the environment, without MPI.

    Returns:
        (int, int), or None when the process was not started by `mpiexec`
        (or the launcher is unknown).
    """
    size = next((os.environ[v] for v in _SIZE_VARIABLES if v in os.environ), None)
    rank = next((os.environ[v] for v in _RANK_VARIABLES if v in os.environ), None)
    try:
        return (int(rank or 0), int(size)) if size is not None else None
    except ValueError:
        return None

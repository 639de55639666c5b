"""MPI plumbing for multi-worker training: the world, rank info, abort-on-error.

mpi4py is imported lazily, so `import kerasish` never needs it. Without
`mpiexec`, mpi4py starts in singleton mode (a world of one process).
"""
import socket
import sys
import traceback

_state = {"hook": False}


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


def install_abort_hook(comm):
    """Makes an uncaught exception on any rank abort every rank.

    Without it, a rank that dies leaves the others blocked forever in their
    next collective (ChainerMN's FAQ). The hook prints the traceback with the
    rank, then calls `comm.Abort(1)`, which makes `mpiexec` kill every rank and
    exit non-zero. Installed once, only when the world has several ranks.

    Args:
        comm: the world communicator.
    """
    if _state["hook"] or comm.size == 1:
        return

    def abort_all_ranks(exc_type, exc, tb):
        try:
            sys.stderr.write(
                f"[kerasish] rank {comm.rank} of {comm.size}: uncaught "
                f"{exc_type.__name__}; aborting all ranks (MPI_Abort).\n")
            traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            comm.Abort(1)

    sys.excepthook = abort_all_ranks
    _state["hook"] = True

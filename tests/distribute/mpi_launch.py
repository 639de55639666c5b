"""Launching tests/distribute/mpi_worker.py under mpiexec, with bounded timeouts."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def find_mpiexec():
    """`mpiexec` next to this Python (a venv), else on PATH, else None."""
    local = Path(sys.executable).parent / "mpiexec"
    if local.exists():
        return str(local)
    return shutil.which("mpiexec")


def mpi_missing_reason():
    """Why MPI tests cannot run here, or None."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install kerasish[mpi])"
    if find_mpiexec() is None:
        return "no mpiexec found (pip install mpich)"
    return None


def run_mpi(nprocs, *args, timeout=60):
    """Runs tests/distribute/mpi_worker.py under `mpiexec -n nprocs`.

    Returns:
        subprocess.CompletedProcess with text stdout/stderr.
    """
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(REPO), str(HERE),
                                           os.environ.get("PYTHONPATH", "")]))
    command = [find_mpiexec(), "-n", str(nprocs), sys.executable, str(HERE / "mpi_worker.py"),
               *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=str(REPO))

"""Shared set-up of the distribution tests: MPI launching."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mpi_launch import mpi_missing_reason, run_mpi  # noqa: E402


@pytest.fixture
def mpi():
    """Skips the test when mpi4py or mpiexec is missing; returns `run_mpi`."""
    reason = mpi_missing_reason()
    if reason:
        pytest.skip(reason)
    return run_mpi

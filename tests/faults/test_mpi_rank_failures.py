"""Any rank that ends ends the whole `mpiexec -n 2` job, promptly and loudly.

Each test launches tests/faults/mpi_fault_worker.py on two ranks; rank 1 ends
(or misbehaves) in one way while rank 0 trains. The job must end non-zero,
with one line naming the rank and the cause, well before the generous bound
(`BOUND` seconds; on the old code these jobs hung or ended with rc 0). The
bound is the subprocess timeout: a hang fails with `TimeoutExpired`.
"""
import os
import subprocess
import sys

import pytest

from mpi_launch import REPO, find_mpiexec, mpi_missing_reason

pytestmark = pytest.mark.mpi
HERE = os.path.dirname(os.path.abspath(__file__))
BOUND = 90  # seconds; a healthy abort takes 2-7 s on an idle 2-core machine
ABORT_LINE = "aborting all ranks (MPI_Abort)"


def launch(scenario, timeout_env="60"):
    """Runs the scenario under `mpiexec -n 2`; returns the CompletedProcess."""
    reason = mpi_missing_reason()
    if reason:
        pytest.skip(reason)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               KERASISH_COLLECTIVE_TIMEOUT=timeout_env,
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    command = [find_mpiexec(), "-n", "2", sys.executable,
               os.path.join(HERE, "mpi_fault_worker.py"), scenario]
    return subprocess.run(command, capture_output=True, text=True, timeout=BOUND, env=env,
                          cwd=str(REPO))


def summary_lines(result):
    return [line for line in result.stderr.splitlines() if line.startswith("[kerasish] rank")]


def assert_aborted(result, rank, cause):
    output = result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode != 0, output
    lines = summary_lines(result)
    assert lines, output
    assert lines[0].startswith(f"[kerasish] rank {rank} of 2: ") and cause in lines[0] \
        and lines[0].endswith(ABORT_LINE + "."), output


def test_sys_exit_0_on_one_rank_ends_the_job_non_zero():
    result = launch("sys_exit_0")
    assert_aborted(result, 0, "rank 1 exited (sys.exit or the end of its script) while this "
                              "rank waited for it in allreduce")


def test_os_exit_0_on_one_rank_ends_the_job_non_zero():
    result = launch("os_exit_0")
    assert_aborted(result, 0, "rank 1 called os._exit(0) while this rank waited for it")


def test_different_models_name_the_first_different_weight():
    result = launch("different_models")
    assert result.returncode != 0
    assert "rank 1 built different weights from rank 0" in result.stderr
    assert "weight #0 is 'sequential/dense/kernel' (8, 4) float32 on rank 0 but " \
           "'sequential/dense/kernel' (8, 5) float32 on rank 1" in result.stderr
    assert any(ABORT_LINE in line for line in summary_lines(result))


def test_uneven_in_memory_shards_raise_up_front_with_the_counts():
    result = launch("uneven_arrays")
    assert result.returncode != 0
    assert "(rank 0: 256 samples, rank 1: 192 samples)" in result.stderr
    assert any(ABORT_LINE in line for line in summary_lines(result))


@pytest.mark.slow
def test_uncaught_exception_on_one_rank_ends_the_job():
    result = launch("raise")
    assert "RuntimeError: rank 1 failed on purpose" in result.stderr
    assert_aborted(result, 1, "uncaught RuntimeError: rank 1 failed on purpose")


@pytest.mark.slow
def test_sys_exit_3_on_one_rank_ends_the_job_non_zero():
    result = launch("sys_exit_3")
    assert_aborted(result, 0, "rank 1 exited")


@pytest.mark.slow
def test_os_exit_with_a_code_aborts_from_the_exiting_rank():
    result = launch("os_exit_5")
    assert_aborted(result, 1, "os._exit(5) called")


@pytest.mark.slow
def test_sigterm_on_one_rank_ends_the_job():
    result = launch("sigterm")
    assert_aborted(result, 1, "received SIGTERM")


@pytest.mark.slow
def test_a_stopped_rank_ends_the_job_after_the_collective_timeout():
    result = launch("sigstop", timeout_env="5")
    assert_aborted(result, 0, "allreduce did not complete within 5 s "
                              "(KERASISH_COLLECTIVE_TIMEOUT)")


@pytest.mark.slow
def test_a_rank_that_exits_before_training_ends_the_job():
    result = launch("exit_before_fit")
    assert_aborted(result, 0, "rank 1 exited")


@pytest.mark.slow
def test_uneven_generators_take_the_same_number_of_steps_on_every_rank():
    result = launch("uneven_generator")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "rank 0 finished 2 epochs, 12 steps" in result.stdout
    assert "rank 1 finished 2 epochs, 12 steps" in result.stdout
    assert "rank(s) [1] had no batch #7 while rank(s) [0] still had one; every worker stops " \
           "after 6 steps" in result.stderr


@pytest.mark.slow
def test_healthy_job_ends_with_rc_0_and_no_abort():
    result = launch("ok")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "rank 0 done" in result.stdout and "rank 1 done" in result.stdout
    assert not summary_lines(result)


def test_single_process_strategy_in_an_mpi_job_warns_once_on_rank_0():
    result = launch("single_process")
    assert result.returncode == 0, result.stderr[-3000:]
    warnings = [line for line in result.stderr.splitlines()
                if "kerasish runs in an MPI job of 2 processes" in line]
    assert len(warnings) == 1, result.stderr
    assert "MultiWorkerMirroredStrategy" in warnings[0]

"""MultiWorkerMirroredStrategy under `mpiexec -n 2` (marked `mpi`).

The workers train from the chief's weights (rank 1 starts from a different
random init, so the broadcast is exercised) and must end with the same
weights as a single-device run with the same global batch.
"""
import numpy as np
import pytest

import kerasish as keras
import scenarios

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """Runs the equivalence scenario once; returns the two ranks' results."""
    from mpi_launch import mpi_missing_reason, run_mpi
    reason = mpi_missing_reason()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("mpi")
    result = run_mpi(2, "equivalence", out, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return [dict(np.load(out / f"rank{r}.npz")) for r in (0, 1)]


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_fit_matches_single_device(two_workers, optimizer):
    reference = scenarios.make_model(optimizer)
    history = scenarios.fit(reference)
    for rank in (0, 1):
        np.testing.assert_allclose(two_workers[rank][f"fit_{optimizer}"],
                                   scenarios.flat_weights(reference), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(two_workers[rank][f"loss_{optimizer}"], history["loss"],
                                   rtol=1e-5)
    x, y = scenarios.data()
    np.testing.assert_allclose(two_workers[1][f"eval_{optimizer}"],
                               reference.evaluate(x, y, batch_size=20, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(two_workers[0][f"predict_{optimizer}"],
                               reference.predict(x, batch_size=20, verbose=0), rtol=1e-5,
                               atol=1e-6)


def test_dataset_input_is_sharded_by_rows(two_workers):
    reference = scenarios.make_model("adam")
    scenarios.fit_dataset(reference)
    for rank in (0, 1):
        np.testing.assert_allclose(two_workers[rank]["dataset_adam"],
                                   scenarios.flat_weights(reference), rtol=1e-5, atol=1e-6)


def test_custom_loop_matches_single_device(two_workers):
    reference = scenarios.make_model("sgd")
    losses = scenarios.custom_loop(reference)
    for rank in (0, 1):
        np.testing.assert_allclose(two_workers[rank]["custom_losses"], losses, rtol=1e-5)
        np.testing.assert_allclose(two_workers[rank]["custom_sgd"],
                                   scenarios.flat_weights(reference), rtol=1e-5, atol=1e-6)


def test_rank_information(two_workers):
    assert two_workers[0]["info"].tolist() == [0, 2, 1]
    assert two_workers[1]["info"].tolist() == [1, 2, 0]


def test_a_failing_rank_aborts_the_job_quickly(mpi, tmp_path):
    result = mpi(2, "raise", tmp_path, timeout=90)  # a hang fails with TimeoutExpired
    assert result.returncode != 0
    assert "rank 1 failed on purpose" in result.stderr
    assert "aborting all ranks" in result.stderr


def test_single_process_world_trains_like_one_device(mpi):
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.cluster_resolver.task_id == 0 and strategy.extended.should_checkpoint
    with strategy.scope():
        model = scenarios.make_model("adam")
    scenarios.fit(model)
    reference = scenarios.make_model("adam")
    scenarios.fit(reference)
    np.testing.assert_allclose(scenarios.flat_weights(model), scenarios.flat_weights(reference),
                               rtol=1e-6)


def _trainer_resumes():
    import inspect
    from kerasish.trainers import epoch_loops
    return "_initial_epoch" in inspect.getsource(epoch_loops)


@pytest.mark.skipif(not hasattr(keras.callbacks, "BackupAndRestore") or not _trainer_resumes(),
                    reason="needs keras.callbacks.BackupAndRestore and a trainer that honours "
                           "model._initial_epoch (resume is not wired into fit yet)")
def test_killed_job_resumes_from_the_backup(mpi, tmp_path):
    crashed = mpi(2, "resume", tmp_path, "crash", timeout=30)
    assert crashed.returncode != 0 and "simulated worker failure" in crashed.stderr
    resumed = mpi(2, "resume", tmp_path, timeout=30)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    reference = scenarios.make_model("adam")
    scenarios.fit(reference, epochs=3)
    for rank in (0, 1):
        np.testing.assert_allclose(np.load(tmp_path / f"resumed{rank}.npy"),
                                   scenarios.flat_weights(reference), rtol=1e-5, atol=1e-6)

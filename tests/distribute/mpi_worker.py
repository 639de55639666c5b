"""Runs under `mpiexec -n 2` for tests/distribute/test_multi_worker.py.

    python mpi_worker.py equivalence OUT_DIR   # trains, writes OUT_DIR/rank<r>.npz
    python mpi_worker.py raise OUT_DIR          # rank 1 raises, rank 0 waits in a collective
    python mpi_worker.py resume OUT_DIR [crash] # BackupAndRestore across a crash
"""
import os
import sys

import numpy as np

import kerasish as keras
import scenarios


def equivalence(out_dir):
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    results = {}
    for name in ("sgd", "adam"):
        with strategy.scope():
            model = scenarios.make_model(name, weights=rank == 0)  # rank 1 keeps random init
        history = scenarios.fit(model)
        results[f"fit_{name}"] = scenarios.flat_weights(model)
        results[f"loss_{name}"] = np.array(history["loss"])
        results[f"eval_{name}"] = np.array(model.evaluate(*scenarios.data(), batch_size=20,
                                                          verbose=0))
        results[f"predict_{name}"] = model.predict(scenarios.data()[0], batch_size=20, verbose=0)
    with strategy.scope():
        model = scenarios.make_model("adam", weights=rank == 0)
    scenarios.fit_dataset(model)
    results["dataset_adam"] = scenarios.flat_weights(model)
    with strategy.scope():
        model = scenarios.make_model("sgd", weights=rank == 0)
    results["custom_losses"] = np.array(scenarios.custom_loop(model, strategy))
    results["custom_sgd"] = scenarios.flat_weights(model)
    results["info"] = np.array([rank, strategy.num_replicas_in_sync,
                                strategy.extended.should_checkpoint])
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **results)


def raise_on_rank_1(out_dir):
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = scenarios.make_model("sgd")
    if strategy.cluster_resolver.task_id == 1:
        raise RuntimeError("rank 1 failed on purpose")
    scenarios.fit(model, epochs=50)  # rank 0 blocks in its first all-reduce


class _CrashAtEpoch(keras.callbacks.Callback):
    """Kills the job (rank 1 raises) when epoch `epoch` begins."""

    def __init__(self, epoch, rank):
        super().__init__()
        self.epoch, self.rank = epoch, rank

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch and self.rank == 1:
            raise RuntimeError("simulated worker failure")


def resume(out_dir, crash=""):
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    with strategy.scope():
        model = scenarios.make_model("adam")
    callbacks = [keras.callbacks.BackupAndRestore(os.path.join(out_dir, "backup"))]
    if crash:
        callbacks.append(_CrashAtEpoch(2, rank))
    x, y = scenarios.data()
    model.fit(x, y, batch_size=scenarios.BATCH, epochs=3, shuffle=False, verbose=0,
              callbacks=callbacks)
    np.save(os.path.join(out_dir, f"resumed{rank}.npy"), scenarios.flat_weights(model))


def main():
    scenario, out_dir, *rest = sys.argv[1:]
    {"equivalence": equivalence, "raise": raise_on_rank_1, "resume": resume}[scenario](
        out_dir, *rest)


if __name__ == "__main__":
    main()

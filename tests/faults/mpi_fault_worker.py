"""Runs under `mpiexec -n 2` for tests/faults/test_mpi_rank_failures.py.

    python mpi_fault_worker.py SCENARIO

Rank 1 ends (or misbehaves) in the way SCENARIO names while rank 0 goes on
training; the test checks that the whole job ends promptly, non-zero, with
one line naming the rank and why. `ok` and `ok_generator` must succeed.
"""
import os
import signal
import sys

import numpy as np

import kerasish as keras

SAMPLES, FEATURES = 256, 8


def make_model(units=4):
    model = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(units),
                              keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def data(samples=SAMPLES):
    rng = np.random.default_rng(0)
    return rng.normal(size=(samples, FEATURES)).astype("float32"), \
        rng.normal(size=(samples, 1)).astype("float32")


class EndRankOne(keras.callbacks.Callback):
    """On rank 1, at the start of batch 3 of epoch 2, runs `action`."""

    def __init__(self, action):
        super().__init__()
        self.action = action
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if self.epoch == 1 and batch == 3:
            self.action()


ACTIONS = {
    "raise": lambda: (_ for _ in ()).throw(RuntimeError("rank 1 failed on purpose")),
    "sys_exit_3": lambda: sys.exit(3),
    "sys_exit_0": lambda: sys.exit(0),
    "os_exit_0": lambda: os._exit(0),
    "os_exit_5": lambda: os._exit(5),
    "sigterm": lambda: os.kill(os.getpid(), signal.SIGTERM),
    "sigstop": lambda: os.kill(os.getpid(), signal.SIGSTOP),
}


def train(scenario, rank):
    with strategy.scope():
        model = make_model()
    callbacks = [EndRankOne(ACTIONS[scenario])] if rank == 1 and scenario in ACTIONS else []
    x, y = data()
    model.fit(x, y, batch_size=32, epochs=50, verbose=0, callbacks=callbacks)


def uneven_arrays(rank):
    with strategy.scope():
        model = make_model()
    x, y = data(256 if rank == 0 else 192)
    model.fit(x, y, batch_size=32, epochs=2, verbose=0)


def uneven_generator(rank):
    """Each rank reads its own generator of unknown length: 8 vs 6 batches."""
    with strategy.scope():
        model = make_model()
    x, y = data()
    batches = 8 if rank == 0 else 6

    def gen():
        for i in range(batches):
            yield x[32 * i:32 * i + 32], y[32 * i:32 * i + 32]

    dataset = keras.data.Dataset.from_generator(
        gen, output_signature=(keras.data.TensorSpec((None, FEATURES), "float32"),
                               keras.data.TensorSpec((None, 1), "float32")))
    dist = strategy.distribute_datasets_from_function(lambda ctx: dataset)
    history = model.fit(dist, epochs=2, verbose=0)
    print(f"rank {rank} finished {len(history.history['loss'])} epochs, "
          f"{int(model.optimizer.iterations.numpy())} steps", flush=True)


def different_models(rank):
    with strategy.scope():
        model = make_model(units=4 if rank == 0 else 5)
    x, y = data()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)


def single_process():
    """No strategy at all: each process trains its own model (rank 0 must warn)."""
    x, y = data()
    make_model().fit(x, y, batch_size=32, epochs=1, verbose=0)
    make_model().fit(x, y, batch_size=32, epochs=1, verbose=0)  # warned once only


if __name__ == "__main__":
    scenario = sys.argv[1]
    if scenario == "single_process":
        single_process()
        sys.exit(0)
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    if scenario == "exit_before_fit":
        if rank == 1:
            sys.exit(0)
        train("ok", rank)
    elif scenario == "uneven_arrays":
        uneven_arrays(rank)
    elif scenario == "uneven_generator":
        uneven_generator(rank)
    elif scenario == "different_models":
        different_models(rank)
    else:
        train(scenario, rank)
    print(f"rank {rank} done", flush=True)

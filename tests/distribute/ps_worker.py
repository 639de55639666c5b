"""Scenarios of ParameterServerStrategy, run on every rank under mpiexec.

    mpiexec -n 4 python tests/distribute/ps_worker.py SCENARIO OUT_DIR

Each rank writes `OUT_DIR/rank{R}.npz` (its final weights and what it saw);
tests/distribute/test_parameter_server.py checks them.
"""
import json
import os
import signal
import sys
import time

import numpy as np

import kerasish as keras

GLOBAL_BATCH = 32


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 6)).astype("float32")
    y = (x[:, 0] - x[:, 1] + 0.5 * x[:, 2] > 0).astype("int32")
    return x, y


def dataset_fn(input_context):
    """Each worker's shard of the data, repeated (TF's recommended PS pipeline)."""
    x, y = data()
    ds = keras.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return ds.batch(input_context.get_per_replica_batch_size(GLOBAL_BATCH)).repeat()


def make_model(optimizer="adam"):
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh"),
                              keras.layers.BatchNormalization(),  # state pushed as changes
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def flat(model):
    return np.concatenate([np.ravel(w) for w in model.get_weights()])


def save(out, strategy, **arrays):
    rank = keras.distribute.mpi_utils.world().rank
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    np.savez(os.path.join(out, f"rank{rank}.npz"), role=strategy.role, **arrays)
    if strategy.is_chief:
        with open(os.path.join(out, "stats.json"), "w") as f:
            json.dump(strategy.ps_stats(), f)


def fit(out, max_staleness=None, optimizer="adam", epochs=2, steps=12, num_ps=None):
    """fit with a dataset function; every rank saves weights and history."""
    strategy = keras.distribute.ParameterServerStrategy(max_staleness=max_staleness,
                                                        num_ps=num_ps)
    with strategy.scope():
        model = make_model(optimizer)
    history = model.fit(dataset_fn, epochs=epochs, steps_per_epoch=steps, verbose=0)
    x, y = data()
    evaluation = model.evaluate(x, y, batch_size=64, verbose=0)
    save(out, strategy, weights=flat(model), loss=history.history["loss"],
         accuracy=history.history["accuracy"], evaluation=evaluation,
         iterations=int(model.optimizer.iterations.numpy()))


def fit_one_worker(out):
    fit(out, optimizer=sys.argv[3] if len(sys.argv) > 3 else "adam")


def fit_sync(out):
    fit(out, max_staleness=0, num_ps=2)


def coordinator(out):
    """A custom loop: schedule / join / fetch / done; a slow worker makes stale updates."""
    strategy = keras.distribute.ParameterServerStrategy()
    with strategy.scope():
        model = make_model()
        optimizer = keras.optimizers.SGD(learning_rate=0.1)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(reduction="sum")
    coord = keras.distribute.coordinator.ClusterCoordinator(strategy)

    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(dataset_fn)

    iterator = iter(coord.create_per_worker_dataset(per_worker_dataset_fn))
    slept = []

    def step_fn(iterator):
        def replica_fn(batch):
            features, labels = batch
            if strategy.cluster_resolver.task_id == 0 and not slept:
                slept.append(True)
                time.sleep(0.6)  # the other worker's updates land meanwhile: staleness >= 1
            with keras.GradientTape() as tape:
                loss = loss_fn(labels, model(features, training=True)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        loss = strategy.run(replica_fn, args=(next(iterator),))
        return {"loss": loss, "worker": strategy.cluster_resolver.task_id}

    results = [coord.schedule(step_fn, args=(iterator,)) for _ in range(16)]
    coord.join()
    done = coord.done()
    fetched = coord.fetch(results)
    single = results[3].fetch()
    workers = [r["worker"] for r in fetched]

    def fails():
        raise KeyError("scheduled function failed on purpose")

    coord.schedule(fails)
    try:
        coord.join()
        join_error = ""
    except KeyError as error:
        join_error = str(error)
    after = coord.schedule(lambda: 42)
    coord.join()
    # epochs shorter than the steps in flight: the logs still count every step
    short = model.fit(dataset_fn, epochs=2, steps_per_epoch=1, verbose=0).history
    save(out, strategy, weights=flat(model), workers=workers,
         short_loss=short.get("loss", []), short_accuracy=short.get("accuracy", []),
         losses=[float(r["loss"]) for r in fetched], single=float(single["loss"]),
         done=done, join_error=join_error, after=after.fetch(),
         iterations=int(optimizer.iterations.numpy()))


def step_raises(out):
    """A worker's step raises: the chief raises it from fit, every rank ends loudly."""
    strategy = keras.distribute.ParameterServerStrategy()
    with strategy.scope():
        model = make_model()

    def failing_fn(input_context):
        def rows():
            x, y = data()
            for i in range(3):
                yield x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]
            raise RuntimeError("input pipeline broke on purpose")
        return rows()

    model.fit(failing_fn, epochs=1, steps_per_epoch=20, verbose=0)


def worker_dies(out):
    """Worker rank 3 kills itself (SIGKILL, or os._exit) in its 4th step."""
    how = sys.argv[3]
    strategy = keras.distribute.ParameterServerStrategy()
    with strategy.scope():
        model = make_model()
    me = keras.distribute.mpi_utils.world().rank
    count = []

    def dying_fn(input_context):
        for batch in dataset_fn(input_context):
            count.append(1)
            if me == 3 and len(count) == 4:
                if how == "sigkill":
                    os.kill(os.getpid(), signal.SIGKILL)
                os._exit(3)
            yield batch

    history = model.fit(dying_fn, epochs=2, steps_per_epoch=15, verbose=0)
    if strategy.is_chief:
        stats = strategy.ps_stats()
        print("RESULT " + json.dumps({"steps": stats["steps"], "dead": stats["dead_workers"],
                                      "rescheduled": stats["rescheduled"],
                                      "loss": history.history["loss"]}), flush=True)


def resume(out):
    """Adam, 1 worker, BackupAndRestore on the chief; `kill` makes the server die in epoch 2."""
    strategy = keras.distribute.ParameterServerStrategy()
    with strategy.scope():
        model = make_model(keras.optimizers.Adam(learning_rate=0.02))
    if len(sys.argv) > 3 and strategy.role == "ps":
        apply_push = strategy._apply_push

        def dying_apply_push(message, fit_state):
            if strategy._version == 20:  # epoch 2 (0-based), step 4
                os.kill(os.getpid(), signal.SIGKILL)
            return apply_push(message, fit_state)

        strategy._apply_push = dying_apply_push
    backup = keras.callbacks.BackupAndRestore(os.path.join(out, "backup"))
    x, y = data()
    history = model.fit(dataset_fn, epochs=4, steps_per_epoch=8, verbose=0, callbacks=[backup],
                        validation_data=(x, y))
    save(out, strategy, weights=flat(model), loss=history.history["loss"],
         val_loss=history.history["val_loss"], epochs=history.epoch,
         iterations=int(model.optimizer.iterations.numpy()))


def errors(out):
    """Clear errors, raised on every rank: each rank prints what it caught."""
    try:
        strategy = keras.distribute.ParameterServerStrategy(num_ps=int(sys.argv[3]))
    except ValueError as error:
        print(f"CAUGHT construct: {error}", flush=True)
        return
    with strategy.scope():
        model = make_model()
    for kwargs in ({}, {"steps_per_epoch": 5, "x_arrays": True}):
        try:
            if kwargs.pop("x_arrays", False):
                x, y = data()
                model.fit(x, y, **kwargs)
            else:
                model.fit(dataset_fn, **kwargs)
        except ValueError as error:
            print(f"CAUGHT fit: {error}", flush=True)


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])

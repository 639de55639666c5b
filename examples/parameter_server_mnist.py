"""An MNIST MLP trained asynchronously with parameter servers (ParameterServerStrategy).

    # rank 0 chief, rank 1 parameter server, ranks 2-3 workers (pip install mpi4py mpich)
    OPENBLAS_NUM_THREADS=1 mpiexec -n 4 python examples/parameter_server_mnist.py

    # the same model in one process, for comparison
    python examples/parameter_server_mnist.py --single

Every rank runs this script. The chief runs `fit` and prints; the parameter
server holds the variables and applies the Adam updates as they arrive; each
worker reads its own shard of the training set (the dataset function below),
pulls the weights, computes the gradient of one batch and pushes it, without
waiting for the other workers. `--max-staleness 0` runs one step at a time.
Reads the shared MNIST subset (../shared/data/mnist_subset.npz) by default.
"""
import argparse
import os
import time

import kerasish as keras

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "mnist_subset.npz")


def load(path, samples):
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)
    x_train = x_train[:samples].reshape(-1, 784).astype("float32") / 255
    x_test = x_test.reshape(-1, 784).astype("float32") / 255
    return (x_train, y_train[:samples]), (x_test, y_test)


def make_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input((784,)),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default=DEFAULT_PATH)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64, help="the batch of one step")
    parser.add_argument("--samples", type=int, default=None, help="train on the first N only")
    parser.add_argument("--num-ps", type=int, default=1)
    parser.add_argument("--max-staleness", type=int, default=None)
    parser.add_argument("--single", action="store_true", help="train in one process instead")
    parser.add_argument("--verbose", type=int, default=2)
    args = parser.parse_args(argv)
    (x_train, y_train), (x_test, y_test) = load(args.path, args.samples)
    steps_per_epoch = len(x_train) // args.batch_size

    def dataset_fn(input_context):
        """This worker's shard of the training set, shuffled and repeated."""
        ds = keras.data.Dataset.from_tensor_slices((x_train, y_train))
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        ds = ds.shuffle(10_000, seed=input_context.input_pipeline_id)
        return ds.batch(input_context.get_per_replica_batch_size(args.batch_size)).repeat()

    if args.single:
        model = make_model()
        start = time.perf_counter()
        model.fit(dataset_fn(keras.distribute.InputContext()), epochs=args.epochs,
                  steps_per_epoch=steps_per_epoch, verbose=args.verbose)
        seconds = time.perf_counter() - start
        accuracy = model.evaluate(x_test, y_test, batch_size=1000, verbose=0)[1]
        print(f"single process: {args.epochs * steps_per_epoch / seconds:.1f} steps/s, "
              f"test accuracy {accuracy:.4f}")
        return accuracy

    strategy = keras.distribute.ParameterServerStrategy(num_ps=args.num_ps,
                                                        max_staleness=args.max_staleness)
    with strategy.scope():
        model = make_model()
    start = time.perf_counter()
    model.fit(dataset_fn, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              verbose=args.verbose)
    seconds = time.perf_counter() - start
    accuracy = model.evaluate(x_test, y_test, batch_size=1000, verbose=0)[1]
    if strategy.is_chief:
        stats = strategy.ps_stats()
        workers = strategy.cluster_resolver.num_workers
        print(f"{workers} worker(s), {strategy.cluster_resolver.num_ps} server(s): "
              f"{stats['steps'] / seconds:.1f} steps/s, test accuracy {accuracy:.4f}, "
              f"staleness mean {stats['staleness_mean']:.2f} max {stats['staleness_max']}, "
              f"{stats['bytes_per_step'] / 1e6:.2f} MB moved per step, "
              f"{stats['ps_update_seconds'] * 1e3:.2f} ms per server update")
    return accuracy


if __name__ == "__main__":
    main()

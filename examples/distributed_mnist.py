"""The Keras MNIST convnet, trained data-parallel with kerasish.distribute.

One unchanged model definition runs under either strategy:

    # two CPU replicas (or every local GPU with KERASISH_BACKEND=cupy) in one process
    python examples/distributed_mnist.py --strategy mirrored

    # two worker processes joined by MPI (pip install mpi4py mpich)
    mpiexec -n 2 python examples/distributed_mnist.py --strategy multiworker

`--batch-size` is the global batch: each step splits it across all replicas.
Reads the shared MNIST subset (../shared/data/mnist_subset.npz) by default.
"""
import argparse
import os

import numpy as np

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "mnist_subset.npz")


def make_strategy(name):
    """The strategy named on the command line."""
    if name == "multiworker":
        return keras.distribute.MultiWorkerMirroredStrategy()
    if keras.backend.devices.list_devices("gpu"):
        return keras.distribute.MirroredStrategy()  # every local GPU
    return keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])


def make_model():
    """Keras's "Simple MNIST convnet" example, unchanged."""
    model = keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="sparse_categorical_crossentropy", optimizer="adam",
                  metrics=["accuracy"])
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=["mirrored", "multiworker"], default="mirrored")
    parser.add_argument("--path", default=DEFAULT_PATH)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128, help="the global batch")
    parser.add_argument("--samples", type=int, default=None, help="train on the first N only")
    args = parser.parse_args(argv)

    strategy = make_strategy(args.strategy)
    if strategy.extended.should_save_summary:
        print(f"{type(strategy).__name__}: {strategy.num_replicas_in_sync} replicas in sync")
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=args.path)
    x_train = np.expand_dims(x_train[:args.samples].astype("float32") / 255, -1)
    y_train = y_train[:args.samples]
    x_test = np.expand_dims(x_test.astype("float32") / 255, -1)

    with strategy.scope():
        model = make_model()
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
              validation_split=0.1)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    if strategy.extended.should_save_summary:
        print(f"Test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main()

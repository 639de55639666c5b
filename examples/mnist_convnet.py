"""The keras-io "Simple MNIST convnet", unchanged but for the import (issue: vision layers).

    python examples/mnist_convnet.py [path/to/mnist.npz] [epochs]

Reads the shared MNIST subset (../shared/data/mnist_subset.npz) by default.
Real Keras 3 reaches 97.5% test accuracy with this program on that subset
after 3 epochs.
"""
import os
import sys

import numpy as np

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "mnist_subset.npz")


def main(path=DEFAULT_PATH, epochs=3, train_samples=None, verbose="auto"):
    num_classes = 10
    input_shape = (28, 28, 1)

    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)
    if train_samples is not None:
        x_train, y_train = x_train[:train_samples], y_train[:train_samples]
    # Scale images to the [0, 1] range and make sure they have shape (28, 28, 1).
    x_train = np.expand_dims(x_train.astype("float32") / 255, -1)
    x_test = np.expand_dims(x_test.astype("float32") / 255, -1)
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)

    model = keras.Sequential([
        keras.Input(shape=input_shape),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ])
    if verbose:
        model.summary()
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=128, epochs=epochs, validation_split=0.1,
              verbose=verbose)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test loss: {loss:.4f}")
    print(f"Test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:2], *[int(a) for a in sys.argv[2:3]])

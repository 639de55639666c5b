"""The Keras MNIST MLP, unchanged but for the import (issue: models and training).

    python examples/mnist_mlp.py [path/to/mnist.npz]

Reads the shared MNIST subset (../shared/data/mnist_subset.npz) by default.
Real Keras 3 reaches 95.2-95.8% test accuracy with this program on that subset.
"""
import os
import sys

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "mnist_subset.npz")


def main(path=DEFAULT_PATH, epochs=3):
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)
    x_train = x_train.reshape(-1, 784).astype("float32") / 255
    model = keras.Sequential([keras.Input(shape=(784,)), layers.Dense(512, activation="relu"),
                              layers.Dropout(0.2), layers.Dense(10, activation="softmax")])
    model.summary()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=128, epochs=epochs, validation_split=0.1)
    loss, accuracy = model.evaluate(x_test.reshape(-1, 784) / 255, y_test)
    print(f"Test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:2])

"""Main job: train an MLP on scikit-learn's bundled digits data set (offline).

    python examples/digits_mlp.py

Prints the model summary, Keras-style progress, and the test accuracy.
"""
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import kerasish as keras
from kerasish import layers


def main(epochs=30, seed=1):
    keras.utils.set_random_seed(seed)
    digits = load_digits()
    x = (digits.data / 16.0).astype("float32")
    y = digits.target.astype("int64")
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.25, random_state=seed, stratify=y)

    model = keras.Sequential([
        keras.Input(shape=(64,)),
        layers.Dense(128, activation="relu"),
        layers.Dropout(0.2),
        layers.Dense(10, activation="softmax"),
    ])
    model.summary()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=32, epochs=epochs, validation_split=0.1, verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test loss: {loss:.4f}")
    print(f"Test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main()

"""Image augmentation with preprocessing layers in a `Dataset.map` pipeline (MNIST subset).

    python examples/image_augmentation.py [path/to/mnist_subset.npz] [epochs]

Random flips are wrong for digits, so the augmentation is small rotations, zooms,
translations and contrast changes, applied per batch inside
`Dataset.map(..., num_parallel_calls=AUTOTUNE)` (training only). `Rescaling` is
part of the model, so the saved model takes raw 0-255 pixels; the augmentation
layers would be the identity at inference if they were kept in the model.
"""
import os
import sys

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "mnist_subset.npz")


def main(path=DEFAULT_PATH, epochs=2, train_size=6000, seed=1):
    keras.utils.set_random_seed(seed)
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)
    x_train = x_train[:train_size, :, :, None].astype("float32")
    y_train = y_train[:train_size]
    x_test = x_test[:, :, :, None].astype("float32")

    augment = keras.Sequential([
        layers.RandomRotation(0.05, fill_mode="constant", seed=seed),
        layers.RandomZoom(0.1, fill_mode="constant", seed=seed),
        layers.RandomTranslation(0.1, 0.1, fill_mode="constant", seed=seed),
        layers.RandomContrast(0.2, seed=seed),
    ])
    train = (keras.data.Dataset.from_tensor_slices((x_train, y_train))
             .shuffle(train_size, seed=seed).batch(128)
             .map(lambda x, y: (augment(x, training=True), y),
                  num_parallel_calls=keras.data.AUTOTUNE)
             .prefetch(keras.data.AUTOTUNE))

    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        layers.Rescaling(1.0 / 255),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dropout(0.3),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(train, epochs=epochs, verbose=2)
    _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}")
    sample = augment(x_train[:4], training=True).numpy()
    print("Augmented batch range:", float(sample.min()), float(sample.max()))
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:2], *(int(a) for a in sys.argv[2:3]))

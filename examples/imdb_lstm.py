"""Sentiment classification of IMDB reviews with Embedding + LSTM (issue: sequence layers).

    python examples/imdb_lstm.py [path/to/imdb.npz]

Reads the shared IMDB subset (../shared/data/imdb_subset.npz: 5,000 training and
1,000 test reviews, vocabulary capped at 500 words). This model (Embedding(500, 32) +
LSTM(32), padded to 200, Adam) is at the edge of learning on so few reviews, and where
it ends after 3 epochs depends on the seed's rounding noise: with `seed=3`, real Keras
3.15.1 (on TensorFlow) reaches 74.0% test accuracy and kerasish 78.9%; after 5 epochs
both settle near 77% (Keras 77.4%, kerasish 77.0%; with `seed=1` Keras gets 68.3%).
"""
import os
import sys

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "imdb_subset.npz")
VOCABULARY, MAXLEN = 500, 200


def main(path=DEFAULT_PATH, epochs=3, seed=3):
    keras.utils.set_random_seed(seed)
    (x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(path=path,
                                                                         num_words=VOCABULARY)
    x_train = keras.utils.pad_sequences(x_train, maxlen=MAXLEN)
    x_test = keras.utils.pad_sequences(x_test, maxlen=MAXLEN)
    model = keras.Sequential([
        keras.Input(shape=(MAXLEN,), dtype="int32"),
        layers.Embedding(VOCABULARY, 32),
        layers.LSTM(32),
        layers.Dense(1, activation="sigmoid"),
    ])
    model.summary()
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=32, epochs=epochs, validation_split=0.1)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:2])

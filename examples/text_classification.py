"""Text classification from raw strings: TextVectorization + Embedding + Conv1D on IMDB.

    python examples/text_classification.py [path/to/imdb_subset.npz] [path/to/word_index.json]

The shared IMDB subset (../shared/data/imdb_subset.npz, 5,000 training and 1,000
test reviews) stores word indices; the reviews are turned back into raw strings
with Keras's IMDB word index (`keras.datasets.imdb.get_word_index`, read from the
given JSON file or the Keras cache). When no word index is available offline,
each index becomes a placeholder word ("w14"), which keeps the pipeline (raw
strings -> TextVectorization -> model) identical. As keras-io's "Text
classification from scratch": the vectorization runs in a `Dataset.map`, and an
end-to-end model taking strings is built for inference.
"""
import os
import sys

import numpy as np

import kerasish as keras
from kerasish import layers

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                            "imdb_subset.npz")
MAX_TOKENS, SEQUENCE_LENGTH, INDEX_FROM = 1000, 200, 3


def words_of(word_index_path):
    """index -> word for the encoded reviews (Keras's offsets: 1 start, 2 OOV)."""
    try:
        word_index = keras.datasets.imdb.get_word_index(path=word_index_path) \
            if word_index_path else keras.datasets.imdb.get_word_index()
    except Exception as error:   # offline and not cached
        print(f"No IMDB word index ({type(error).__name__}); using placeholder words.")
        return None
    return {index + INDEX_FROM: word for word, index in word_index.items()}


def to_text(sequences, words):
    """Encoded reviews -> raw strings (start marker dropped, OOV as 'oov')."""
    def word(i):
        if i == 2:
            return "oov"
        return words.get(i, "oov") if words else f"w{i}"
    return np.array([" ".join(word(i) for i in seq if i >= 2) for seq in sequences])


def main(path=DEFAULT_PATH, word_index_path=None, epochs=3, seed=1):
    keras.utils.set_random_seed(seed)
    (x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(path=path)
    words = words_of(word_index_path)
    train_text, test_text = to_text(x_train, words), to_text(x_test, words)
    print("A review as raw text:", train_text[0][:120], "...")

    vectorize = layers.TextVectorization(max_tokens=MAX_TOKENS,
                                         output_sequence_length=SEQUENCE_LENGTH)
    vectorize.adapt(keras.data.Dataset.from_tensor_slices(train_text).batch(256))
    print("Vocabulary size:", vectorize.vocabulary_size())

    def vectorized(text, label):
        return vectorize(text), label

    train = keras.data.Dataset.from_tensor_slices((train_text, y_train.astype("float32")))
    train = train.shuffle(5000, seed=seed).batch(32).map(vectorized)
    test = keras.data.Dataset.from_tensor_slices((test_text, y_test.astype("float32")))
    test = test.batch(64).map(vectorized)

    model = keras.Sequential([
        keras.Input(shape=(SEQUENCE_LENGTH,), dtype="int64"),
        layers.Embedding(MAX_TOKENS, 32),
        layers.Dropout(0.3),
        layers.Conv1D(64, 5, activation="relu"),
        layers.GlobalMaxPooling1D(),
        layers.Dense(32, activation="relu"),
        layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(train, epochs=epochs, validation_data=test, verbose=2)
    _, accuracy = model.evaluate(test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}")

    inputs = keras.Input(shape=(), dtype="string")
    end_to_end = keras.Model(inputs, model(vectorize(inputs)))
    # Keras's fit/predict take strings as object arrays (a numpy str array raises)
    print("End-to-end scores:", end_to_end.predict(test_text[:3].astype(object),
                                                    verbose=0).ravel())
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:3])

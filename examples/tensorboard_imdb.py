"""Watch a run in TensorBoard: curves, weight histograms, the model graph and the embedding
projector, for a small IMDB sentiment model; also draws the model and its learning curves.

    python examples/tensorboard_imdb.py [logdir]
    tensorboard --logdir logs/imdb          # then open http://localhost:6006

Needs the `tensorboard` extra (and `plot` for the two pictures):
`pip install -e ".[tensorboard,plot]"`. Reads ../shared/data/imdb_subset.npz.
"""
import os
import sys

import kerasish as keras
from kerasish import layers

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                    "imdb_subset.npz")
VOCABULARY, MAXLEN = 500, 200


def write_labels(path):
    """The projector's metadata: one label per embedding row (token ids; 0-2 are reserved)."""
    names = ["<pad>", "<start>", "<oov>"] + [f"token {i}" for i in range(3, VOCABULARY)]
    with open(path, "w") as f:
        f.write("\n".join(names) + "\n")


def main(logdir="logs/imdb", epochs=5, seed=1):
    keras.utils.set_random_seed(seed)
    (x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(path=DATA,
                                                                         num_words=VOCABULARY)
    x_train = keras.utils.pad_sequences(x_train, maxlen=MAXLEN)
    x_test = keras.utils.pad_sequences(x_test, maxlen=MAXLEN)
    model = keras.Sequential([
        keras.Input(shape=(MAXLEN,), dtype="int32", name="tokens"),
        layers.Embedding(VOCABULARY, 16, name="embedding"),
        layers.GlobalAveragePooling1D(name="average"),
        layers.Dense(16, activation="relu", name="hidden"),
        layers.Dense(1, activation="sigmoid", name="sentiment"),
    ], name="imdb_bag_of_embeddings")
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    os.makedirs(logdir, exist_ok=True)
    write_labels(os.path.join(logdir, "labels.tsv"))
    board = keras.callbacks.TensorBoard(logdir, histogram_freq=1, embeddings_freq=1,
                                        embeddings_metadata="labels.tsv")
    history = model.fit(x_train, y_train, batch_size=32, epochs=epochs, validation_split=0.2,
                        callbacks=[board], verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}")
    draw(model, history, logdir)
    return accuracy


def draw(model, history, logdir):
    """Saves model.png (Graphviz) and curves.png (matplotlib) when those are installed."""
    try:
        keras.utils.plot_model(model, os.path.join(logdir, "model.png"), show_shapes=True,
                               show_layer_names=True, show_layer_activations=True)
        keras.utils.plot_history(history, path=os.path.join(logdir, "curves.png"))
        print(f"Pictures in {logdir}: model.png, curves.png")
    except ImportError as err:
        print(f"No pictures: {err}")


if __name__ == "__main__":
    main(*sys.argv[1:2])

"""Saves two distinct models over and over until killed (tests/faults/test_killed_saves.py).

    python save_worker.py FOLDER save        # model.save / save_weights in a loop
    python save_worker.py FOLDER checkpoint  # fit with ModelCheckpoint(save_freq=1) forever
    python save_worker.py FOLDER resave      # one more save (a later process): cleans leftovers

Writes FOLDER/ready once every file exists, so the killer knows saves are running.
"""
import os
import sys

import numpy as np

import kerasish as keras

NAMES = ("model.keras", "model.h5", "model.weights.h5")


def make_model(seed):
    """A model whose weights are all equal to `seed` (so any loaded file names its writer)."""
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(256),
                              keras.layers.Dense(64), keras.layers.Dense(4)])
    model.compile("adam", "mse")
    model.set_weights([np.full(w.shape, seed, w.dtype) for w in model.get_weights()])
    return model


def save(folder, model):
    for name in NAMES:
        path = os.path.join(folder, name)
        model.save_weights(path) if name.endswith(".weights.h5") else model.save(path)


def save_forever(folder):
    models = [make_model(1.0), make_model(2.0)]
    save(folder, models[0])
    open(os.path.join(folder, "ready"), "w").close()
    turn = 0
    while True:
        turn += 1
        save(folder, models[turn % 2])


def checkpoint_forever(folder):
    model = make_model(1.0)
    x = np.ones((64, 32), "float32")
    y = np.zeros((64, 4), "float32")
    checkpoint = keras.callbacks.ModelCheckpoint(os.path.join(folder, "ckpt.weights.h5"),
                                                 save_weights_only=True, save_freq=1)

    class Ready(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            open(os.path.join(folder, "ready"), "w").close()

    model.fit(x, y, batch_size=8, epochs=10 ** 6, verbose=0, callbacks=[checkpoint, Ready()])


if __name__ == "__main__":
    folder, mode = sys.argv[1:3]
    if mode == "save":
        save_forever(folder)
    elif mode == "checkpoint":
        checkpoint_forever(folder)
    else:
        save(folder, make_model(3.0))
        print("leftovers:", sorted(n for n in os.listdir(folder) if n.startswith(".tmp-")))

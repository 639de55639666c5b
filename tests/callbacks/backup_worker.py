"""A training run for the BackupAndRestore kill-and-resume tests (run as a script).

    python backup_worker.py BACKUP_DIR OUT.npz SAVE_FREQ KILL_AT [DOUBLE]

SAVE_FREQ is "epoch" or an integer; KILL_AT is "none" or "EPOCH:BATCH"
(0-based): the process SIGKILLs itself right after that batch, as a
crash or a pre-empted machine would. The run shuffles its batches, uses
Dropout with and without a seed, Adam and a decaying learning rate, so
every piece of training state matters. OUT.npz receives the final
weights, the optimizer iterations and the per-epoch losses.
"""
import os
import signal
import sys

import numpy as np

import kerasish as keras


class KillAt(keras.callbacks.Callback):
    """SIGKILLs this process after batch `batch` of epoch `epoch`."""

    def __init__(self, epoch, batch):
        super().__init__()
        self.target = (epoch, batch)
        self.epoch = None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.target:
            os.kill(os.getpid(), signal.SIGKILL)


def build():
    """The model and data of every run (seeded: each process starts alike)."""
    keras.utils.set_random_seed(7)
    data = np.random.default_rng(3)
    x = data.normal(size=(120, 8)).astype("float32")
    y = (x[:, :1] * 0.5 - x[:, 1:2] + 0.1 * data.normal(size=(120, 1))).astype("float32")
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.3), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.2, seed=5), keras.layers.Dense(1)])
    schedule = keras.optimizers.schedules.ExponentialDecay(0.01, decay_steps=4, decay_rate=0.9)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=schedule), loss="mse")
    return model, x, y


def main(backup_dir, out, save_freq, kill_at, double="0"):
    model, x, y = build()
    save_freq = save_freq if save_freq == "epoch" else int(save_freq)
    callbacks = [keras.callbacks.BackupAndRestore(backup_dir, save_freq=save_freq,
                                                  double_checkpoint=double == "1")]
    if kill_at != "none":
        callbacks.append(KillAt(*(int(v) for v in kill_at.split(":"))))
    history = model.fit(x, y, batch_size=8, epochs=4, shuffle=True, callbacks=callbacks,
                        verbose=0)
    np.savez(out, *model.get_weights(), iterations=int(model.optimizer.iterations.numpy()),
             loss=np.asarray(history.history["loss"]), epochs=np.asarray(history.epoch))


if __name__ == "__main__":
    main(*sys.argv[1:])

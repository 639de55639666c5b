"""The callbacks inside a real `fit` / `evaluate` / `predict`."""
import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.utils import progbar as progbar_module

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    x = rng.random((40, 4)).astype("float32")
    y = (x.sum(axis=1) > 2).astype("int32")
    return x, y


@pytest.fixture
def model():
    model = keras.Sequential([keras.layers.Input((4,)),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


@pytest.fixture
def frozen_clock(monkeypatch):
    monkeypatch.setattr(progbar_module, "_clock", lambda: 1000.0)


def _record_all_hooks():
    calls = []
    hooks = {}
    for name in ["on_train_begin", "on_train_end", "on_test_begin", "on_test_end"]:
        hooks[name] = (lambda n: lambda logs: calls.append(n))(name)
    for name in ["on_epoch_begin", "on_epoch_end", "on_train_batch_begin",
                 "on_train_batch_end", "on_test_batch_begin", "on_test_batch_end"]:
        hooks[name] = (lambda n: lambda index, logs=None: calls.append(f"{n} {index}"))(name)
    return calls, keras.callbacks.LambdaCallback(**hooks)


def test_fit_calls_hooks_in_keras_order(model, data):
    calls, recorder = _record_all_hooks()
    model.fit(*data, epochs=1, batch_size=64, validation_split=0.5, verbose=0,
              callbacks=[recorder])
    assert calls == ["on_train_begin", "on_epoch_begin 0", "on_train_batch_begin 0",
                     "on_train_batch_end 0", "on_test_begin", "on_test_batch_begin 0",
                     "on_test_batch_end 0", "on_test_end", "on_epoch_end 0", "on_train_end"]


def test_history_and_params(model, data):
    history = model.fit(*data, epochs=2, batch_size=16, validation_split=0.5, verbose=0)
    assert history is model.history
    assert list(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert history.epoch == [0, 1]
    assert history.params == {"verbose": 0, "epochs": 2, "steps": 2}


def test_early_stopping_stops_and_restores(model, data, capsys):
    weights_by_epoch = []
    snapshot = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: weights_by_epoch.append(model.get_weights()))
    # A min_delta no epoch can reach: the first epoch stays the best.
    stopper = keras.callbacks.EarlyStopping(monitor="loss", min_delta=100.0, patience=1,
                                            verbose=1, restore_best_weights=True)
    history = model.fit(*data, epochs=10, verbose=0, callbacks=[snapshot, stopper])
    assert history.epoch == [0, 1]
    assert capsys.readouterr().out == (
        "Epoch 2: early stopping\n"
        "Restoring model weights from the end of the best epoch: 1.\n")
    for restored, best in zip(model.get_weights(), weights_by_epoch[0]):
        np.testing.assert_array_equal(restored, best)


def test_auto_mode_reads_the_compiled_metric_direction(model, data):
    stopper = keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=3)
    model.fit(*data, epochs=1, validation_split=0.5, verbose=0, callbacks=[stopper])
    assert stopper.monitor_op is ops.greater


def test_reduce_lr_on_plateau_changes_the_optimizer(model, data, capsys):
    reduce_lr = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                                  min_delta=100.0, verbose=1)
    history = model.fit(*data, epochs=2, verbose=0, callbacks=[reduce_lr])
    assert history.history["learning_rate"] == [0.009999999776482582] * 2
    assert float(model.optimizer.learning_rate) == 0.004999999888241291
    assert capsys.readouterr().out == (
        "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.004999999888241291.\n")


def test_learning_rate_scheduler(model, data):
    scheduler = keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    history = model.fit(*data, epochs=2, verbose=0, callbacks=[scheduler])
    assert history.history["learning_rate"] == [0.10000000149011612, 0.05000000074505806]


def test_csv_logger_writes_the_real_logs(model, data, tmp_path):
    path = tmp_path / "log.csv"
    history = model.fit(*data, epochs=2, validation_split=0.5, verbose=0,
                        callbacks=[keras.callbacks.CSVLogger(path)])
    rows = path.read_text().splitlines()
    assert rows[0] == "epoch,accuracy,loss,val_accuracy,val_loss"
    assert rows[1] == "0," + ",".join(repr(history.history[k][0]) for k in
                                      ["accuracy", "loss", "val_accuracy", "val_loss"])
    assert len(rows) == 3


def test_progress_output_verbose_1_and_2(model, data, capsys, frozen_clock):
    model.fit(*data, epochs=2, batch_size=16, validation_split=0.5, verbose=1)
    lines = ANSI.sub("", capsys.readouterr().out).split("\n")
    assert lines[0] == "Epoch 1/2"
    assert re.fullmatch(r".*\r2/2 \u2501{20} 0s 0s/step - accuracy: \d\.\d{4} - loss: "
                        r"\d\.\d{4} - val_accuracy: \d\.\d{4} - val_loss: \d\.\d{4}", lines[1])
    assert lines[2] == "Epoch 2/2"
    model.fit(*data, epochs=1, batch_size=16, verbose=2)
    assert re.fullmatch(r"3/3 - 0s - 0s/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\n",
                        capsys.readouterr().out)


def test_evaluate_and_predict_bars(model, data, capsys, frozen_clock):
    model.evaluate(*data, batch_size=10, verbose=2)
    assert re.fullmatch(r"4/4 - 0s - 0s/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\n",
                        capsys.readouterr().out)
    model.predict(data[0], batch_size=10, verbose=2)
    assert capsys.readouterr().out == "4/4 - 0s - 0s/step\n"


def test_terminate_on_nan(model, data, capsys):
    x, y = data
    x = x.copy()
    x[20:] = np.nan
    history = model.fit(x, y, epochs=3, batch_size=10, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.TerminateOnNaN()])
    assert "Batch 2: Invalid loss, terminating training\n" in capsys.readouterr().out
    assert history.epoch == [0]


def test_swap_ema_weights_with_a_real_ema_optimizer(data):
    x, y = data
    model = keras.Sequential([keras.layers.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, use_ema=True), loss="mse")
    swap = keras.callbacks.SwapEMAWeights()
    swap.set_model(model)
    # train_on_batch: fit() ends by setting the weights to their averages (as Keras)
    for _ in range(3):
        model.train_on_batch(x, y.reshape(-1, 1).astype("float32"))
    optimizer = model.optimizer
    trained = [np.array(v) for v in optimizer._trainable_variables]
    averages = [np.array(v) for v in optimizer._model_variables_moving_average]
    assert not all(np.array_equal(t, a) for t, a in zip(trained, averages))
    swap.on_test_begin()
    for variable, average in zip(optimizer._trainable_variables, averages):
        np.testing.assert_array_equal(np.array(variable), average)
    swap.on_test_end()
    for variable, value in zip(optimizer._trainable_variables, trained):
        np.testing.assert_array_equal(np.array(variable), value)


def test_fit_with_ema_ends_with_the_moving_averages():
    # Keras's fit() calls optimizer.finalize_variable_values: SGD(lr=0.1) on
    # loss w**2 from w=1 gives w=0.9, 0.81; the EMA (momentum 0.9, the first
    # step copies the variable) is 0.9 * 0.9 + 0.1 * 0.81 = 0.891.
    model = keras.Sequential([keras.layers.Input((1,)),
                              keras.layers.Dense(2, kernel_initializer="ones", use_bias=False)])
    model.compile(loss="mse", optimizer=keras.optimizers.SGD(
        learning_rate=0.1, use_ema=True, ema_momentum=0.9))
    model.fit(np.ones((1, 1), "float32"), np.zeros((1, 2), "float32"), epochs=2, verbose=0)
    np.testing.assert_allclose(model.trainable_variables[0].numpy(), [[0.891, 0.891]], atol=1e-6)

"""History: per-epoch lists, epoch indices, params, model.history."""
from kerasish.callbacks import History


def test_history_records_every_epoch(fake_model, run_fit):
    logs = [{"accuracy": 0.4, "loss": 1.1, "val_accuracy": 0.3, "val_loss": 1.2},
            {"accuracy": 0.5, "loss": 1.0, "val_accuracy": 0.4, "val_loss": 1.1}]
    history = run_fit(fake_model, [], logs, steps=3, verbose=0)
    assert isinstance(history, History)
    assert history.history == {"accuracy": [0.4, 0.5], "loss": [1.1, 1.0],
                               "val_accuracy": [0.3, 0.4], "val_loss": [1.2, 1.1]}
    assert list(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert history.epoch == [0, 1]
    assert history.params == {"verbose": 0, "epochs": 2, "steps": 3}
    assert history.model is fake_model


def test_history_resets_epochs_but_keeps_values_when_reused(fake_model, run_fit):
    history = History()
    run_fit(fake_model, [history], [{"loss": 1.0}])
    run_fit(fake_model, [history], [{"loss": 0.5}])
    assert history.epoch == [0]
    assert history.history == {"loss": [1.0, 0.5]}


def test_history_sets_model_history_at_epoch_end(fake_model):
    history = History()
    history.set_model(fake_model)
    history.on_train_begin()
    history.on_epoch_end(0, {"loss": 1.0})
    assert fake_model.history is history


def test_history_before_training_is_empty():
    history = History()
    assert history.history == {}
    assert history.epoch == []


def test_history_keys_are_sorted_with_val_keys_mixed_in_as_keras():
    # Keras 3.15.1 fit(..., metrics=["accuracy"], weighted_metrics=["accuracy"],
    # validation_data=...) gave history keys ['accuracy', 'loss', 'val_accuracy',
    # 'val_loss', 'val_weighted_accuracy', 'weighted_accuracy'] (callbacks get
    # pythonified, i.e. sorted, logs).
    import numpy as np
    import kerasish as keras
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
    x, y = np.ones((10, 4), "float32"), np.arange(10) % 3
    sw = np.linspace(0.1, 1, 10).astype("float32")
    m.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"],
              weighted_metrics=["accuracy"])
    seen = []
    cb = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(list(logs)))
    history = m.fit(x, y, epochs=1, batch_size=5, verbose=0, sample_weight=sw,
                    validation_data=(x, y, sw), callbacks=[cb])
    expected = ["accuracy", "loss", "val_accuracy", "val_loss", "val_weighted_accuracy",
                "weighted_accuracy"]
    assert list(history.history) == expected and seen == [expected]

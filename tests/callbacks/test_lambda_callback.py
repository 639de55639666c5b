"""LambdaCallback: named hooks and any other hook by keyword."""
from kerasish.callbacks import LambdaCallback


def test_hooks_are_called_with_keras_arguments(fake_model, run_fit):
    calls = []
    callback = LambdaCallback(
        on_train_begin=lambda logs: calls.append(("train_begin", logs)),
        on_epoch_begin=lambda epoch, logs: calls.append(("epoch_begin", epoch)),
        on_train_batch_begin=lambda batch, logs: calls.append(("batch_begin", batch)),
        on_train_batch_end=lambda batch, logs: calls.append(("batch_end", batch, logs["loss"])),
        on_epoch_end=lambda epoch, logs: calls.append(("epoch_end", epoch, logs["val_loss"])),
        on_train_end=lambda logs: calls.append(("train_end", logs["loss"])),
        on_test_end=lambda logs: calls.append(("test_end", logs["loss"])),
    )
    run_fit(fake_model, [callback], [{"loss": 1.0, "val_loss": 2.0}], steps=2)
    assert calls == [
        ("train_begin", {}), ("epoch_begin", 0),
        ("batch_begin", 0), ("batch_end", 0, 1.0),
        ("batch_begin", 1), ("batch_end", 1, 1.0),
        ("test_end", 2.0), ("epoch_end", 0, 2.0), ("train_end", 1.0),
    ]


def test_unset_hooks_stay_no_ops(fake_model, run_fit):
    callback = LambdaCallback()
    run_fit(fake_model, [callback], [{"loss": 1.0}])
    assert callback.on_epoch_end(0, {}) is None


def test_callback_can_stop_training(fake_model, run_fit):
    def stop(epoch, logs):
        fake_model.stop_training = epoch == 1

    history = run_fit(fake_model, [LambdaCallback(on_epoch_end=stop)], [{"loss": 1.0}] * 5)
    assert history.epoch == [0, 1]

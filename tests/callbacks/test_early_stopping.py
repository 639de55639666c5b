"""EarlyStopping: patience, min_delta, mode, baseline, warm-up, restoring."""
import numpy as np
import pytest

from kerasish.callbacks import EarlyStopping


def _epochs_run(model, run_fit, callback, logs):
    return len(run_fit(model, [callback], logs).epoch)


@pytest.mark.parametrize("patience, values, expected_epochs", [
    (0, [1.0, 1.2, 0.1], 2),                     # stops at the first non-improvement
    (0, [1.0, 0.9, 0.8], 3),                     # never stops while improving
    (2, [1.0, 0.9, 0.95, 0.96, 0.97, 0.5], 4),   # two epochs without improvement
    (2, [1.0, 0.9, 0.95, 0.8, 0.85, 0.86], 6),   # an improvement resets the wait
])
def test_patience(fake_model, run_fit, make_logs, patience, values, expected_epochs):
    callback = EarlyStopping(patience=patience)
    assert _epochs_run(fake_model, run_fit, callback, make_logs(*values)) == expected_epochs


def test_first_epoch_never_stops(fake_model, run_fit, make_logs):
    callback = EarlyStopping(patience=0, baseline=0.1)
    assert _epochs_run(fake_model, run_fit, callback, make_logs(1.0, 1.0)) == 2
    assert callback.stopped_epoch == 1


def test_min_delta(fake_model, run_fit, make_logs):
    logs = make_logs(1.0, 0.95, 0.9)
    assert _epochs_run(fake_model, run_fit, EarlyStopping(patience=1), logs) == 3
    assert _epochs_run(fake_model, run_fit, EarlyStopping(patience=1, min_delta=0.1), logs) == 2


def test_auto_mode_maximises_accuracy(fake_model, run_fit, make_logs):
    logs = make_logs(0.5, 0.6, 0.55, 0.7, key="val_accuracy")
    callback = EarlyStopping(monitor="val_accuracy")
    assert _epochs_run(fake_model, run_fit, callback, logs) == 3
    assert callback.best == 0.6


def test_explicit_min_mode_on_accuracy(fake_model, run_fit, make_logs):
    logs = make_logs(0.5, 0.6, key="val_accuracy")
    assert _epochs_run(fake_model, run_fit, EarlyStopping("val_accuracy", mode="min"), logs) == 2


def test_baseline_keeps_the_wait_growing_until_beaten(fake_model, run_fit, make_logs):
    logs = make_logs(1.0, 1.0, 1.0, 1.0)
    assert _epochs_run(fake_model, run_fit, EarlyStopping(patience=2), logs) == 3
    assert _epochs_run(fake_model, run_fit, EarlyStopping(patience=2, baseline=0.5), logs) == 2


def test_beating_the_baseline_resets_the_wait(fake_model, run_fit, make_logs):
    callback = EarlyStopping(patience=1, baseline=0.5)
    assert _epochs_run(fake_model, run_fit, callback, make_logs(0.4, 0.45, 0.3)) == 2
    callback = EarlyStopping(patience=2, baseline=0.5)
    assert _epochs_run(fake_model, run_fit, callback, make_logs(0.4, 0.45, 0.3, 0.35)) == 4


def test_start_from_epoch_skips_warm_up(fake_model, run_fit, make_logs):
    logs = make_logs(1.0, 2.0, 3.0, 4.0, 5.0)
    assert _epochs_run(fake_model, run_fit, EarlyStopping(), logs) == 2
    callback = EarlyStopping(start_from_epoch=2)
    assert _epochs_run(fake_model, run_fit, callback, logs) == 4
    assert (callback.best, callback.best_epoch, callback.stopped_epoch) == (3.0, 2, 3)


def test_messages_and_restoring_best_weights(fake_model, run_fit, make_logs, capsys):
    callback = EarlyStopping(patience=2, verbose=1, restore_best_weights=True)
    history = run_fit(fake_model, [callback], make_logs(1.0, 0.5, 0.7, 0.8, 0.1))
    assert history.epoch == [0, 1, 2, 3]
    assert capsys.readouterr().out == (
        "Epoch 4: early stopping\n"
        "Restoring model weights from the end of the best epoch: 2.\n")
    np.testing.assert_array_equal(fake_model.get_weights()[0], [2.0, 2.0])


def test_best_weights_restored_even_without_stopping(fake_model, run_fit, make_logs, capsys):
    callback = EarlyStopping(patience=5, verbose=1, restore_best_weights=True)
    run_fit(fake_model, [callback], make_logs(1.0, 0.5, 0.7))
    assert capsys.readouterr().out == (
        "Restoring model weights from the end of the best epoch: 2.\n")
    np.testing.assert_array_equal(fake_model.get_weights()[0], [2.0, 2.0])


def test_weights_kept_without_restore_best_weights(fake_model, run_fit, make_logs, capsys):
    history = run_fit(fake_model, [EarlyStopping(patience=1)], make_logs(1.0, 0.5, 0.7, 0.8))
    assert history.epoch == [0, 1, 2]
    np.testing.assert_array_equal(fake_model.get_weights()[0], [3.0, 3.0])
    assert capsys.readouterr().out == ""


def test_restore_uses_first_monitored_epoch_when_nothing_beats_baseline(
        fake_model, run_fit, make_logs):
    callback = EarlyStopping(patience=2, baseline=0.1, restore_best_weights=True,
                             start_from_epoch=1)
    run_fit(fake_model, [callback], make_logs(5.0, 1.0, 2.0, 3.0))
    assert callback.best_epoch == 1
    np.testing.assert_array_equal(fake_model.get_weights()[0], [2.0, 2.0])


def test_missing_monitor_warns_and_never_stops(fake_model, run_fit):
    logs = [{"loss": 1.0}, {"loss": 2.0}]
    with pytest.warns(UserWarning, match="Early stopping conditioned on metric `val_loss` "
                                         "which is not available. Available metrics are: loss"):
        history = run_fit(fake_model, [EarlyStopping()], logs)
    assert history.epoch == [0, 1]


def test_unknown_metric_in_auto_mode_raises(fake_model, run_fit):
    with pytest.raises(ValueError, match="EarlyStopping callback received monitor=val_f1"):
        run_fit(fake_model, [EarlyStopping(monitor="val_f1")], [{"val_f1": 0.5}])


def test_reuse_across_fits_starts_afresh(fake_model, run_fit, make_logs):
    callback = EarlyStopping(patience=1)
    run_fit(fake_model, [callback], make_logs(0.1, 0.2, 0.3))
    assert callback.stopped_epoch == 1
    assert _epochs_run(fake_model, run_fit, callback, make_logs(1.0, 0.9, 0.8)) == 3
    assert (callback.stopped_epoch, callback.wait, callback.best) == (0, 0, 0.8)

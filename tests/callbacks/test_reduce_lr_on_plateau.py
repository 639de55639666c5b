"""ReduceLROnPlateau: patience, factor, min_lr, cooldown, min_delta, mode."""
import pytest

from kerasish.callbacks import ReduceLROnPlateau


def _rates(model, run_fit, callback, logs):
    return run_fit(model, [callback], logs).history["learning_rate"]


def test_reduces_after_patience_with_keras_message(fake_model, run_fit, make_logs, capsys):
    callback = ReduceLROnPlateau(factor=0.5, patience=1, verbose=1)
    rates = _rates(fake_model, run_fit, callback, make_logs(1.0, 1.0, 1.0))
    # Logged before the reduction of the same epoch, as in Keras.
    assert rates == [0.0010000000474974513] * 2 + [0.0005000000237487257]
    assert float(fake_model.optimizer.learning_rate) == 0.0002500000118743628
    assert capsys.readouterr().out == (
        "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.0005000000237487257.\n"
        "\nEpoch 3: ReduceLROnPlateau reducing learning rate to 0.0002500000118743628.\n")


def test_patience_counts_non_improving_epochs(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(factor=0.5, patience=2)
    rates = _rates(fake_model, run_fit, callback, make_logs(1.0, 1.0, 0.5, 0.6, 0.7, 0.8))
    assert rates == [0.0010000000474974513] * 5 + [0.0005000000237487257]


def test_min_delta_default_ignores_tiny_gains(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(factor=0.5, patience=1)
    _rates(fake_model, run_fit, callback, make_logs(1.0, 0.99995))
    assert float(fake_model.optimizer.learning_rate) == 0.0005000000237487257


def test_min_lr_is_a_floor(fake_model, run_fit, make_logs, capsys):
    callback = ReduceLROnPlateau(factor=0.1, patience=1, min_lr=0.0005, verbose=1)
    rates = _rates(fake_model, run_fit, callback, make_logs(1.0, 1.0, 1.0, 1.0))
    assert rates == [0.0010000000474974513] * 2 + [0.0005000000237487257] * 2
    assert capsys.readouterr().out == (
        "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.0005.\n")


def test_cooldown_pauses_counting(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(factor=0.5, patience=1, cooldown=2)
    rates = _rates(fake_model, run_fit, callback, make_logs(*[1.0] * 6))
    lr = 0.0010000000474974513
    # Keras counts the reduction epoch's next epoch as the first of the
    # cooldown and resumes counting in the epoch that ends it: reductions
    # at epochs 1, 3 and 5 (rates are logged before the reduction).
    assert rates == [lr, lr, lr / 2, lr / 2, lr / 4, lr / 4]
    assert float(fake_model.optimizer.learning_rate) == lr / 8


def test_without_cooldown_every_stalled_epoch_reduces(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(factor=0.5, patience=1)
    _rates(fake_model, run_fit, callback, make_logs(*[1.0] * 4))
    assert float(fake_model.optimizer.learning_rate) == 0.0010000000474974513 / 8


def test_auto_mode_maximises_accuracy(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(monitor="val_accuracy", factor=0.5, patience=1)
    _rates(fake_model, run_fit, callback, make_logs(0.5, 0.6, 0.7, key="val_accuracy"))
    assert float(fake_model.optimizer.learning_rate) == 0.0010000000474974513
    _rates(fake_model, run_fit, callback, make_logs(0.7, 0.6, key="val_accuracy"))
    assert float(fake_model.optimizer.learning_rate) == 0.0005000000237487257


def test_reuse_forgets_the_previous_best(fake_model, run_fit, make_logs):
    callback = ReduceLROnPlateau(factor=0.5, patience=1)
    _rates(fake_model, run_fit, callback, make_logs(0.1, 0.05))
    _rates(fake_model, run_fit, callback, make_logs(1.0, 0.5))
    assert float(fake_model.optimizer.learning_rate) == 0.0010000000474974513


def test_missing_monitor_warns_but_logs_rate(fake_model, run_fit):
    with pytest.warns(UserWarning, match="Learning rate reduction is conditioned on metric "
                                         "`val_loss` which is not available. Available "
                                         r"metrics are: loss,learning_rate\."):
        rates = _rates(fake_model, run_fit, ReduceLROnPlateau(), [{"loss": 1.0}])
    assert rates == [0.0010000000474974513]


def test_factor_must_be_below_one():
    with pytest.raises(ValueError, match="ReduceLROnPlateau does not support a factor "
                                         ">= 1.0. Received factor=1.0"):
        ReduceLROnPlateau(factor=1.0)


def test_schedule_optimizer_raises_on_reduction(fake_model, run_fit, make_logs):
    fake_model.optimizer.learning_rate = lambda step: 0.1
    callback = ReduceLROnPlateau(patience=1)
    with pytest.raises(TypeError, match="its learning rate is not settable"):
        run_fit(fake_model, [callback], make_logs(1.0, 1.0))


def test_unknown_kwargs_are_ignored():
    assert ReduceLROnPlateau(epsilon=1e-3).min_delta == 1e-4


def test_real_optimizer_with_schedule_logs_its_current_rate(fake_model, run_fit, make_logs):
    from kerasish import optimizers
    schedule = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    fake_model.optimizer = optimizers.SGD(learning_rate=schedule)
    rates = _rates(fake_model, run_fit, ReduceLROnPlateau(patience=5), make_logs(1.0, 1.0))
    assert rates == [0.10000000149011612] * 2

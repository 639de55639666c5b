"""LearningRateScheduler: schedule forms, logging, messages, errors."""
import numpy as np
import pytest

import kerasish
from kerasish.callbacks import LearningRateScheduler


def test_two_argument_schedule_sees_current_rate(fake_model, run_fit):
    seen = []

    def schedule(epoch, lr):
        seen.append((epoch, lr))
        return lr * 0.5

    history = run_fit(fake_model, [LearningRateScheduler(schedule)], [{"loss": 1.0}] * 3)
    assert seen == [(0, 0.0010000000474974513), (1, 0.0005000000237487257),
                    (2, 0.0002500000118743628)]
    assert history.history["learning_rate"] == [
        0.0005000000237487257, 0.0002500000118743628, 0.0001250000059371814]
    assert float(fake_model.optimizer.learning_rate) == 0.0001250000059371814


def test_one_argument_schedule(fake_model, run_fit):
    schedule = LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1))
    history = run_fit(fake_model, [schedule], [{"loss": 1.0}] * 2)
    assert history.history["learning_rate"] == [0.10000000149011612, 0.05000000074505806]


def test_learning_rate_variable_is_assigned_in_place(fake_model, run_fit):
    variable = fake_model.optimizer.learning_rate
    run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: 0.25)], [{"loss": 1.0}])
    assert fake_model.optimizer.learning_rate is variable
    assert float(variable) == 0.25


def test_numpy_float_results_are_accepted(fake_model, run_fit):
    run_fit(fake_model, [LearningRateScheduler(lambda e, lr: np.float32(0.5))], [{"loss": 1.0}])
    assert float(fake_model.optimizer.learning_rate) == 0.5


def test_verbose_message(fake_model, run_fit, capsys):
    callback = LearningRateScheduler(lambda epoch, lr: 0.01 * (epoch + 1), verbose=1)
    run_fit(fake_model, [callback], [{"loss": 1.0}] * 2)
    assert capsys.readouterr().out == (
        "\nEpoch 1: LearningRateScheduler setting learning rate to 0.01.\n"
        "\nEpoch 2: LearningRateScheduler setting learning rate to 0.02.\n")


@pytest.mark.parametrize("result", [1, "0.1", None])
def test_non_float_result_raises(fake_model, run_fit, result):
    with pytest.raises(ValueError, match="The output of the `schedule` function should "
                                         f"be a float. Got: {result}"):
        run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: result)], [{"loss": 1.0}])


def test_optimizer_with_schedule_cannot_be_set(fake_model, run_fit):
    fake_model.optimizer.learning_rate = lambda step: 0.1
    with pytest.raises(TypeError, match="created with a `LearningRateSchedule` object"):
        run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: 0.5)], [{"loss": 1.0}])


def test_plain_float_attribute_is_replaced(fake_model, run_fit):
    fake_model.optimizer.learning_rate = 0.1
    run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: lr / 2)], [{"loss": 1.0}])
    assert fake_model.optimizer.learning_rate == 0.05


def test_optimizer_without_learning_rate_raises(fake_model, run_fit):
    fake_model.optimizer = object()
    with pytest.raises(ValueError, match='Optimizer must have a "learning_rate" attribute.'):
        run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: 0.5)], [{"loss": 1.0}])


def test_multi_optimizer_sets_and_logs_each(fake_model, run_fit, capsys):
    class Inner:
        def __init__(self, name, lr):
            self.name, self.learning_rate = name, kerasish.Variable(lr)

    class Multi:
        optimizers = [Inner("adam", 0.5), Inner("sgd", 0.25)]

    fake_model.optimizer = Multi()
    callback = LearningRateScheduler(lambda epoch, lr: lr * 2, verbose=1)
    history = run_fit(fake_model, [callback], [{"loss": 1.0}])
    assert history.history["learning_rate_adam"] == [1.0]
    assert history.history["learning_rate_sgd"] == [0.5]
    assert capsys.readouterr().out == (
        "\nEpoch 1: LearningRateScheduler setting adam learning rate to 1.0.\n"
        "\nEpoch 1: LearningRateScheduler setting sgd learning rate to 0.5.\n")


def test_real_optimizer(fake_model, run_fit):
    from kerasish import optimizers
    fake_model.optimizer = optimizers.SGD(learning_rate=0.01)
    callback = LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    history = run_fit(fake_model, [callback], [{"loss": 1.0}] * 2)
    assert history.history["learning_rate"] == [0.004999999888241291, 0.0024999999441206455]


def test_real_optimizer_with_schedule_raises_keras_error(fake_model, run_fit):
    from kerasish import optimizers
    schedule = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    fake_model.optimizer = optimizers.SGD(learning_rate=schedule)
    with pytest.raises(TypeError, match="This optimizer was created with a "
                                        "`LearningRateSchedule` object as its `learning_rate` "
                                        "constructor argument, hence its learning rate is not "
                                        "settable."):
        run_fit(fake_model, [LearningRateScheduler(lambda epoch, lr: lr)], [{"loss": 1.0}])

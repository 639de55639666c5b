"""SwapEMAWeights: EMA weights in the model during evaluation only."""
import numpy as np
import pytest

import kerasish
from kerasish.callbacks import LambdaCallback, SwapEMAWeights


class EMAOptimizer:
    def __init__(self, use_ema=True):
        self.use_ema = use_ema
        self._trainable_variables = [kerasish.Variable(np.ones(2, "float32"))]
        if use_ema:
            self._model_variables_moving_average = [kerasish.Variable(np.zeros(2, "float32"))]


def _value(optimizer):
    return float(optimizer._trainable_variables[0][0])


def test_evaluation_sees_ema_weights_then_training_weights_return(fake_model):
    fake_model.optimizer = opt = EMAOptimizer()
    callback = SwapEMAWeights()
    callback.set_model(fake_model)
    callback.on_test_begin()
    assert _value(opt) == 0.0
    callback.on_test_end()
    assert _value(opt) == 1.0
    callback.on_predict_begin()
    assert _value(opt) == 0.0
    callback.on_predict_end()
    assert _value(opt) == 1.0
    assert float(opt._model_variables_moving_average[0][0]) == 0.0


def test_validation_inside_fit_uses_ema(fake_model, run_fit):
    fake_model.optimizer = opt = EMAOptimizer()
    seen = []
    probe = LambdaCallback(on_test_end=lambda logs: seen.append(_value(opt)),
                           on_epoch_end=lambda epoch, logs: seen.append(_value(opt)))
    # The probe runs before the swap-back of on_test_end.
    run_fit(fake_model, [probe, SwapEMAWeights()], [{"loss": 1.0, "val_loss": 1.0}])
    assert seen == [0.0, 1.0]


def test_swap_on_epoch_holds_ema_between_epochs_and_finalizes(fake_model, run_fit):
    fake_model.optimizer = opt = EMAOptimizer()
    seen = []
    probe = LambdaCallback(on_epoch_begin=lambda epoch, logs: seen.append(_value(opt)),
                           on_epoch_end=lambda epoch, logs: seen.append(_value(opt)))
    run_fit(fake_model, [SwapEMAWeights(swap_on_epoch=True), probe], [{"loss": 1.0}] * 2)
    assert seen == [1.0, 0.0, 1.0, 0.0]
    # After the last epoch the averages hold the EMA values again.
    assert float(opt._model_variables_moving_average[0][0]) == 0.0


def test_requires_an_ema_optimizer(fake_model):
    fake_model.optimizer = EMAOptimizer(use_ema=False)
    callback = SwapEMAWeights()
    callback.set_model(fake_model)
    with pytest.raises(ValueError, match="`use_ema=True` is set on the optimizer. "
                                         "Received: use_ema=False"):
        callback.on_test_begin()

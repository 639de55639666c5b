"""MonitorCallback: mode="auto" inference and the improvement test."""
import numpy as np
import pytest

from kerasish import ops
from kerasish.callbacks import MonitorCallback


def _prepared(model, **kwargs):
    callback = MonitorCallback(**kwargs)
    callback.set_model(model)
    callback._set_monitor_op()
    return callback


@pytest.mark.parametrize("monitor, op", [
    ("loss", ops.less), ("val_loss", ops.less),
    ("accuracy", ops.greater), ("val_accuracy", ops.greater),
    ("mae", ops.less), ("val_mae", ops.less),
])
def test_auto_mode_follows_loss_and_metric_direction(fake_model, monitor, op):
    assert _prepared(fake_model, monitor=monitor).monitor_op is op


def test_auto_mode_finds_top_level_metrics_too(fake_model, fake_metric):
    fake_model.metrics.append(fake_metric("auc", "up"))
    assert _prepared(fake_model, monitor="val_auc").monitor_op is ops.greater


def test_auto_mode_without_direction_asks_for_mode(fake_model):
    with pytest.raises(ValueError, match=r"MonitorCallback callback received "
                                         r"monitor=val_f1, but Keras isn't able"):
        _prepared(fake_model, monitor="val_f1")


def test_auto_mode_without_model_knows_only_loss():
    assert _prepared(None, monitor="val_loss").monitor_op is ops.less
    with pytest.raises(ValueError, match="Pass `mode='max'`"):
        _prepared(None, monitor="accuracy")


@pytest.mark.parametrize("mode, op", [("min", ops.less), ("max", ops.greater)])
def test_explicit_mode_wins(fake_model, mode, op):
    assert _prepared(fake_model, monitor="accuracy", mode=mode).monitor_op is op


def test_unknown_mode_warns_and_falls_back_to_auto():
    with pytest.warns(UserWarning, match="MonitorCallback mode 'best' is unknown, "
                                         "fallback to auto mode."):
        callback = MonitorCallback(mode="best")
    assert callback.mode == "auto"


def test_min_delta_must_be_exceeded():
    down = _prepared(None, monitor="loss", min_delta=0.25)
    assert down.min_delta == -0.25
    assert down._is_improvement(0.5, 1.0)
    assert not down._is_improvement(0.875, 1.0)
    assert not down._is_improvement(0.75, 1.0)  # a change of exactly min_delta
    up = _prepared(None, monitor="acc", mode="max", min_delta=-0.25)
    assert up.min_delta == 0.25
    assert up._is_improvement(1.0, 0.5)
    assert not up._is_improvement(0.75, 0.5)


def test_anything_beats_no_reference():
    callback = _prepared(None, monitor="loss")
    assert callback._is_improvement(5.0, None) is True
    assert callback._is_improvement(np.float32(1.0), 2.0) is True

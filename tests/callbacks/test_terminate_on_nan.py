"""TerminateOnNaN: graceful stop with Keras's message, or an immediate error."""
import math

import pytest

from kerasish.callbacks import LambdaCallback, TerminateOnNaN


def _batch_logs(bad_epoch, bad_batch, value):
    return lambda epoch, batch: {"loss": value if (epoch, batch) == (bad_epoch, bad_batch) else 0.5}


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_stops_gracefully_with_message(fake_model, run_fit, capsys, value):
    ended = []
    history = run_fit(fake_model, [TerminateOnNaN(), LambdaCallback(on_train_end=ended.append)],
                      [{"loss": 0.5}] * 3, steps=3, batch_logs=_batch_logs(1, 1, value))
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"
    assert fake_model.stop_training is True
    assert history.epoch == [0, 1]
    assert len(ended) == 1  # on_train_end of the other callbacks still ran


def test_finite_or_missing_loss_is_ignored(fake_model, run_fit, capsys):
    history = run_fit(fake_model, [TerminateOnNaN()], [{"accuracy": 0.5}, {"loss": 1e30}])
    assert history.epoch == [0, 1]
    assert capsys.readouterr().out == ""


def test_raise_error(fake_model, run_fit):
    ended = []
    with pytest.raises(RuntimeError, match=r"NaN or Inf loss encountered at batch 2\. "
                                           r"Loss value: nan\. Terminating training immediately\."):
        run_fit(fake_model, [TerminateOnNaN(raise_error=True),
                             LambdaCallback(on_train_end=ended.append)],
                [{"loss": 0.5}], steps=4, batch_logs=_batch_logs(0, 2, math.nan))
    assert ended == []

"""TerminateOnNaN: graceful stop with Keras's message, or an immediate error."""
import json
import math
import pathlib

import numpy as np
import pytest

import kerasish
from kerasish.callbacks import Callback, LambdaCallback, TerminateOnNaN


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


# Real fit against Keras 3.15.1 (tests/fixtures/callbacks/make_terminate_on_nan.py): the NaN
# batch's update is applied and training goes on unless TerminateOnNaN stops it after that batch.
_FIXTURE = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "callbacks"
                       / "terminate_on_nan.json").read_text())


class _Recorder(Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_batch_end(self, batch, logs=None):
        self.events.append([batch, {k: float(v) for k, v in sorted(logs.items())}])

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(["epoch_end", epoch, {k: float(v) for k, v in sorted(logs.items())}])


def _same(got, expected):
    """Nested lists/dicts of floats equal up to float32 rounding, NaN equal to NaN."""
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected)
        for k in expected:
            _same(got[k], expected[k])
    elif isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-5, nan_ok=True)
    else:
        assert got == expected


@pytest.mark.parametrize("scenario", _FIXTURE["scenarios"],
                         ids=lambda s: f"terminate{s['terminate']}-spe{s['steps_per_execution']}"
                                       f"-val{s['validation']}")
def test_fit_with_a_nan_batch_matches_keras(scenario, capsys):
    n = scenario["n"]
    x = (np.arange(n * 3, dtype="float32").reshape(n, 3) % 7) / 7.0
    y = x.sum(axis=1, keepdims=True) * 0.5
    y[scenario["nan_at"]] = np.nan
    model = kerasish.Sequential([kerasish.Input((3,)),
                                 kerasish.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=kerasish.optimizers.SGD(0.01), loss="mse",
                  steps_per_execution=scenario["steps_per_execution"])
    recorder = _Recorder()
    callbacks = [recorder] + ([TerminateOnNaN()] if scenario["terminate"] else [])
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False,
                        callbacks=callbacks,
                        validation_data=(x[:8], y[:8]) if scenario["validation"] else None)
    _same(recorder.events, scenario["events"])
    _same(history.history, scenario["history"])
    _same([w.tolist() for w in model.get_weights()], scenario["weights"])
    stopped_at = scenario["events"][-2][0]
    expected_out = f"Batch {stopped_at}: Invalid loss, terminating training\n"
    assert capsys.readouterr().out == (expected_out if scenario["terminate"] else "")

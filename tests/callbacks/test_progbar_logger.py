"""ProgbarLogger: what fit / evaluate / predict print (reference §3.1).

The progress bar's clock is replaced by a fake one that a callback placed
before the logger advances by 0.1 s per batch, so times print as
`100ms/step` and the output can be compared exactly.
"""
import re

import pytest

from kerasish.callbacks import CallbackList, LambdaCallback, ProgbarLogger
from kerasish.utils import progbar as progbar_module

BAR = "\u2501" * 20
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def tick(self, *args, **kwargs):
        self.now += 0.1


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(progbar_module, "_clock", fake)
    return fake


def screen(text):
    """What a terminal shows: ANSI removed, `\\r`/`\\b` applied, lines kept."""
    lines, line, col = [], [], 0
    for char in ANSI.sub("", text):
        if char == "\n":
            lines.append("".join(line).rstrip())
            line, col = [], 0
        elif char == "\r":
            col = 0
        elif char == "\b":
            col = max(col - 1, 0)
        else:
            line[col:col + 1] = [char]
            col += 1
    if line:
        lines.append("".join(line).rstrip())
    return lines


def _fit_output(run_fit, fake_model, capsys, clock, logs, **kwargs):
    ticker = LambdaCallback(on_train_batch_end=clock.tick)
    run_fit(fake_model, [ticker], logs, **kwargs)
    return capsys.readouterr().out


LOGS = [{"accuracy": 0.4125, "loss": 1.092, "val_accuracy": 0.4, "val_loss": 1.0776},
        {"accuracy": 0.4125, "loss": 1.0861, "val_accuracy": 0.4, "val_loss": 1.0796}]


def test_verbose_1_two_epochs(fake_model, run_fit, capsys, clock):
    out = _fit_output(run_fit, fake_model, capsys, clock, LOGS, steps=3, verbose=1)
    assert screen(out) == [
        "Epoch 1/2",
        f"3/3 {BAR} 0s 100ms/step - accuracy: 0.4125 - loss: 1.0920 - val_accuracy: 0.4000 - val_loss: 1.0776",
        "Epoch 2/2",
        f"3/3 {BAR} 0s 100ms/step - accuracy: 0.4125 - loss: 1.0861 - val_accuracy: 0.4000 - val_loss: 1.0796",
    ]


def test_verbose_1_exact_bytes_of_one_epoch(fake_model, run_fit, capsys, clock):
    out = _fit_output(run_fit, fake_model, capsys, clock, LOGS[:1], steps=3, verbose=1)
    metrics = " - accuracy: 0.4125 - loss: 1.0920"
    running = ("\r\x1b[1m{n}/3\x1b[0m \x1b[32m{done}\x1b[0m\x1b[37m{todo}\x1b[0m "
               "\x1b[1m0s\x1b[0m 100ms/step" + metrics)
    back = "\b" * 72  # visible width of the previous line
    assert out.split(back) == [
        # No "Epoch 1/1" line for a single epoch.
        running.format(n=1, done="\u2501" * 6, todo="\u2501" * 14),
        running.format(n=2, done="\u2501" * 13, todo="\u2501" * 7),
        running.format(n=3, done=BAR, todo=""),
        running.format(n=3, done=BAR, todo="")
        + " - val_accuracy: 0.4000 - val_loss: 1.0776\n",
    ]


def test_running_values_are_shown_as_given(fake_model, run_fit, capsys, clock):
    losses = {0: 3.0, 1: 2.0, 2: 1.0}
    out = _fit_output(run_fit, fake_model, capsys, clock, [{"loss": 1.5}], steps=3,
                      verbose=1, batch_logs=lambda epoch, batch: {"loss": losses[batch]})
    shown = re.findall(r"loss: (\d\.\d+)", ANSI.sub("", out))
    assert shown == ["3.0000", "2.0000", "1.0000", "1.5000"]


def test_verbose_2_one_line_per_epoch(fake_model, run_fit, capsys, clock):
    out = _fit_output(run_fit, fake_model, capsys, clock, LOGS, steps=3, verbose=2)
    assert out == (
        "Epoch 1/2\n"
        "3/3 - 0s - 100ms/step - accuracy: 0.4125 - loss: 1.0920 - val_accuracy: 0.4000 - val_loss: 1.0776\n"
        "Epoch 2/2\n"
        "3/3 - 0s - 100ms/step - accuracy: 0.4125 - loss: 1.0861 - val_accuracy: 0.4000 - val_loss: 1.0796\n")


def test_verbose_auto_means_1_and_0_prints_nothing(fake_model, run_fit, capsys, clock):
    logger = ProgbarLogger()
    logger.set_params({"verbose": "auto", "epochs": 1, "steps": 3})
    assert logger.verbose == 1
    assert _fit_output(run_fit, fake_model, capsys, clock, LOGS, steps=3, verbose=0) == ""


def test_unknown_steps_become_known_after_first_epoch(fake_model, run_fit, capsys, clock):
    out = _fit_output(run_fit, fake_model, capsys, clock, LOGS, steps=None, verbose=1)
    text = ANSI.sub("", out)
    assert "      1/Unknown 0s 100ms/step - accuracy: 0.4125 - loss: 1.0920" in text
    assert "      2/Unknown" in text
    assert "Unknown" not in text.split("Epoch 2/2")[1]
    assert screen(out) == [
        "Epoch 1/2",
        f"2/2 {BAR} 0s 100ms/step - accuracy: 0.4125 - loss: 1.0920 - val_accuracy: 0.4000 - val_loss: 1.0776",
        "Epoch 2/2",
        f"2/2 {BAR} 0s 100ms/step - accuracy: 0.4125 - loss: 1.0861 - val_accuracy: 0.4000 - val_loss: 1.0796",
    ]


def _evaluate_output(capsys, clock, verbose):
    callbacks = CallbackList([LambdaCallback(on_test_batch_end=clock.tick)],
                             add_progbar=True, verbose=verbose, epochs=1, steps=4)
    callbacks.on_test_begin()
    for batch in range(4):
        callbacks.on_test_batch_begin(batch)
        callbacks.on_test_batch_end(batch, {"accuracy": 0.41, "loss": 1.0718})
    callbacks.on_test_end({"accuracy": 0.41, "loss": 1.0718})
    return capsys.readouterr().out


def test_evaluate_bar(capsys, clock):
    assert screen(_evaluate_output(capsys, clock, 1)) == [
        f"4/4 {BAR} 0s 100ms/step - accuracy: 0.4100 - loss: 1.0718"]
    assert _evaluate_output(capsys, clock, 2) == (
        "4/4 - 0s - 100ms/step - accuracy: 0.4100 - loss: 1.0718\n")


def _predict_output(capsys, clock, verbose):
    callbacks = CallbackList([LambdaCallback(on_predict_batch_end=clock.tick)],
                             add_progbar=True, verbose=verbose, epochs=1, steps=4)
    callbacks.on_predict_begin()
    for batch in range(4):
        callbacks.on_predict_batch_begin(batch)
        callbacks.on_predict_batch_end(batch, {"outputs": [[0.5]]})
    callbacks.on_predict_end()
    return capsys.readouterr().out


def test_predict_bar_has_no_metrics(capsys, clock):
    assert screen(_predict_output(capsys, clock, 1)) == [f"4/4 {BAR} 0s 100ms/step"]
    assert _predict_output(capsys, clock, 2) == "4/4 - 0s - 100ms/step\n"


def test_small_values_use_exponent_notation(fake_model, run_fit, capsys, clock):
    out = _fit_output(run_fit, fake_model, capsys, clock, [{"loss": 1.23e-4}],
                      steps=1, verbose=2)
    assert out == "1/1 - 0s - 100ms/step - loss: 1.2300e-04\n"

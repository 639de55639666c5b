"""Progress bar bytes: compared with what Keras 3.15.1 writes (reference §3.1).

Redrawing in place (`\\b…\\r`) is what Keras does on any POSIX system, so
these tests expect it.
"""
import io
import sys

import pytest

from kerasish.utils import progbar as progbar_module
from kerasish.utils.progbar import Progbar, write

B = "\x1b[1m"
R = "\x1b[0m"
FULL_BAR = "\x1b[32m" + "━" * 20 + R + "\x1b[37m" + R


class FakeClock:
    """A settable time source standing in for `time.time`."""

    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(progbar_module, "_clock", fake)
    return fake


def _bar(done, width=20):
    return ("\x1b[32m" + "━" * done + R if done else "") + (
        "\x1b[37m" + "━" * (width - done) + R)


def test_fit_epoch_matches_keras_bytes(clock, capsys):
    # ProgbarLogger in fit: values shown as given, step 3 drawn twice (batch
    # end, then epoch end with the validation logs).
    bar = Progbar(3, stateless_metrics=set())
    start = clock.now
    clock.now = start + 0.017
    bar.update(1, [("accuracy", 0.34375), ("loss", 1.10512)], finalize=False)
    clock.now = start + 0.040
    bar.update(2, [("accuracy", 0.4), ("loss", 1.1)], finalize=False)
    train_logs = [("accuracy", 0.4125), ("loss", 1.09204)]
    clock.now = start + 0.017 + 0.068
    bar.update(3, train_logs, finalize=False)
    clock.now = start + 0.017 + 0.116
    bar.update(3, train_logs + [("val_accuracy", 0.4), ("val_loss", 1.07761)],
               finalize=True)
    out = capsys.readouterr().out
    assert out == (
        "\r\x1b[1m1/3\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m"
        " \x1b[1m0s\x1b[0m 17ms/step - accuracy: 0.3438 - loss: 1.1051"
        + "\b" * 71 +
        "\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m"
        " \x1b[1m0s\x1b[0m 34ms/step - accuracy: 0.4125 - loss: 1.0920"
        + "\b" * 71 +
        "\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m"
        " \x1b[1m0s\x1b[0m 58ms/step - accuracy: 0.4125 - loss: 1.0920"
        " - val_accuracy: 0.4000 - val_loss: 1.0776\n"
    )


def test_evaluate_final_line(clock, capsys):
    bar = Progbar(4, stateless_metrics=set())
    clock.now += 0.016
    bar.update(4, [("accuracy", 0.41), ("loss", 1.0718)], finalize=True)
    assert capsys.readouterr().out == (
        f"\r{B}4/4{R} {FULL_BAR} {B}0s{R} 4ms/step"
        " - accuracy: 0.4100 - loss: 1.0718\n")


def test_predict_final_line_has_no_metrics(clock, capsys):
    bar = Progbar(4)
    clock.now += 0.008
    bar.update(4)
    assert capsys.readouterr().out == f"\r{B}4/4{R} {FULL_BAR} {B}0s{R} 2ms/step\n"


def test_verbose_2_writes_one_line_when_finalized(clock, capsys):
    bar = Progbar(4, verbose=2, stateless_metrics=set())
    start = clock.now
    for step in (1, 2, 3):
        clock.now = start + 0.01 * step
        bar.update(step, [("accuracy", 0.4), ("loss", 1.0)])
    assert capsys.readouterr().out == ""
    # 18 ms for each of steps 2-4 (the first step is left out).
    clock.now = start + 0.01 + 3 * 0.018
    logs = [("accuracy", 0.41), ("loss", 1.0804), ("val_accuracy", 0.3),
            ("val_loss", 1.0978)]
    bar.update(4, logs, finalize=True)
    assert capsys.readouterr().out == (
        "4/4 - 0s - 18ms/step - accuracy: 0.4100 - loss: 1.0804"
        " - val_accuracy: 0.3000 - val_loss: 1.0978\n")


def test_verbose_2_evaluate_and_predict_lines(clock, capsys):
    bar = Progbar(4, verbose=2)
    clock.now += 0.028
    bar.update(4, [("accuracy", 0.41), ("loss", 1.0718)])
    bar = Progbar(4, verbose=2)
    clock.now += 0.012
    bar.update(4)
    assert capsys.readouterr().out == (
        "4/4 - 0s - 7ms/step - accuracy: 0.4100 - loss: 1.0718\n"
        "4/4 - 0s - 3ms/step\n")


def test_verbose_2_uses_signed_threshold(clock, capsys):
    bar = Progbar(1, verbose=2)
    bar.update(1, [("loss", -0.5)])
    bar = Progbar(1, verbose=1)
    bar.update(1, [("loss", -0.5)])
    lines = capsys.readouterr().out.split("\n")
    assert lines[0] == "1/1 - 0s - 0s/step - loss: -5.0000e-01"
    assert lines[1].endswith(" - loss: -0.5000")


def test_verbose_0_is_silent(clock, capsys):
    bar = Progbar(2, verbose=0)
    bar.update(1, [("loss", 1.0)])
    bar.update(2, [("loss", 1.0)])
    assert capsys.readouterr().out == ""


def test_unknown_target(clock, capsys):
    bar = Progbar(None, stateless_metrics=set())
    clock.now += 0.007
    bar.update(1, [("loss", 1.0845)])
    assert capsys.readouterr().out == (
        f"\r      1/Unknown {B}0s{R} 7ms/step - loss: 1.0845")
    clock.now += 2.0
    bar.update(2, [("loss", 1.0)])
    # No ETA without a target: the elapsed time is shown; `Unknown` never
    # finalizes by itself.
    assert capsys.readouterr().out == (
        "\b" * 42 + f"\r      2/Unknown {B}2s{R} 2s/step - loss: 1.0000 ")


@pytest.mark.parametrize("target, eta", [
    (10, "9s"), (100, "1:39"), (10000, "2:46:39")])
def test_eta_formats(clock, capsys, target, eta):
    bar = Progbar(target)
    clock.now += 1.0
    bar.update(1)
    digits = len(str(target))
    count = "1".rjust(digits) + f"/{target}"
    done = int(20 * 1 / target)
    assert capsys.readouterr().out == (
        f"\r{B}{count}{R} {_bar(done)} {B}{eta}{R} 1s/step")


@pytest.mark.parametrize("seconds, text", [
    (1.2, "1s/step"), (0.0123, "12ms/step"), (0.0005, "500us/step")])
def test_time_per_step_units(clock, capsys, seconds, text):
    bar = Progbar(1)
    clock.now += seconds
    bar.update(1)
    assert capsys.readouterr().out.endswith(f" {text}\n")


def test_step_zero_shows_zero_seconds_per_step(clock, capsys):
    bar = Progbar(5)
    clock.now += 3.0
    bar.update(0)
    assert capsys.readouterr().out == f"\r{B}0/5{R} {_bar(0)} {B}0s{R} 0s/step"


def test_per_step_time_leaves_out_first_step(clock, capsys):
    bar = Progbar(10, interval=0)
    clock.now += 5.0
    bar.update(1)
    clock.now += 0.2
    bar.update(3)
    # (0.2 s for steps 2-3) / 2, not 5.2 s / 3; ETA = 0.1 s * 7 steps.
    assert capsys.readouterr().out.endswith(f"{B}0s{R} 100ms/step")


def test_count_is_padded_to_target_digits(clock, capsys):
    bar = Progbar(1875, interval=0)
    bar.update(1)
    bar.update(937)
    out = capsys.readouterr().out
    assert f"\r{B}   1/1875{R} " in out
    assert f"\r{B} 937/1875{R} {_bar(9)} " in out


def test_metric_number_formats(clock, capsys):
    bar = Progbar(1, stateful_metrics=["a", "b", "c"])
    bar.update(1, [("a", 0.000123), ("b", 0.001), ("c", 12.3456789)])
    assert capsys.readouterr().out.endswith(
        " - a: 1.2300e-04 - b: 1.0000e-03 - c: 12.3457\n")


def test_values_are_averaged_over_steps(clock, capsys):
    bar = Progbar(10, interval=0)
    bar.update(1, [("loss", 1.0)])
    bar.update(3, [("loss", 2.0)])
    assert capsys.readouterr().out.endswith(" - loss: 1.6667")
    bar.add(1, [("loss", 4.0)])
    assert capsys.readouterr().out.endswith(" - loss: 2.2500")


def test_stateful_metrics_are_shown_as_given(clock, capsys):
    bar = Progbar(10, interval=0, stateful_metrics=["acc"])
    bar.update(1, [("acc", 0.5), ("loss", 1.0)])
    bar.update(2, [("acc", 0.25), ("loss", 3.0)])
    assert capsys.readouterr().out.endswith(" - acc: 0.2500 - loss: 2.0000")


def test_stateless_metrics_are_the_only_averaged_ones(clock, capsys):
    bar = Progbar(10, interval=0, stateless_metrics=["loss"])
    bar.update(1, [("acc", 0.5), ("loss", 1.0)])
    bar.update(2, [("acc", 0.25), ("loss", 3.0)])
    assert capsys.readouterr().out.endswith(" - acc: 0.2500 - loss: 2.0000")


def test_finalizing_update_shows_its_values_as_given(clock, capsys):
    bar = Progbar(2, interval=0)
    bar.update(1, [("loss", 1.0)])
    bar.update(2, [("loss", 3.0)])
    assert capsys.readouterr().out.endswith(" - loss: 3.0000\n")


def test_updates_are_throttled_except_the_last(clock, capsys):
    bar = Progbar(4)
    clock.now += 0.1
    bar.update(1)
    clock.now += 0.01
    bar.update(2)
    clock.now += 0.01
    bar.update(3)
    assert capsys.readouterr().out.count("\r") == 1
    clock.now += 0.01
    bar.update(4)
    # "1/4 " + 20-char bar + " 0s" + " 100ms/step" = 38 visible characters.
    assert capsys.readouterr().out.startswith("\b" * 38 + f"\r{B}4/4{R}")


def test_shorter_line_is_padded_to_previous_width(clock, capsys):
    bar = Progbar(2, interval=0, stateful_metrics=["m"])
    bar.update(1, [("m", 123456.0)])
    first = capsys.readouterr().out
    bar.update(1, [("m", 1.0)])
    second = capsys.readouterr().out
    escape_chars = 8 + 9 + 9 + 8  # count, green, white, time
    assert second.startswith("\b" * (len(first) - 1 - escape_chars) + "\r")
    assert second.endswith(" - m: 1.0000" + " " * 5)


def test_finalize_defaults_to_reaching_target(clock, capsys):
    bar = Progbar(3, interval=0)
    bar.update(2)
    assert not capsys.readouterr().out.endswith("\n")
    bar.update(3)
    assert capsys.readouterr().out.endswith("\n")


def test_custom_width_and_unit_name(clock, capsys):
    bar = Progbar(4, width=8, unit_name="sample")
    clock.now += 0.4
    bar.update(2)
    assert capsys.readouterr().out == (
        f"\r{B}2/4{R} {_bar(4, width=8)} {B}0s{R} 200ms/sample")


def test_rejects_both_metric_lists():
    with pytest.raises(ValueError, match="Only one off `stateful_metrics`"):
        Progbar(1, stateful_metrics=["a"], stateless_metrics=["b"])


def test_write_falls_back_when_stdout_cannot_encode(monkeypatch):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stdout", stream)
    write("1/1 ━━ 0s\n")
    stream.flush()
    assert raw.getvalue() == b"1/1 == 0s\n"


def test_deferred_values_are_read_only_when_the_bar_redraws(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progbar_module, "_clock", lambda: now[0])
    reads = []

    def values():
        reads.append(1)
        return [("loss", 0.5)]

    bar = progbar_module.Progbar(4, verbose=1, stateless_metrics=set(), interval=10.0)
    bar.update(1, values)        # first draw: _last_update is 0
    bar.update(2, values)        # within the interval: not drawn, not read
    now[0] += 20.0
    bar.update(3, values)        # interval passed: drawn and read
    bar.update(4, values)        # finalize: always read
    assert len(reads) == 3


def test_deferred_values_are_read_every_step_when_averaged():
    reads = []

    def values():
        reads.append(1)
        return [("loss", 0.5)]

    bar = progbar_module.Progbar(3, verbose=0)
    for step in (1, 2, 3):
        bar.update(step, values)
    assert len(reads) == 3 and bar._average("loss") == 0.5

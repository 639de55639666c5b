"""Progress bar of fit / evaluate / predict, byte for byte as Keras 3 prints it.

Mirrors the behaviour of `keras/src/utils/progbar.py`: a bold step counter,
a 20-character green/white bar, the ETA (or elapsed time once finalized), the
time per step and the metrics, redrawn in place on one line.
"""
import math
import os
import re
import sys
import time

import numpy as np

from kerasish.backend import switches
from kerasish.utils import io_utils

# Time source in seconds; tests replace it to get deterministic output.
_clock = time.time

_BOLD = "\x1b[1m"
_GREEN = "\x1b[32m"
_WHITE = "\x1b[37m"
_RESET = "\x1b[0m"
_BAR_CHAR = "\u2501"
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def write(message):
    """Writes a message to stdout and flushes it.

    On a stdout whose encoding cannot represent the bar character, the
    message is written with `=` for it instead of failing.

    Args:
        message: str, written as is (no newline is added).

    Returns:
        None.

    Example:
        >>> write("3/3 - 0s\\n")
        3/3 - 0s
    """
    if not switches.is_interactive_logging_enabled():
        text = _ANSI_ESCAPE.sub("", message).replace("\b", "").strip("\r\n ")
        if text:
            io_utils.print_msg(text.split("\r")[-1])
        return
    try:
        sys.stdout.write(message)
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding or "ascii"
        message = message.replace(_BAR_CHAR, "=")
        sys.stdout.write(
            message.encode(encoding, errors="ignore").decode(encoding))
    sys.stdout.flush()


def _dynamic_display_available():
    # Keras redraws in place on any POSIX system, even when piped.
    return (
        (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
        or "ipykernel" in sys.modules
        or "posix" in sys.modules
        or "PYCHARM_HOSTED" in os.environ
    )


def _visible_length(text):
    return len(_ANSI_ESCAPE.sub("", text))


def _format_eta(eta):
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


def _format_time_per_unit(seconds, unit_name):
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit_name}"
    return f" {seconds * 1e6:.0f}us/{unit_name}"


class Progbar:
    """Displays a progress bar, as `keras.utils.Progbar`.

    Unless named in `stateful_metrics` (or, when `stateless_metrics` is given,
    unless named there), values are averaged over the steps seen so far.

    Args:
        target: total number of steps expected, None if unknown.
        width: bar width in characters.
        verbose: 0 (silent), 1 (bar redrawn in place), 2 (one line when
            finalized).
        interval: minimum seconds between two redraws (the final one is
            always drawn).
        stateful_metrics: names of metrics shown as given, not averaged.
        stateless_metrics: names of the only metrics to average; all others
            are shown as given. Mutually exclusive with `stateful_metrics`.
        unit_name: name of a step in the time-per-step field.

    Example:
        >>> bar = Progbar(3)
        >>> for step in range(1, 4):
        ...     bar.update(step, [("loss", 0.5)])
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05,
                 stateful_metrics=None, stateless_metrics=None,
                 unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            # Keras's message, kept word for word.
            raise ValueError(
                "Only one off `stateful_metrics` metrics or "
                "`stateless_metrics` must be provided. `stateful_metrics` is "
                "used to have metrics be stateless by default with an "
                "exclusion list. `stateless_metrics` is used to have metrics "
                "be statefull by default with an exclusion list."
            )
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateless_metrics = (
            None if stateless_metrics is None else set(stateless_metrics))
        self.stateful_metrics = (
            None if stateless_metrics is not None
            else set(stateful_metrics or ()))
        self._dynamic_display = _dynamic_display_available()
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = _clock()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def update(self, current, values=None, finalize=None):
        """Records progress up to step `current` and redraws the bar.

        Args:
            current: index of the current step (1-based count of steps done).
            values: list of `(name, value)` pairs for the last step.
            finalize: whether this is the last update; defaults to
                `current >= target` (never, when the target is unknown).

        Returns:
            None.

        Example:
            >>> bar = Progbar(2, verbose=2)
            >>> bar.update(2, [("loss", 0.25)])
            2/2 - 0s - 0s/step - loss: 0.2500
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._record_values(current, values or [], finalize)
        now = _clock()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw_line(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize and self._has_target():
            write(self._summary_line(current, now, time_per_unit))
        self._last_update = now

    def add(self, n, values=None):
        """Advances the bar by `n` steps.

        Args:
            n: number of steps done since the last update.
            values: list of `(name, value)` pairs, as for `update`.

        Returns:
            None.

        Example:
            >>> bar = Progbar(10, verbose=0)
            >>> bar.add(5)
        """
        self.update(self._seen_so_far + n, values)

    def _has_target(self):
        return self.target is not None and self.target > 0

    def _is_averaged(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _record_values(self, current, values, finalize):
        """Keeps a `[weighted sum, weight]` pair per metric."""
        for name, value in values:
            if name not in self._values_order:
                self._values_order.append(name)
            if not self._is_averaged(name) or finalize:
                # Keras shows every value of a finalizing update as given:
                # it carries the epoch's result, not one more step.
                self._values[name] = [value, 1]
                continue
            # At least 1 so that a repeated step (unknown target: batch end
            # then epoch end) still counts.
            steps = max(current - self._seen_so_far, 1)
            if name in self._values:
                self._values[name][0] += value * steps
                self._values[name][1] += steps
            else:
                self._values[name] = [value * steps, steps]
        self._seen_so_far = current

    def _average(self, name):
        total, count = self._values[name]
        if not isinstance(total, float):
            total = np.mean(total)
        return total / max(1, count)

    def _metrics_text(self, absolute):
        # Keras tests |value| for verbose=1 but the signed value for
        # verbose=2, so a negative metric prints in `e` notation only there.
        text = ""
        for name in self._values_order:
            avg = self._average(name)
            size = abs(avg) if absolute else avg
            spec = ".4f" if size > 1e-3 else ".4e"
            text += f" - {name}: {avg:{spec}}"
        return text

    def _count_text(self, current):
        digits = int(math.log10(self.target)) + 1
        return f"%{digits}d/%d" % (current, self.target)

    def _bar_text(self, current):
        if not self._has_target():
            return "%7d/Unknown" % current
        done = int(self.width * (float(current) / self.target))
        bar = f"{_BOLD}{self._count_text(current)}{_RESET} "
        if done > 0:
            bar += f"{_GREEN}{_BAR_CHAR * done}{_RESET}"
        return bar + f"{_WHITE}{_BAR_CHAR * (self.width - done)}{_RESET}"

    def _time_text(self, current, now, time_per_unit, finalize):
        if self._has_target() and not finalize:
            shown = _format_eta(time_per_unit * (self.target - current))
        else:
            shown = f"{now - self._start:.0f}s"
        return f" {_BOLD}{shown}{_RESET}" + _format_time_per_unit(
            time_per_unit, self.unit_name)

    def _draw_line(self, current, now, time_per_unit, finalize):
        if self._dynamic_display:
            message = "\b" * self._prev_total_width + "\r"
        else:
            message = "\n"
        line = (self._bar_text(current)
                + self._time_text(current, now, time_per_unit, finalize)
                + self._metrics_text(absolute=True))
        total_width = _visible_length(line)
        line += " " * max(self._prev_total_width - total_width, 0)
        if finalize:
            line += "\n"
        write(message + line)
        self._prev_total_width = total_width

    def _summary_line(self, current, now, time_per_unit):
        return (f"{self._count_text(current)} - {now - self._start:.0f}s -"
                + _format_time_per_unit(time_per_unit, self.unit_name)
                + self._metrics_text(absolute=False) + "\n")

    def _estimate_step_duration(self, current, now):
        """Seconds per step, leaving out the (slow) first step when possible."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit

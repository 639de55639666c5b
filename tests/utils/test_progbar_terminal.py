"""The progress bar seen on a real terminal (a pty) and in a file, shaped as Keras 3.15.1's.

Keras writes the same ANSI-styled, in-place (`\\r` + backspaces) updates whether stdout
is a terminal or a file (its dynamic display is on whenever `posix` is loaded), and
`verbose=2` one plain line per epoch; these tests pin that shape with the time fields
left free.
"""
import os
import pty
import re
import subprocess
import sys

import pytest

PROGRAM = """
import numpy as np
import kerasish as keras
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((64, 3)), np.zeros((64, 1)), epochs=2, batch_size=8, verbose={verbose})
"""
BOLD, GREEN, WHITE, RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"
FULL_BAR = (re.escape(f"{BOLD}8/8{RESET} {GREEN}" + "━" * 20 + f"{RESET}{WHITE}{RESET} {BOLD}")
            + r"\d+s" + re.escape(RESET) + r" \d+(us|ms|s)/step - loss: \d\.\d{4} *")
FIRST_UPDATE = (re.escape(f"\r{BOLD}1/8{RESET} {GREEN}━━{RESET}{WHITE}" + "━" * 18 + RESET)
                + re.escape(f" {BOLD}") + r"\d+s" + re.escape(RESET)
                + r" \d+(us|ms|s)/step - loss: \d\.\d{4}\x08+")


def _run_in_pty(verbose):
    main, secondary = pty.openpty()
    env = dict(os.environ, COLUMNS="100")
    process = subprocess.Popen([sys.executable, "-c", PROGRAM.format(verbose=verbose)],
                               stdout=secondary, stderr=subprocess.PIPE, env=env)
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    assert process.wait(timeout=120) == 0, process.stderr.read().decode()
    return output.decode()


def _run_to_file(verbose, tmp_path):
    path = tmp_path / "out.txt"
    with open(path, "w") as f:
        subprocess.run([sys.executable, "-c", PROGRAM.format(verbose=verbose)], stdout=f,
                       check=True, timeout=120)
    return path.read_text()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")
def test_terminal_updates_in_place_and_ends_each_epoch_like_keras():
    text = _run_in_pty(verbose=1)
    epochs = text.split("Epoch ")[1:]
    assert [e.split("\r\n")[0] for e in epochs] == ["1/2", "2/2"]
    for epoch in epochs:
        body = epoch.split("\r\n", 1)[1]
        assert re.match(FIRST_UPDATE, body), repr(body)
        final = body.split("\r")[-2]  # the last in-place rewrite before the newline
        assert re.fullmatch(FULL_BAR, final), repr(final)
        assert body.endswith("\r\n")


def test_verbose_2_prints_one_plain_line_per_epoch(tmp_path):
    lines = _run_to_file(verbose=2, tmp_path=tmp_path).splitlines()
    assert lines[0::2] == ["Epoch 1/2", "Epoch 2/2"]
    for line in lines[1::2]:
        assert re.fullmatch(r"8/8 - \d+s - \d+(us|ms|s)/step - loss: \d\.\d{4}(e-\d\d)?", line)


def test_file_output_has_the_same_shape_as_the_terminal(tmp_path):
    text = _run_to_file(verbose=1, tmp_path=tmp_path)
    finals = [chunk.split("\r")[-1] for chunk in text.split("\n") if "8/8" in chunk]
    assert len(finals) == 2
    assert all(re.fullmatch(FULL_BAR, line) for line in finals), finals


def test_verbose_0_prints_nothing(tmp_path):
    assert _run_to_file(verbose=0, tmp_path=tmp_path) == ""

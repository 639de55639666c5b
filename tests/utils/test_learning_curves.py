"""keras.utils.plot_history draws one panel per metric with train/validation lines per run."""
import sys

import numpy as np
import pytest

import kerasish as keras

pytest.importorskip("matplotlib", reason="the `plot` extra (matplotlib) is not installed")


def _lines(ax):
    return {line.get_label(): line.get_ydata().tolist() for line in ax.get_lines()}


def test_panels_and_lines_follow_the_history(tmp_path):
    history = {"loss": [1.0, 0.5], "val_loss": [1.2, 0.7], "accuracy": [0.5, 0.8],
               "val_accuracy": [0.4, 0.7]}
    figure = keras.utils.plot_history(history, path=str(tmp_path / "curves.png"))
    loss, accuracy = figure.axes
    assert loss.get_title() == "loss" and accuracy.get_title() == "accuracy"
    assert _lines(loss) == {"train": [1.0, 0.5], "validation": [1.2, 0.7]}
    assert (tmp_path / "curves.png").read_bytes().startswith(b"\x89PNG")


def test_several_runs_and_a_real_fit():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = np.ones((8, 3)), np.zeros((8, 1))
    first = model.fit(x, y, epochs=2, verbose=0)
    second = model.fit(x, y, epochs=3, verbose=0)
    figure = keras.utils.plot_history({"a": first, "b": second}, metrics=["mae"])
    (ax,) = figure.axes
    assert _lines(ax) == {"a train": first.history["mae"], "b train": second.history["mae"]}


def test_empty_history_is_a_clear_error():
    with pytest.raises(ValueError, match="no metrics to plot"):
        keras.utils.plot_history({})


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"kerasish\[plot\]"):
        keras.utils.plot_history({"loss": [1.0]})

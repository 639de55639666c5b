"""Traceback filtering drops kerasish's frames from user errors, and can be switched off."""
import traceback

import numpy as np
import pytest

import kerasish as keras
from kerasish.utils import traceback_utils


def _frames(error):
    return [frame.filename for frame in traceback.extract_tb(error.__traceback__)]


def _fails():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    return traceback_utils.filter_traceback(model.predict)(np.ones((2, 4)))


def test_internal_frames_are_dropped():
    with pytest.raises(ValueError) as info:
        _fails()
    frames = _frames(info.value)
    internal = [f for f in frames if "/kerasish/" in f]
    assert internal == [traceback_utils.__file__], frames  # only the re-raise, as in Keras
    assert frames[0] == __file__


def test_disabled_filtering_keeps_every_frame():
    keras.config.disable_traceback_filtering()
    try:
        with pytest.raises(ValueError) as info:
            _fails()
    finally:
        keras.config.enable_traceback_filtering()
    assert any("/kerasish/" in f for f in _frames(info.value))

"""keras.visualization's draw functions against fixtures made with real Keras 3.15.1.

tests/fixtures/visualization/make_fixtures.py generated visualization.json.
Keras's `draw_bounding_boxes` draws with OpenCV; the fixture replaced Keras's
`cv2` by `RecordingCV2` (imported from that script), and these tests give
kerasish the same stand-in, so they check every OpenCV call (points, colour,
thickness, label text and position) and the uint8 images handed to it.
"""
import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "visualization"
CASES = json.loads((FIXTURES / "visualization.json").read_text())["cases"]


def _recording_cv2_class():
    """`RecordingCV2` from the generator script (its keras imports are not run)."""
    source = (FIXTURES / "make_fixtures.py").read_text()
    start = source.index("class RecordingCV2")
    end = source.index("\ndef enc")
    namespace = {"np": np}
    exec(source[start:end], namespace)  # noqa: S102 - our own committed test helper
    return namespace["RecordingCV2"]


RecordingCV2 = _recording_cv2_class()


def decode(x):
    if isinstance(x, list):
        return [decode(v) for v in x]
    if not isinstance(x, dict):
        return x
    if "array" in x:
        return np.array(x["array"], dtype=x["dtype"]).reshape(x["shape"])
    if "tuple" in x:
        return tuple(decode(v) for v in x["tuple"])
    if "dict" in x:
        items = {(int(k) if x.get("int_keys") else k): decode(v) for k, v in x["dict"].items()}
        return items
    return {k: decode(v) for k, v in x.items()}


def _run(index, monkeypatch):
    case = CASES[index]
    fake = RecordingCV2()
    monkeypatch.setitem(sys.modules, "cv2", fake)
    fn = getattr(keras.visualization, case["fn"])
    args, kwargs = decode(case["args"]), decode(case["kwargs"])
    where = f"case {index} {case['fn']}"
    if "error" in case:
        error = {"ValueError": ValueError, "TypeError": TypeError}[case["error"]["type"]]
        with pytest.raises(error) as info:
            fn(*args, **kwargs)
        assert str(info.value) == case["error"]["text"], where
    else:
        got = fn(*args, **kwargs)
        want = case["out"]
        assert isinstance(got, np.ndarray) == want["numpy"], where
        got = ops.convert_to_numpy(got)
        assert str(got.dtype) == want["dtype"], where
        np.testing.assert_array_equal(got, np.array(want["array"]).reshape(want["shape"]),
                                      err_msg=where)
    assert json.loads(json.dumps(fake.calls)) == case["cv2_calls"], where


@pytest.mark.parametrize("fn", ["draw_bounding_boxes", "draw_segmentation_masks"])
def test_matches_keras(fn, monkeypatch):
    indices = [i for i, case in enumerate(CASES) if case["fn"] == fn]
    assert len(indices) >= 8
    for index in indices:
        _run(index, monkeypatch)


def test_draw_bounding_boxes_without_opencv_raises_keras_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cv2", None)  # makes `import cv2` fail
    with pytest.raises(ImportError) as info:
        keras.visualization.draw_bounding_boxes(
            np.zeros((1, 4, 4, 3)), {"boxes": np.zeros((1, 1, 4)), "labels": np.zeros((1, 1))},
            "xyxy")
    assert str(info.value) == ("The `draw_bounding_boxes` function requires the `cv2` "
                               "package  (OpenCV). Please install it with "
                               "`pip install opencv-python`.")


@pytest.mark.skipif(importlib.util.find_spec("cv2") is None, reason="needs OpenCV")
def test_draw_bounding_boxes_with_real_opencv_draws_the_box():
    images = np.zeros((1, 16, 16, 3), "uint8")
    out = keras.visualization.draw_bounding_boxes(
        images, {"boxes": np.array([[[2., 3., 10., 12.]]]), "labels": np.array([[0]])},
        "xyxy", color=(255, 0, 0), line_thickness=1)
    assert out.dtype == np.uint8 and out.shape == images.shape
    assert tuple(out[0, 3, 5]) == (255, 0, 0) and tuple(out[0, 7, 6]) == (0, 0, 0)

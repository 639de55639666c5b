"""keras.utils.bounding_boxes against fixtures made with real Keras 3.15.1.

tests/fixtures/bounding_boxes/make_fixtures.py generated bounding_boxes.json:
each case holds a call's arguments and Keras's output or error.
"""
import json
import pathlib

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.utils import bounding_boxes as bb

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "bounding_boxes"
CASES = json.loads((FIXTURES / "bounding_boxes.json").read_text())["cases"]


def decode(x):
    if isinstance(x, dict) and "dict" in x:
        return {k: decode(v) for k, v in x["dict"].items()}
    if isinstance(x, dict) and "array" in x:
        return np.array(x["array"], dtype=x["dtype"]).reshape(x["shape"])
    if isinstance(x, list):
        return [decode(v) for v in x]
    if isinstance(x, dict):
        return {k: decode(v) for k, v in x.items()}
    return x


def assert_matches(got, want, where):
    if "dict" in want:
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(want["dict"]), where
        for key, value in want["dict"].items():
            assert_matches(got[key], value, f"{where}[{key}]")
        return
    got = ops.convert_to_numpy(got)
    assert list(got.shape) == want["shape"], where
    assert str(got.dtype) == want["dtype"], where
    np.testing.assert_allclose(got, np.array(want["array"], "float64").reshape(want["shape"]),
                               rtol=1e-5, atol=2e-5, err_msg=where)


def _case_id(index):
    case = CASES[index]
    return f"case {index} {case['fn']}" + (" (error)" if "error" in case else "")


def _check_case(index):
    case = CASES[index]
    fn = getattr(keras.utils.bounding_boxes, case["fn"])
    args, kwargs = decode(case["args"]), decode(case["kwargs"])
    if "image_shape" in kwargs:  # a tuple in Keras's call, a list once in json
        kwargs["image_shape"] = tuple(kwargs["image_shape"])
    if "error" in case:
        error = {"ValueError": ValueError, "NotImplementedError": NotImplementedError}
        with pytest.raises(error[case["error"]["type"]]) as info:
            fn(*args, **kwargs)
        assert str(info.value) == case["error"]["text"], _case_id(index)
    else:
        assert_matches(fn(*args, **kwargs), case["out"], _case_id(index))


# One test per function (the per-test setup costs more than a case).
@pytest.mark.parametrize("fn", sorted({case["fn"] for case in CASES}))
def test_matches_keras(fn):
    indices = [i for i, case in enumerate(CASES) if case["fn"] == fn]
    assert indices
    for index in indices:
        _check_case(index)


def test_convert_format_updates_the_dict_in_place_as_keras():
    boxes = {"boxes": np.array([[1., 2., 3., 4.]]), "labels": np.array([7])}
    out = bb.convert_format(boxes, "xyxy", "xywh")
    assert out is boxes
    np.testing.assert_allclose(ops.convert_to_numpy(boxes["boxes"]), [[1, 2, 2, 2]])


def test_clip_to_image_size_returns_a_new_dict():
    boxes = {"boxes": np.array([[-1., 2., 30., 4.]]), "labels": np.array([7])}
    out = bb.clip_to_image_size(boxes, height=10, width=10)
    assert out is not boxes and boxes["boxes"][0, 0] == -1


def test_round_trip_through_every_format():
    boxes = np.array([[[3., 5., 40., 21.], [0., 0., 1., 1.]]])
    for fmt in ("yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
                "rel_xywh", "rel_center_xywh"):
        there = bb.convert_format(boxes, "xyxy", fmt, height=50, width=60, dtype="float64")
        back = bb.convert_format(there, fmt, "xyxy", height=50, width=60, dtype="float64")
        np.testing.assert_allclose(ops.convert_to_numpy(back), boxes, rtol=1e-12)


def test_decode_inverts_encode():
    anchors = np.array([[0., 0., 10., 20.], [5., 5., 25., 15.]])
    boxes = np.array([[1., 2., 12., 18.], [4., 7., 30., 14.]])
    deltas = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy", variance=[.1, .1, .2, .2])
    back = bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy", variance=[.1, .1, .2, .2])
    np.testing.assert_allclose(ops.convert_to_numpy(back), boxes, rtol=1e-5)


def _fd_check(fn, x, rtol=2e-2, atol=1e-3, h=1e-2):
    """Gradient of sum(fn(x)) on the tape against central differences."""
    x = np.asarray(x, "float64")
    xt = keras.Variable(x, dtype="float32")
    with keras.GradientTape() as tape:
        y = ops.sum(fn(xt))
    grad = ops.convert_to_numpy(tape.gradient(y, xt))
    fd = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        f = lambda v: float(ops.convert_to_numpy(ops.sum(fn(v.astype("float32")))))
        fd[i] = (f(x + step) - f(x - step)) / (2 * h)
    assert np.any(grad != 0)
    np.testing.assert_allclose(grad, fd, rtol=rtol, atol=atol)


def test_compute_ciou_is_differentiable():
    target = np.array([[2., 3., 12., 9.], [0., 0., 6., 5.]], "float32")
    _fd_check(lambda b: bb.compute_ciou(b, target, "xyxy"),
              [[1., 2., 10., 11.], [1., 1., 7., 4.]])


def test_compute_iou_is_differentiable():
    others = np.array([[2., 3., 12., 9.], [0., 0., 6., 5.]], "float32")
    _fd_check(lambda b: bb.compute_iou(b, others, "xyxy"),
              [[1., 2., 10., 11.], [1., 1., 7., 4.]])


def test_encode_box_to_deltas_is_differentiable():
    anchors = np.array([[0., 0., 10., 20.], [5., 5., 25., 15.]], "float32")
    _fd_check(lambda b: bb.encode_box_to_deltas(anchors, b, "xyxy", "center_xywh"),
              [[1., 2., 12., 18.], [4., 7., 30., 14.]])


def test_public_names_match_keras():
    assert sorted(n for n in dir(keras.utils.bounding_boxes) if not n.startswith("_") and
                  callable(getattr(keras.utils.bounding_boxes, n))) == [
        "affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
        "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]


def test_affine_transform_is_differentiable():
    zero = np.zeros(1, "float32")
    params = dict(angle=np.array([20.], "float32"), translate_x=zero + 0.1, translate_y=zero,
                  scale=np.ones(1, "float32"), shear_x=zero, shear_y=zero + 5.0, height=40,
                  width=50)
    _fd_check(lambda b: bb.affine_transform(b, **params) * np.array([1., 2., 3., 4.]),
              [[[3., 4., 20., 30.], [10., 2., 14., 9.]]])


def test_decode_deltas_to_boxes_is_differentiable():
    anchors = np.array([[0., 0., 10., 20.], [5., 5., 25., 15.]], "float32")
    _fd_check(lambda d: bb.decode_deltas_to_boxes(anchors, d, "xyxy", "xywh")
              * np.array([1., 2., 3., 4.]), [[.1, -.2, .3, .05], [0., .4, -.1, .2]])


def test_tensor_inputs_give_the_numpy_results():
    boxes = np.array([[[1., 2., 30., 40.], [-1., -1., -1., -1.]]], "float32")
    others = np.array([[[0., 0., 20., 20.]]], "float32")
    for fn in (lambda b: bb.convert_format(b, "xyxy", "rel_center_xywh", height=50, width=60),
               lambda b: bb.crop(b, 2, 3, 20, 25),
               lambda b: bb.compute_iou(b, others, "xyxy", use_masking=True),
               lambda b: bb.clip_to_image_size({"boxes": b, "labels": np.array([[1, 2]])},
                                               height=30, width=30)["boxes"]):
        np.testing.assert_array_equal(ops.convert_to_numpy(fn(ops.convert_to_tensor(boxes))),
                                      ops.convert_to_numpy(fn(boxes)))

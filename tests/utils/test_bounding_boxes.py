"""keras.utils.bounding_boxes against Keras 3.15.1 (fixtures/utils/bounding_boxes.npz,
written by make_bounding_boxes.py)."""
import os

import numpy as np
import pytest

import kerasish as keras

bb = keras.utils.bounding_boxes
F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "utils",
                         "bounding_boxes.npz"))
BOXES, ANCHORS = F["boxes"], F["anchors"]
FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")


def _close(key, value, tol=1e-5):
    value = np.asarray(value)
    assert value.shape == F[key].shape and value.dtype == F[key].dtype, key
    np.testing.assert_allclose(value, F[key], rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("source", FORMATS)
def test_convert_format_matches_keras(source):
    for target in FORMATS:
        _close(f"convert_{source}_{target}",
               bb.convert_format(BOXES, source=source, target=target, height=80, width=100))
    _close("convert_float64", bb.convert_format(BOXES[0], "xyxy", "center_yxhw",
                                                dtype="float64"))


def test_clip_crop_pad_and_affine_match_keras():
    labels = np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], "int32")
    clipped = bb.clip_to_image_size({"boxes": BOXES * 1.3 - 10, "labels": labels},
                                    height=70, width=90)
    _close("clip_boxes", clipped["boxes"])
    _close("clip_labels", clipped["labels"])
    _close("clip_rel", bb.clip_to_image_size({"boxes": BOXES / 90 - 0.1},
                                             bounding_box_format="rel_xyxy")["boxes"])
    angle = np.array([15.0, -30.0], "float32")
    _close("affine", bb.affine_transform(
        BOXES, angle, np.array([0.1, -0.05], "float32"), np.array([0.0, 0.2], "float32"),
        np.array([1.2, 0.9], "float32"), np.array([5.0, 0.0], "float32"),
        np.array([0.0, -10.0], "float32"), height=80, width=100), tol=1e-4)
    _close("affine_center", bb.affine_transform(
        BOXES, angle, np.zeros(2, "float32"), np.zeros(2, "float32"), np.ones(2, "float32"),
        np.zeros(2, "float32"), np.zeros(2, "float32"), height=80, width=100, center_x=0.2,
        center_y=0.7), tol=1e-4)
    _close("crop", bb.crop(BOXES, top=10, left=20, height=40, width=30))
    _close("pad", bb.pad(BOXES, top=5, left=7))


def test_deltas_match_keras_and_invert():
    _close("encode", bb.encode_box_to_deltas(ANCHORS, BOXES[0], "xyxy", "xyxy"))
    _close("encode_var", bb.encode_box_to_deltas(
        ANCHORS, BOXES, "xyxy", "rel_xyxy", encoding_format="center_xywh",
        variance=[0.1, 0.1, 0.2, 0.2], image_shape=(80, 100, 3)), tol=1e-4)
    _close("decode", bb.decode_deltas_to_boxes(ANCHORS, F["encode"], "xyxy", "xyxy"), tol=1e-4)
    _close("decode_var", bb.decode_deltas_to_boxes(
        ANCHORS, F["encode_var"], "xyxy", "yxyx", encoded_format="center_xywh",
        variance=[0.1, 0.1, 0.2, 0.2], image_shape=(80, 100, 3)), tol=1e-4)
    levels = bb.decode_deltas_to_boxes({"p3": ANCHORS}, {"p3": F["encode"]}, "xyxy", "xyxy")
    np.testing.assert_allclose(np.asarray(levels["p3"]), BOXES[0], rtol=1e-4, atol=1e-3)


def test_iou_and_ciou_match_keras():
    _close("iou", bb.compute_iou(BOXES[0], ANCHORS, "xyxy"))
    _close("iou_batched", bb.compute_iou(BOXES, BOXES, "xyxy", use_masking=True, mask_val=-3))
    _close("iou_rel", bb.compute_iou(BOXES[0] / 100, ANCHORS / 100, "rel_yxyx",
                                     image_shape=(80, 100, 3)))
    _close("ciou", bb.compute_ciou(BOXES[0], ANCHORS, "xyxy"))
    _close("ciou_center", bb.compute_ciou(BOXES, BOXES[::-1], "center_xywh"))


def test_bad_arguments():
    with pytest.raises(ValueError, match="last dimension of 4"):
        bb.convert_format(np.zeros((2, 3)), "xyxy", "xywh")
    with pytest.raises(ValueError, match="must receive `height` and `width`"):
        bb.convert_format(BOXES, "xyxy", "rel_xyxy")
    with pytest.raises(ValueError, match="Invalid source or target format"):
        bb.convert_format(BOXES, "xyxy", "corners")
    with pytest.raises(ValueError, match="`variance` must be length 4"):
        bb.encode_box_to_deltas(ANCHORS, BOXES[0], "xyxy", "xyxy", variance=[1.0, 1.0])
    with pytest.raises(NotImplementedError, match="only the 'xyxy' format"):
        bb.crop(BOXES, 0, 0, 10, 10, bounding_box_format="yxyx")

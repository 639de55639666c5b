"""`keras.utils.bounding_boxes`: bounding-box formats, geometry, deltas and IoU, as Keras 3.15.1.

Formats (case-insensitive): "xyxy" [left, top, right, bottom], "yxyx",
"xywh" [left, top, width, height], "center_xywh", "center_yxhw", and the
relative "rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh" (coordinates
divided by the image width and height). Every function is written with
`keras.ops`, so boxes may be arrays or tensors, `(N, 4)` or `(batch, N, 4)`.
"""
import math

from kerasish import ops
from kerasish.backend import config

SUPPORTED_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy",
                     "rel_yxyx", "rel_xywh", "rel_center_xywh")


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """Converts boxes from the `source` format to the `target` format.

    Args:
        boxes: `(..., 4)` boxes, or a dict whose "boxes" entry holds them (the
            dict is updated and returned, as Keras does).
        source, target: format names (see the module docstring).
        height, width: the image size (required when a format is relative).
        dtype: the dtype of the result.

    Returns:
        the converted boxes (or the dict).

    Example:
        >>> keras.utils.bounding_boxes.convert_format(
        ...     np.array([[10, 20, 30, 40]]), source="xyxy", target="xywh")
        ... # [[10., 20., 20., 20.]]
    """
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height=height,
                                        width=width, dtype=dtype)
        return boxes
    shape = tuple(ops.shape(boxes))
    if shape[-1] != 4:
        raise ValueError("`boxes` must be a tensor with the last dimension of 4. Received: "
                         f"boxes.shape={shape}")
    source, target = source.lower(), target.lower()
    if source not in SUPPORTED_FORMATS or target not in SUPPORTED_FORMATS:
        raise ValueError(f"Invalid source or target format. Supported formats: "
                         f"{SUPPORTED_FORMATS}")
    if (source.startswith("rel_") or target.startswith("rel_")) and \
            (width is None or height is None):
        raise ValueError("convert_format() must receive `height` and `width` transforming "
                         f"between relative and absolute formats.convert_format() received "
                         f"source=`{source}`, target=`{target}, but height={height} and "
                         f"width={width}.")
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    width = None if width is None else ops.cast(width, dtype)
    height = None if height is None else ops.cast(height, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    return _FROM_XYXY[target](_TO_XYXY[source](boxes, height, width), height, width)


def _split(boxes):
    return ops.split(boxes, 4, axis=-1)


def _join(parts):
    return ops.concatenate(parts, axis=-1)


def _center_to_xyxy(cx, cy, w, h):
    return _join([cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0])


def _to_xyxy_rel_center(boxes, height, width):
    cx, cy, w, h = _split(boxes)
    return _join([(cx - w / 2.0) * width, (cy - h / 2.0) * height, (cx + w / 2.0) * width,
                  (cy + h / 2.0) * height])


def _to_xyxy_rel_xywh(boxes, height, width):
    x1, y1, w, h = _split(boxes)
    return _join([x1 * width, y1 * height, (x1 + w) * width, (y1 + h) * height])


def _from_xyxy_rel(order):
    def convert(boxes, height, width):
        x1, y1, x2, y2 = _split(boxes)
        values = {"x1": ops.divide(x1, width), "y1": ops.divide(y1, height),
                  "x2": ops.divide(x2, width), "y2": ops.divide(y2, height)}
        return _join([values[k] for k in order])
    return convert


def _from_xyxy_rel_xywh(boxes, height, width):
    x1, y1, x2, y2 = _split(boxes)
    return _join([x1 / width, y1 / height, (x2 - x1) / width, (y2 - y1) / height])


def _from_xyxy_rel_center(boxes, height, width):
    x1, y1, x2, y2 = _split(boxes)
    return _join([(x1 + ((x2 - x1) / 2.0)) / width, (y1 + ((y2 - y1) / 2.0)) / height,
                  (x2 - x1) / width, (y2 - y1) / height])


def _from_xyxy_center(order):
    def convert(boxes, height, width):
        x1, y1, x2, y2 = _split(boxes)
        values = {"cx": x1 + ((x2 - x1) / 2.0), "cy": y1 + ((y2 - y1) / 2.0),
                  "w": x2 - x1, "h": y2 - y1}
        return _join([values[k] for k in order])
    return convert


def _yxyx_to_xyxy(boxes, height, width):
    y1, x1, y2, x2 = _split(boxes)
    return _join([x1, y1, x2, y2])


def _xywh_to_xyxy(boxes, height, width):
    x1, y1, w, h = _split(boxes)
    return _join([x1, y1, x1 + w, y1 + h])


def _center_xywh_to_xyxy(boxes, height, width):
    cx, cy, w, h = _split(boxes)
    return _center_to_xyxy(cx, cy, w, h)


def _center_yxhw_to_xyxy(boxes, height, width):
    cy, cx, h, w = _split(boxes)
    return _center_to_xyxy(cx, cy, w, h)


def _rel_xyxy_to_xyxy(boxes, height, width):
    x1, y1, x2, y2 = _split(boxes)
    return _join([x1 * width, y1 * height, x2 * width, y2 * height])


def _rel_yxyx_to_xyxy(boxes, height, width):
    y1, x1, y2, x2 = _split(boxes)
    return _join([x1 * width, y1 * height, x2 * width, y2 * height])


def _xyxy_to_yxyx(boxes, height, width):
    x1, y1, x2, y2 = _split(boxes)
    return _join([y1, x1, y2, x2])


def _xyxy_to_xywh(boxes, height, width):
    x1, y1, x2, y2 = _split(boxes)
    return _join([x1, y1, x2 - x1, y2 - y1])


def _same(boxes, height, width):
    return boxes


_TO_XYXY = {"xyxy": _same, "yxyx": _yxyx_to_xyxy, "xywh": _xywh_to_xyxy,
            "center_xywh": _center_xywh_to_xyxy, "center_yxhw": _center_yxhw_to_xyxy,
            "rel_xyxy": _rel_xyxy_to_xyxy, "rel_yxyx": _rel_yxyx_to_xyxy,
            "rel_xywh": _to_xyxy_rel_xywh, "rel_center_xywh": _to_xyxy_rel_center}
_FROM_XYXY = {"xyxy": _same, "yxyx": _xyxy_to_yxyx, "xywh": _xyxy_to_xywh,
              "center_xywh": _from_xyxy_center(("cx", "cy", "w", "h")),
              "center_yxhw": _from_xyxy_center(("cy", "cx", "h", "w")),
              "rel_xyxy": _from_xyxy_rel(("x1", "y1", "x2", "y2")),
              "rel_yxyx": _from_xyxy_rel(("y1", "x1", "y2", "x2")),
              "rel_xywh": _from_xyxy_rel_xywh, "rel_center_xywh": _from_xyxy_rel_center}


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """Clips boxes to the image; labels of boxes left with no area become -1.

    Args:
        bounding_boxes: dict with "boxes" `(N, 4)` or `(batch, N, 4)` and optional "labels".
        height, width: the image size (required for "xyxy").
        bounding_box_format: "xyxy" or "rel_xyxy" (clipped to [0, 1]).

    Returns:
        a new dict with the clipped "boxes" (and "labels").

    Example:
        >>> keras.utils.bounding_boxes.clip_to_image_size(
        ...     {"boxes": np.array([[-10., -20., 150., 160.]]), "labels": np.array([0])},
        ...     height=100, width=120)["boxes"]
        ... # [[0., 0., 120., 100.]]
    """
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(
            "clip_to_image_size: only the 'xyxy' and 'rel_xyxy' formats are supported (as "
            f"Keras). Received: bounding_box_format={bounding_box_format!r}")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = ops.convert_to_tensor(bounding_boxes["boxes"])
    labels = bounding_boxes.get("labels", None)
    if bounding_box_format == "xyxy":
        high_x, high_y = ops.cast(width, boxes.dtype), ops.cast(height, boxes.dtype)
    else:
        high_x = high_y = 1.0
    x1, y1, x2, y2 = _split(boxes)
    boxes = _join([ops.clip(x1, 0, high_x), ops.clip(y1, 0, high_y), ops.clip(x2, 0, high_x),
                   ops.clip(y2, 0, high_y)])
    result = dict(bounding_boxes)
    result["boxes"] = boxes
    if labels is not None:
        x1, y1, x2, y2 = _split(boxes)
        areas = ops.squeeze((x2 - x1) * (y2 - y1), axis=-1)
        result["labels"] = ops.where(areas > 0, labels, -1)
    return result


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None, bounding_box_format="xyxy"):
    """Moves `(batch, N, 4)` "xyxy" boxes by the affine transform of Keras's image layers.

    The four corners go through the inverse of the transform the image layers
    sample with (rotation `angle` and shears in degrees, translations and the
    centre as fractions of the image), and the result is their bounding box.

    Args:
        boxes: `(batch, N, 4)` boxes.
        angle, translate_x, translate_y, scale, shear_x, shear_y: `(batch,)` tensors.
        height, width: the image size.
        center_x, center_y: the centre as fractions (0.5 by default).
        bounding_box_format: "xyxy" only (as Keras).

    Returns:
        `(batch, N, 4)` boxes.
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError("affine_transform: only the 'xyxy' format is supported "
                                  f"(as Keras). Received: {bounding_box_format!r}")
    batch, count = ops.shape(boxes)[0], ops.shape(boxes)[1]
    matrix = _inverse_affine_matrix(0.5 if center_x is None else center_x,
                                    0.5 if center_y is None else center_y, angle, translate_x,
                                    translate_y, scale, shear_x, shear_y, height, width)
    boxes = ops.cast(boxes, matrix.dtype)
    transposed = ops.transpose(matrix[:, :2, :], [0, 2, 1])
    points = ops.stack([boxes[..., 0], boxes[..., 1], boxes[..., 2], boxes[..., 1],
                        boxes[..., 2], boxes[..., 3], boxes[..., 0], boxes[..., 3]], axis=-1)
    points = ops.reshape(points, [batch, count, 4, 2])
    points = ops.concatenate([points, ops.ones([batch, count, 4, 1], points.dtype)], axis=-1)
    moved = ops.einsum("bnxy,byz->bnxz", points, transposed)
    return ops.concatenate([ops.amin(moved, axis=2), ops.amax(moved, axis=2)], axis=-1)


def _inverse_affine_matrix(center_x, center_y, angle, translate_x, translate_y, scale,
                           shear_x, shear_y, height, width):
    angle = ops.convert_to_tensor(angle)
    batch, dtype = ops.shape(angle)[0], angle.dtype
    angle, shear_x, shear_y = -angle, -shear_x, -shear_y
    cx, cy = ops.multiply(center_x, (width - 1)), ops.multiply(center_y, (height - 1))
    rot = ops.multiply(angle, 1.0 / 180.0 * math.pi)
    tx = ops.multiply(-translate_x, (width - 1))
    ty = ops.multiply(-translate_y, (height - 1))
    sx = ops.multiply(shear_x, 1.0 / 180.0 * math.pi)
    sy = ops.multiply(shear_y, 1.0 / 180.0 * math.pi)
    cos_sy, tan_sx = ops.cos(sy), ops.tan(sx)
    a = ops.cos(rot - sy) / cos_sy
    b = a * tan_sx + ops.sin(rot)
    c = -ops.sin(rot - sy) / cos_sy
    d = ops.cos(rot) - c * tan_sx
    a0, a1 = ops.multiply(d, scale), ops.multiply(-b, scale)
    b0, b1 = ops.multiply(-c, scale), ops.multiply(a, scale)
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = ops.zeros([batch], dtype), ops.ones([batch], dtype)
    matrix = ops.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], axis=-1)
    return ops.reshape(matrix, [batch, 3, 3])


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """Boxes in the frame of the crop at (`top`, `left`), clipped to `height` x `width`.

    Args:
        boxes: `(N, 4)` or `(batch, N, 4)` "xyxy" boxes.
        top, left: the crop's offset.
        height, width: the crop's size.
        bounding_box_format: "xyxy" only (as Keras).

    Returns:
        the cropped boxes.

    Example:
        >>> keras.utils.bounding_boxes.crop(np.array([[10., 20., 50., 60.]]),
        ...                                 top=10, left=20, height=40, width=30)
        ... # [[0., 10., 30., 40.]]
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError("crop: only the 'xyxy' format is supported (as Keras). "
                                  f"Received: {bounding_box_format!r}")
    x1, y1, x2, y2 = _split(ops.convert_to_tensor(boxes))
    return _join([ops.clip(x1 - left, 0, width), ops.clip(y1 - top, 0, height),
                  ops.clip(x2 - left, 0, width), ops.clip(y2 - top, 0, height)])


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """Boxes shifted by the `top`/`left` padding of their image.

    Args:
        boxes: `(N, 4)` or `(batch, N, 4)` "xyxy" boxes.
        top, left: the padding added above and to the left.
        height, width: unused (as Keras).
        bounding_box_format: "xyxy" only (as Keras).

    Returns:
        the shifted boxes.
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError("pad: only the 'xyxy' format is supported (as Keras). "
                                  f"Received: {bounding_box_format!r}")
    x1, y1, x2, y2 = _split(ops.convert_to_tensor(boxes))
    return _join([x1 + left, y1 + top, x2 + left, y2 + top])


def _check_variance(variance):
    if variance is None:
        return None
    variance = ops.convert_to_tensor(variance, "float32")
    if variance.shape[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return variance


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """Deltas from anchors to boxes: centre offsets over the anchor size, log size ratios.

    Args:
        anchors: `(N, 4)` anchors.
        boxes: `(N, 4)` or `(batch, N, 4)` boxes.
        anchor_format, box_format: their formats.
        encoding_format: "center_yxhw" or "center_xywh".
        variance: optional 4 divisors of the deltas.
        image_shape: (height, width, channels), for relative formats.

    Returns:
        the deltas, in `encoding_format`'s order.
    """
    variance = _check_variance(variance)
    if encoding_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("`encoding_format` should be one of 'center_xywh' or 'center_yxhw', "
                         f"got {encoding_format}")
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]
    anchors = convert_format(anchors, anchor_format, encoding_format, height=height,
                             width=width)
    boxes = convert_format(boxes, box_format, encoding_format, height=height, width=width)
    anchor_size = ops.maximum(anchors[..., 2:], config.epsilon())
    box_size = ops.maximum(boxes[..., 2:], config.epsilon())
    deltas = ops.concatenate([(boxes[..., :2] - anchors[..., :2]) / anchor_size,
                              ops.log(box_size / anchor_size)], axis=-1)
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """Boxes from anchors and deltas (the inverse of `encode_box_to_deltas`).

    Args:
        anchors: `(N, 4)` anchors, or a dict of them by level.
        boxes_delta: deltas of the same structure, `(N, 4)` or `(batch, N, 4)`.
        anchor_format, box_format: the anchors' format and the boxes' wanted one.
        encoded_format: "center_yxhw" or "center_xywh".
        variance: optional 4 factors the deltas are multiplied by.
        image_shape: (height, width, channels), for relative formats.

    Returns:
        the boxes (a dict by level for dict inputs).
    """
    variance = _check_variance(variance)
    if encoded_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("`encoded_format` should be 'center_xywh' or 'center_yxhw', but got "
                         f"'{encoded_format}'.")
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]

    def decode(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height=height,
                                width=width)
        if variance is not None:
            delta = delta * variance
        box = ops.concatenate([delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                               ops.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1)
        return convert_format(box, encoded_format, box_format, height=height, width=width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)


def _area(boxes):
    y_min, x_min, y_max, x_max = _split(boxes[..., :4])
    return ops.squeeze((y_max - y_min) * (x_max - x_min), axis=-1)


def _intersection(boxes1, boxes2):
    y_min1, x_min1, y_max1, x_max1 = _split(boxes1[..., :4])
    y_min2, x_min2, y_max2, x_max2 = _split(boxes2[..., :4])
    perm = [1, 0] if len(boxes2.shape) == 2 else [0, 2, 1]
    height = ops.minimum(y_max1, ops.transpose(y_max2, perm)) - \
        ops.maximum(y_min1, ops.transpose(y_min2, perm))
    width = ops.minimum(x_max1, ops.transpose(x_max2, perm)) - \
        ops.maximum(x_min1, ops.transpose(x_min2, perm))
    zero = ops.cast(0, height.dtype)
    return ops.maximum(zero, height) * ops.maximum(zero, width)


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1,
                image_shape=None):
    """Pairwise intersection over union: `(N, M)`, or `(batch, N, M)`.

    Args:
        boxes1: `(N, 4)` or `(batch, N, 4)` boxes.
        boxes2: `(M, 4)` or `(batch, M, 4)` boxes.
        bounding_box_format: their format.
        use_masking: give `mask_val` to pairs where a box is padding (all coordinates
            below 0).
        mask_val: the value of masked pairs.
        image_shape: (height, width, channels), for relative formats.

    Returns:
        the IoU matrix (`intersection / (union + epsilon)`).

    Example:
        >>> keras.utils.bounding_boxes.compute_iou(
        ...     np.array([[0., 0., 2., 2.]]), np.array([[1., 1., 3., 3.]]), "xyxy")
        ... # [[0.14285714]]
    """
    rank1, rank2 = len(ops.shape(boxes1)), len(ops.shape(boxes2))
    for name, rank in (("boxes1", rank1), ("boxes2", rank2)):
        if rank not in (2, 3):
            raise ValueError(
                f"compute_iou() expects {name} to be batched, or to be unbatched. Received "
                f"len(boxes1.shape)={rank1}, len(boxes2.shape)={rank2}. Expected either "
                f"len({name}.shape)=2 AND or len({name}.shape)=3.")
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided.Received `image_shape`: "
                         f"{image_shape}")
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]
    boxes1 = convert_format(boxes1, bounding_box_format, "yxyx", height=height, width=width)
    boxes2 = convert_format(boxes2, bounding_box_format, "yxyx", height=height, width=width)
    intersection = _intersection(boxes1, boxes2)
    area1 = ops.expand_dims(_area(boxes1), axis=-1)
    area2 = _area(boxes2)
    area2 = ops.expand_dims(area2, axis=1 if len(area2.shape) == 2 else 0)
    result = ops.divide(intersection, area1 + area2 - intersection + config.epsilon())
    if not use_masking:
        return result
    perm = [1, 0] if rank1 == 2 else [0, 2, 1]
    masked = ops.cast(mask_val, result.dtype) * ops.ones_like(result)
    background = ops.logical_or(ops.less(ops.max(boxes1, axis=-1, keepdims=True), 0.0),
                                ops.transpose(ops.less(ops.max(boxes2, axis=-1, keepdims=True),
                                                       0.0), perm))
    return ops.where(background, masked, result)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Complete IoU of matching boxes: IoU minus the centre-distance and aspect penalties.

    Args:
        boxes1, boxes2: boxes of one shape `(..., 4)`, compared element by element.
        bounding_box_format: their format (relative formats are refused, as Keras).
        image_shape: unused with absolute formats.

    Returns:
        `(...)` CIoU values.
    """
    if "rel" in bounding_box_format:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided.Received `image_shape`: "
                         f"{image_shape}")
    height, width = (None, None) if image_shape is None else tuple(image_shape)[:2]
    boxes1 = convert_format(boxes1, bounding_box_format, "xyxy", height=height, width=width)
    boxes2 = convert_format(boxes2, bounding_box_format, "xyxy", height=height, width=width)
    eps = config.epsilon()
    x_min1, y_min1, x_max1, y_max1 = _split(boxes1[..., :4])
    x_min2, y_min2, x_max2, y_max2 = _split(boxes2[..., :4])
    width_1, height_1 = x_max1 - x_min1, y_max1 - y_min1 + eps
    width_2, height_2 = x_max2 - x_min2, y_max2 - y_min2 + eps
    intersection = ops.maximum(ops.minimum(x_max1, x_max2) - ops.maximum(x_min1, x_min2), 0) \
        * ops.maximum(ops.minimum(y_max1, y_max2) - ops.maximum(y_min1, y_min2), 0)
    union = width_1 * height_1 + width_2 * height_2 - intersection + eps
    iou = ops.squeeze(ops.divide(intersection, union + eps), axis=-1)
    convex_width = ops.maximum(x_max1, x_max2) - ops.minimum(x_min1, x_min2)
    convex_height = ops.maximum(y_max1, y_max2) - ops.minimum(y_min1, y_min2)
    diagonal = ops.squeeze(convex_width ** 2 + convex_height ** 2 + eps, axis=-1)
    distance = ops.squeeze(((x_min1 + x_max1) / 2 - (x_min2 + x_max2) / 2) ** 2
                           + ((y_min1 + y_max1) / 2 - (y_min2 + y_max2) / 2) ** 2, axis=-1)
    v = ops.squeeze((4 / math.pi ** 2) * ops.power(
        ops.arctan(width_2 / height_2) - ops.arctan(width_1 / height_1), 2), axis=-1)
    alpha = v / (v - iou + (1 + eps))
    return iou - (distance / diagonal + v * alpha)


__all__ = ["affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]

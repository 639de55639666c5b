"""The nine box formats of `keras.utils.bounding_boxes` and their conversions.

Every format converts to and from `xyxy` (absolute `[left, top, right,
bottom]`); a conversion between two other formats goes through it, as in
Keras, so the rounding of float32 results is the same.
"""
from kerasish import ops

SUPPORTED_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw",
                     "rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh")


def split4(boxes):
    """The four coordinate columns of `boxes` (`(..., 4)`), each `(..., 1)`."""
    return ops.split(boxes, 4, axis=-1)


def join4(*columns):
    """Concatenates four `(..., 1)` columns back into `(..., 4)` boxes."""
    return ops.concatenate(list(columns), axis=-1)


def _corners_from_center(cx, cy, w, h):
    half_w, half_h = w / 2.0, h / 2.0
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def to_xyxy(boxes, source, height, width):
    """Converts `boxes` from `source` to absolute `xyxy`."""
    a, b, c, d = split4(boxes)
    if source == "xyxy":
        return boxes
    if source == "yxyx":
        return join4(b, a, d, c)
    if source == "xywh":
        return join4(a, b, a + c, b + d)
    if source == "center_xywh":
        return join4(*_corners_from_center(a, b, c, d))
    if source == "center_yxhw":
        return join4(*_corners_from_center(b, a, d, c))
    if source == "rel_xyxy":
        return join4(a * width, b * height, c * width, d * height)
    if source == "rel_yxyx":
        return join4(b * width, a * height, d * width, c * height)
    if source == "rel_xywh":
        return join4(a * width, b * height, (a + c) * width, (b + d) * height)
    x1, y1, x2, y2 = _corners_from_center(a, b, c, d)  # rel_center_xywh
    return join4(x1 * width, y1 * height, x2 * width, y2 * height)


def from_xyxy(boxes, target, height, width):
    """Converts absolute `xyxy` `boxes` to `target`."""
    x1, y1, x2, y2 = split4(boxes)
    if target == "xyxy":
        return boxes
    if target == "yxyx":
        return join4(y1, x1, y2, x2)
    w, h = x2 - x1, y2 - y1
    if target == "xywh":
        return join4(x1, y1, w, h)
    cx, cy = x1 + w / 2.0, y1 + h / 2.0
    if target == "center_xywh":
        return join4(cx, cy, w, h)
    if target == "center_yxhw":
        return join4(cy, cx, h, w)
    if target == "rel_xyxy":
        return join4(x1 / width, y1 / height, x2 / width, y2 / height)
    if target == "rel_yxyx":
        return join4(y1 / height, x1 / width, y2 / height, x2 / width)
    if target == "rel_xywh":
        return join4(x1 / width, y1 / height, w / width, h / height)
    return join4(cx / width, cy / height, w / width, h / height)  # rel_center_xywh


def area_xyxy(boxes):
    """Areas `(..., 1)` of `xyxy` boxes (negative for inverted boxes)."""
    x1, y1, x2, y2 = split4(boxes)
    return (x2 - x1) * (y2 - y1)

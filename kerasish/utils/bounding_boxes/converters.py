"""`keras.utils.bounding_boxes` conversions and geometric transforms.

Everything is written with `kerasish.ops`, so it takes numpy arrays or
tensors, returns tensors, and is differentiable with respect to the boxes.
"""
import math

from kerasish import backend, ops
from kerasish.utils.bounding_boxes import formats
from kerasish.utils.bounding_boxes.formats import SUPPORTED_FORMATS, join4, split4


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """Converts bounding boxes between formats.

    Supported formats (case-insensitive): `"xyxy"` `[left, top, right,
    bottom]`, `"yxyx"`, `"xywh"` `[left, top, width, height]`,
    `"center_xywh"`, `"center_yxhw"`, and the relative `"rel_xyxy"`,
    `"rel_yxyx"`, `"rel_xywh"`, `"rel_center_xywh"` (coordinates divided by
    the image `width` / `height`).

    Args:
        boxes: Boxes of shape `(..., 4)`, or a dict whose `"boxes"` entry is
            converted (the dict is updated in place and returned, as in Keras).
        source: The format of `boxes`.
        target: The format to convert to.
        height: Image height, required when either format is relative.
        width: Image width, required when either format is relative.
        dtype: The dtype the boxes are cast to. Defaults to `"float32"`.

    Returns:
        The converted boxes (a tensor), or the updated dict.

    Example:
        >>> boxes = np.array([[10, 20, 30, 40]])
        >>> convert_format(boxes, "xyxy", "xywh")  # [[10., 20., 20., 20.]]
    """
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height=height,
                                        width=width, dtype=dtype)
        return boxes
    boxes_shape = ops.shape(boxes)
    if boxes_shape[-1] != 4:
        raise ValueError("`boxes` must be a tensor with the last dimension of 4. "
                         f"Received: boxes.shape={boxes_shape}")
    source, target = source.lower(), target.lower()
    if source not in SUPPORTED_FORMATS or target not in SUPPORTED_FORMATS:
        raise ValueError(f"Invalid source or target format. "
                         f"Supported formats: {SUPPORTED_FORMATS}")
    if (source.startswith("rel_") or target.startswith("rel_")) and (
            width is None or height is None):
        raise ValueError(
            "convert_format() must receive `height` and `width` transforming between "
            "relative and absolute formats."
            f"convert_format() received source=`{source}`, target=`{target}, "
            f"but height={height} and width={width}.")
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    width = None if width is None else ops.cast(width, dtype)
    height = None if height is None else ops.cast(height, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    xyxy = formats.to_xyxy(boxes, source, height, width)
    return formats.from_xyxy(xyxy, target, height, width)


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """Clips boxes to the image; boxes left with no area get label -1.

    Args:
        bounding_boxes: A dict with `"boxes"` `(N, 4)` or `(batch, N, 4)` and
            optionally `"labels"` `(N,)` or `(batch, N)`.
        height: Image height (required for `"xyxy"`).
        width: Image width (required for `"xyxy"`).
        bounding_box_format: `"xyxy"` or `"rel_xyxy"` (clipped to `[0, 1]`).

    Returns:
        A new dict with the clipped boxes and updated labels.

    Example:
        >>> clip_to_image_size({"boxes": np.array([[-10., 5., 150., 50.]]),
        ...                     "labels": np.array([1])}, height=100, width=120)
    """
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = bounding_boxes["boxes"]
    labels = bounding_boxes.get("labels", None)
    dtype = ops.convert_to_tensor(boxes).dtype
    if bounding_box_format == "xyxy":
        high_x, high_y = ops.cast(width, dtype), ops.cast(height, dtype)
    else:
        high_x = high_y = 1.0
    x1, y1, x2, y2 = split4(boxes)
    boxes = join4(ops.clip(x1, 0, high_x), ops.clip(y1, 0, high_y),
                  ops.clip(x2, 0, high_x), ops.clip(y2, 0, high_y))
    result = bounding_boxes.copy()
    result["boxes"] = boxes
    if labels is not None:
        areas = ops.squeeze(formats.area_xyxy(boxes), axis=-1)
        result["labels"] = ops.where(areas > 0, labels, -1)
    return result


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """Moves `xyxy` boxes into a crop's frame and clips them to it.

    Args:
        boxes: `xyxy` boxes of shape `(N, 4)` or `(batch, N, 4)`.
        top: The crop's vertical offset.
        left: The crop's horizontal offset.
        height: The crop's height.
        width: The crop's width.
        bounding_box_format: Only `"xyxy"` is supported, as in Keras.

    Returns:
        The cropped boxes.

    Example:
        >>> crop(np.array([[10., 20., 50., 60.]]), top=10, left=20, height=40, width=30)
        ... # [[0., 10., 30., 40.]]
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError
    x1, y1, x2, y2 = split4(boxes)
    return join4(ops.clip(x1 - left, 0, width), ops.clip(y1 - top, 0, height),
                 ops.clip(x2 - left, 0, width), ops.clip(y2 - top, 0, height))


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """Shifts `xyxy` boxes by the padding added above and left of the image.

    Args:
        boxes: `xyxy` boxes of shape `(N, 4)` or `(batch, N, 4)`.
        top: Padding added above the image.
        left: Padding added left of the image.
        height: Unused (as in Keras).
        width: Unused (as in Keras).
        bounding_box_format: Only `"xyxy"` is supported, as in Keras.

    Returns:
        The shifted boxes.

    Example:
        >>> pad(np.array([[10., 20., 50., 60.]]), top=5, left=3)  # [[13., 25., 53., 65.]]
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError
    x1, y1, x2, y2 = split4(boxes)
    return join4(x1 + left, y1 + top, x2 + left, y2 + top)


def _inverse_affine_matrix(center_x, center_y, angle, translate_x, translate_y, scale,
                           shear_x, shear_y, height, width):
    """The `(batch, 3, 3)` matrix mapping output pixels to input pixels.

    Same construction as TF's `_get_inverse_affine_matrix`, which Keras's
    image `RandomAffine`-style layers use for the images themselves.
    """
    batch_size = ops.shape(angle)[0]
    dtype = angle.dtype
    degree = math.pi / 180.0
    cx = ops.multiply(center_x, width - 1)
    cy = ops.multiply(center_y, height - 1)
    rot = ops.multiply(-angle, degree)
    tx = ops.multiply(-translate_x, width - 1)
    ty = ops.multiply(-translate_y, height - 1)
    sx = ops.multiply(-shear_x, degree)
    sy = ops.multiply(-shear_y, degree)
    cos_sy, tan_sx = ops.cos(sy), ops.tan(sx)
    a = ops.cos(rot - sy) / cos_sy
    b = a * tan_sx + ops.sin(rot)
    c = -ops.sin(rot - sy) / cos_sy
    d = ops.cos(rot) - c * tan_sx
    a0, a1 = ops.multiply(d, scale), ops.multiply(-b, scale)
    b0, b1 = ops.multiply(-c, scale), ops.multiply(a, scale)
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = ops.zeros([batch_size], dtype), ops.ones([batch_size], dtype)
    matrix = ops.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], axis=-1)
    return ops.reshape(matrix, [batch_size, 3, 3])


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y,
                     height, width, center_x=None, center_y=None,
                     bounding_box_format="xyxy"):
    """Applies a per-sample affine transform to batched `xyxy` boxes.

    Each box's four corners are mapped through the transform and the result
    is the axis-aligned box around them.

    Args:
        boxes: `xyxy` boxes of shape `(batch, N, 4)`.
        angle: Rotation angles in degrees, shape `(batch,)`.
        translate_x: Horizontal translations (fractions of the width), `(batch,)`.
        translate_y: Vertical translations (fractions of the height), `(batch,)`.
        scale: Scaling factors, `(batch,)`.
        shear_x: Shear angles in x (degrees), `(batch,)`.
        shear_y: Shear angles in y (degrees), `(batch,)`.
        height: Image height.
        width: Image width.
        center_x: Transform centre in x (a fraction). Defaults to 0.5.
        center_y: Transform centre in y (a fraction). Defaults to 0.5.
        bounding_box_format: Only `"xyxy"` is supported, as in Keras.

    Returns:
        The transformed boxes, shape `(batch, N, 4)`.

    Example:
        >>> zero = np.zeros(1, "float32")
        >>> affine_transform(np.array([[[10., 20., 30., 40.]]]), zero, zero, zero,
        ...                  np.ones(1, "float32"), zero, zero, height=80, width=100)
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError
    angle = ops.convert_to_tensor(angle)
    batch_size, n_boxes = ops.shape(boxes)[0], ops.shape(boxes)[1]
    matrix = _inverse_affine_matrix(0.5 if center_x is None else center_x,
                                    0.5 if center_y is None else center_y, angle,
                                    translate_x, translate_y, scale, shear_x, shear_y,
                                    height, width)
    boxes = ops.cast(boxes, matrix.dtype)
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    corners = ops.reshape(ops.stack([x1, y1, x2, y1, x2, y2, x1, y2], axis=-1),
                          [batch_size, n_boxes, 4, 2])
    corners = ops.concatenate(
        [corners, ops.ones([batch_size, n_boxes, 4, 1], corners.dtype)], axis=-1)
    moved = ops.einsum("bnxy,byz->bnxz", corners,
                       ops.transpose(matrix[:, :2, :], [0, 2, 1]))
    return ops.concatenate([ops.min(moved, axis=2), ops.max(moved, axis=2)], axis=-1)


def _checked_variance(variance):
    if variance is None:
        return None
    variance = ops.convert_to_tensor(variance, "float32")
    if variance.shape[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return variance


def _image_size(image_shape):
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """Encodes boxes as offsets and log-scales relative to anchors.

    Boxes and anchors are converted to `encoding_format`; the deltas are
    `(centre - anchor_centre) / anchor_size` and `log(size / anchor_size)`
    (sizes floored at `backend.epsilon()`), divided by `variance` if given.

    Args:
        anchors: Anchor boxes, `(N, 4)`.
        boxes: Boxes to encode, `(N, 4)` or `(batch, N, 4)`.
        anchor_format: The format of `anchors`.
        box_format: The format of `boxes`.
        encoding_format: `"center_yxhw"` (default) or `"center_xywh"`.
        variance: Optional 4 scale factors the deltas are divided by.
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        The deltas, shaped like `boxes`.

    Example:
        >>> anchors = np.array([[0., 0., 10., 10.]])
        >>> encode_box_to_deltas(anchors, anchors + 1, "xyxy", "xyxy")  # [[.1, .1, 0., 0.]]
    """
    variance = _checked_variance(variance)
    if encoding_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError("`encoding_format` should be one of 'center_xywh' or "
                         f"'center_yxhw', got {encoding_format}")
    height, width = _image_size(image_shape)
    anchors = convert_format(anchors, anchor_format, encoding_format, height=height,
                             width=width)
    boxes = convert_format(boxes, box_format, encoding_format, height=height, width=width)
    anchor_size = ops.maximum(anchors[..., 2:], backend.epsilon())
    box_size = ops.maximum(boxes[..., 2:], backend.epsilon())
    deltas = ops.concatenate([(boxes[..., :2] - anchors[..., :2]) / anchor_size,
                              ops.log(box_size / anchor_size)], axis=-1)
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """Inverts `encode_box_to_deltas`: applies deltas to anchors.

    Args:
        anchors: Anchor boxes `(N, 4)`, or a dict of them per feature level.
        boxes_delta: Deltas `(N, 4)` or `(batch, N, 4)`, or a dict with the
            same keys as `anchors`.
        anchor_format: The format of `anchors`.
        box_format: The format of the returned boxes.
        encoded_format: `"center_yxhw"` (default) or `"center_xywh"`.
        variance: Optional 4 scale factors the deltas are multiplied by.
        image_shape: `(height, width, channels)`, for relative formats.

    Returns:
        The decoded boxes in `box_format` (a dict per level for dict inputs).

    Example:
        >>> anchors = np.array([[0., 0., 10., 10.]])
        >>> decode_deltas_to_boxes(anchors, np.zeros((1, 4)), "xyxy", "xyxy")  # anchors
    """
    variance = _checked_variance(variance)
    if encoded_format not in ["center_xywh", "center_yxhw"]:
        raise ValueError("`encoded_format` should be 'center_xywh' or 'center_yxhw', "
                         f"but got '{encoded_format}'.")
    height, width = _image_size(image_shape)

    def decode_level(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height=height,
                                width=width)
        if variance is not None:
            delta = delta * variance
        box = ops.concatenate([delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                               ops.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1)
        return convert_format(box, encoded_format, box_format, height=height, width=width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode_level(anchor, boxes_delta[level])
                for level, anchor in anchors.items()}
    return decode_level(anchors, boxes_delta)

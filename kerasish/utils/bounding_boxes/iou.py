"""`compute_iou` and `compute_ciou` of `keras.utils.bounding_boxes`."""
import math

from kerasish import backend, ops
from kerasish.utils.bounding_boxes.converters import _image_size, convert_format
from kerasish.utils.bounding_boxes.formats import split4

_REL_NEEDS_SHAPE = ("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                    "`image_shape` argument must be provided.Received `image_shape`: ")


def _check_rank(name, rank, rank1, rank2):
    if rank not in (2, 3):
        raise ValueError(
            f"compute_iou() expects {name} to be batched, or to be unbatched. "
            f"Received len(boxes1.shape)={rank1}, len(boxes2.shape)={rank2}. Expected "
            f"either len({name}.shape)=2 AND or len({name}.shape)=3.")


def _pairwise_intersection(boxes1, boxes2):
    """Intersection areas `[..., N, M]` of `yxyx` boxes `[..., N, 4]`, `[..., M, 4]`."""
    y_min1, x_min1, y_max1, x_max1 = split4(boxes1)
    y_min2, x_min2, y_max2, x_max2 = split4(boxes2)
    perm = [1, 0] if len(boxes2.shape) == 2 else [0, 2, 1]
    height = (ops.minimum(y_max1, ops.transpose(y_max2, perm))
              - ops.maximum(y_min1, ops.transpose(y_min2, perm)))
    width = (ops.minimum(x_max1, ops.transpose(x_max2, perm))
             - ops.maximum(x_min1, ops.transpose(x_min2, perm)))
    zero = ops.cast(0, height.dtype)
    return ops.maximum(zero, height) * ops.maximum(zero, width)


def _area(boxes):
    y_min, x_min, y_max, x_max = split4(boxes)
    return ops.squeeze((y_max - y_min) * (x_max - x_min), axis=-1)


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1,
                image_shape=None):
    """Pairwise intersection-over-union of two sets of boxes.

    Shapes: `(M, 4)` x `(N, 4)` -> `(M, N)`; if either is batched
    `(batch, ., 4)` the result is `(batch, M, N)`.

    Args:
        boxes1: Boxes `(M, 4)` or `(batch, M, 4)`.
        boxes2: Boxes `(N, 4)` or `(batch, N, 4)`.
        bounding_box_format: The format of both sets of boxes.
        use_masking: If True, pairs where a box has all coordinates below 0
            (Keras's -1 padding) get `mask_val`.
        mask_val: The value of masked pairs. Defaults to -1.
        image_shape: `(height, width, channels)`, required for relative formats.

    Returns:
        The IoU table.

    Example:
        >>> compute_iou(np.array([[0., 0., 10., 10.]]), np.array([[5., 0., 15., 10.]]),
        ...             "xyxy")  # [[0.3333]]
    """
    rank1, rank2 = len(ops.shape(boxes1)), len(ops.shape(boxes2))
    _check_rank("boxes1", rank1, rank1, rank2)
    _check_rank("boxes2", rank2, rank1, rank2)
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError(f"{_REL_NEEDS_SHAPE}{image_shape}")
    height, width = _image_size(image_shape)
    boxes1 = convert_format(boxes1, bounding_box_format, "yxyx", height=height, width=width)
    boxes2 = convert_format(boxes2, bounding_box_format, "yxyx", height=height, width=width)
    intersection = _pairwise_intersection(boxes1, boxes2)
    area1, area2 = _area(boxes1), _area(boxes2)
    area1 = ops.expand_dims(area1, axis=-1)
    area2 = ops.expand_dims(area2, axis=1 if len(area2.shape) == 2 else 0)
    union = area1 + area2 - intersection
    iou = ops.divide(intersection, union + backend.epsilon())
    if not use_masking:
        return iou
    perm = [1, 0] if rank1 == 2 else [0, 2, 1]
    masked = ops.cast(mask_val, iou.dtype) * ops.ones_like(iou)
    padding1 = ops.less(ops.max(boxes1, axis=-1, keepdims=True), 0.0)
    padding2 = ops.less(ops.max(boxes2, axis=-1, keepdims=True), 0.0)
    return ops.where(ops.logical_or(padding1, ops.transpose(padding2, perm)), masked, iou)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Complete IoU of matching boxes (elementwise, not pairwise).

    CIoU is the IoU minus the squared centre distance over the squared
    diagonal of the enclosing box, minus an aspect-ratio consistency term.

    Args:
        boxes1: Boxes `(..., 4)`.
        boxes2: Boxes `(..., 4)`, broadcastable against `boxes1`.
        bounding_box_format: The format of both (relative formats are
            rejected, as in Keras).
        image_shape: `(height, width, channels)`; unused by the absolute formats.

    Returns:
        The CIoU values, shape `(...)`.

    Example:
        >>> box = np.array([[0., 0., 10., 10.]])
        >>> compute_ciou(box, box, "xyxy")  # [1.]
    """
    if "rel" in bounding_box_format:
        raise ValueError(f"{_REL_NEEDS_SHAPE}{image_shape}")
    height, width = _image_size(image_shape)
    boxes1 = convert_format(boxes1, bounding_box_format, "xyxy", height=height, width=width)
    boxes2 = convert_format(boxes2, bounding_box_format, "xyxy", height=height, width=width)
    eps = backend.epsilon()
    x_min1, y_min1, x_max1, y_max1 = split4(boxes1)
    x_min2, y_min2, x_max2, y_max2 = split4(boxes2)
    width1, height1 = x_max1 - x_min1, y_max1 - y_min1 + eps
    width2, height2 = x_max2 - x_min2, y_max2 - y_min2 + eps
    intersection = (
        ops.maximum(ops.minimum(x_max1, x_max2) - ops.maximum(x_min1, x_min2), 0)
        * ops.maximum(ops.minimum(y_max1, y_max2) - ops.maximum(y_min1, y_min2), 0))
    union = width1 * height1 + width2 * height2 - intersection + eps
    iou = ops.squeeze(ops.divide(intersection, union + eps), axis=-1)
    hull_width = ops.maximum(x_max1, x_max2) - ops.minimum(x_min1, x_min2)
    hull_height = ops.maximum(y_max1, y_max2) - ops.minimum(y_min1, y_min2)
    diagonal2 = ops.squeeze(hull_width ** 2 + hull_height ** 2 + eps, axis=-1)
    centres2 = ops.squeeze(((x_min1 + x_max1) / 2 - (x_min2 + x_max2) / 2) ** 2
                           + ((y_min1 + y_max1) / 2 - (y_min2 + y_max2) / 2) ** 2, axis=-1)
    v = ops.squeeze((4 / math.pi ** 2) * ops.power(
        ops.arctan(width2 / height2) - ops.arctan(width1 / height1), 2), axis=-1)
    alpha = v / (v - iou + (1 + eps))
    return iou - (centres2 / diagonal2 + v * alpha)

"""`keras.utils.bounding_boxes`: box format conversion, transforms and IoU.

Its modules sit on the floor of `utils.image_utils` (they are built on
`kerasish.ops`); `kerasish/__init__.py` imports this package, which makes it
the `bounding_boxes` attribute of `kerasish.utils`.
"""
from kerasish.utils.bounding_boxes.converters import (affine_transform, clip_to_image_size,
                                                      convert_format, crop,
                                                      decode_deltas_to_boxes,
                                                      encode_box_to_deltas, pad)
from kerasish.utils.bounding_boxes.iou import compute_ciou, compute_iou

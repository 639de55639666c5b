"""`keras.visualization.draw_bounding_boxes` (draws with OpenCV, as Keras)."""
import numpy as np

from kerasish import backend, ops
from kerasish.utils.bounding_boxes import convert_format


def _cv2():
    try:
        import cv2  # optional dependency
    except ImportError:
        cv2 = None
    if cv2 is None:
        raise ImportError("The `draw_bounding_boxes` function requires the `cv2` package "
                          " (OpenCV). Please install it with `pip install opencv-python`.")
    return cv2


def _text_location(x, y, font_scale, thickness):
    """Keras's label anchor: above the box if it fits, else inside its top-left."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def _to_uint8(images):
    """Keras's conversion: floats <= 1 are scaled by 255, others clipped to [0, 255]."""
    images = ops.convert_to_numpy(images)
    if images.dtype.kind == "f" and images.size > 0:
        if images.max() <= 1.0:
            images = np.clip(images, 0, 1) * 255
        else:
            images = np.clip(images, 0, 255)
    return images.astype("uint8")


def _check_inputs(images_shape, bounding_boxes):
    if len(images_shape) != 4:
        raise ValueError("`images` must be batched 4D tensor. "
                         f"Received: images.shape={images_shape}")
    if not isinstance(bounding_boxes, dict):
        raise TypeError("`bounding_boxes` should be a dict. "
                        f"Received: bounding_boxes={bounding_boxes} of type "
                        f"{type(bounding_boxes)}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError("`bounding_boxes` should be a dict containing 'boxes' and "
                         f"'labels' keys. Received: bounding_boxes={bounding_boxes}")


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, class_mapping=None,
                        color=(128, 128, 128), line_thickness=2, text_thickness=1,
                        font_scale=1.0, data_format=None):
    """Draws boxes (and class names, confidences) on a batch of images.

    Needs OpenCV (`pip install opencv-python`), like Keras: boxes are drawn
    with `cv2.rectangle` and labels with `cv2.putText` (Hershey simplex).
    Boxes whose label is -1 are skipped.

    Args:
        images: Images `(batch, height, width, channels)`; floats with a
            maximum <= 1 are scaled by 255, others clipped to `[0, 255]`.
        bounding_boxes: A dict with `"boxes"` `(batch, N, 4)`, `"labels"`
            `(batch, N)` and optionally `"confidences"` `(batch, N)`.
        bounding_box_format: The boxes' format (see
            `keras.utils.bounding_boxes.convert_format`).
        class_mapping: A dict from label to the name written by the box.
        color: The RGB colour of boxes and text.
        line_thickness: The boxes' line thickness.
        text_thickness: The text's thickness (0 or None: `line_thickness`).
        font_scale: The text's scale.
        data_format: `"channels_last"` or `"channels_first"` (used for the
            image height and width only, as in Keras).

    Returns:
        A uint8 numpy array of the annotated images.

    Example:
        >>> images = np.zeros((1, 32, 32, 3), "uint8")
        >>> boxes = {"boxes": np.array([[[4., 4., 20., 20.]]]), "labels": np.array([[0]])}
        >>> draw_bounding_boxes(images, boxes, "xyxy", class_mapping={0: "cat"})
    """
    cv2 = _cv2()
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = data_format or backend.image_data_format()
    images_shape = ops.shape(images)
    _check_inputs(images_shape, bounding_boxes)
    h_axis, w_axis = (-3, -2) if data_format == "channels_last" else (-2, -1)
    bounding_boxes = convert_format(bounding_boxes.copy(), bounding_box_format, "xyxy",
                                    images_shape[h_axis], images_shape[w_axis])
    images = _to_uint8(images)
    boxes = ops.convert_to_numpy(bounding_boxes["boxes"])
    labels = ops.convert_to_numpy(bounding_boxes["labels"])
    confidences = (ops.convert_to_numpy(bounding_boxes["confidences"])
                   if "confidences" in bounding_boxes else None)
    for i in range(images.shape[0]):
        for j in range(boxes[i].shape[0]):
            x1, y1, x2, y2 = (int(v) for v in boxes[i][j].astype("int32"))
            label = int(labels[i][j].astype("int32"))
            if label == -1:
                continue
            cv2.rectangle(images[i], (x1, y1), (x2, y2), color, line_thickness)
            if label not in class_mapping:
                continue
            text = class_mapping[label]
            if confidences is not None:
                text = f"{text} | {confidences[i][j]:.2f}"
            cv2.putText(img=images[i], text=text,
                        org=_text_location(x1, y1, font_scale, text_thickness),
                        fontFace=cv2.FONT_HERSHEY_SIMPLEX, fontScale=font_scale, color=color,
                        thickness=text_thickness)
    return np.stack(list(images), axis=0)

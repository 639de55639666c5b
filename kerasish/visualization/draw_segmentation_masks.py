"""`keras.visualization.draw_segmentation_masks`."""
import numpy as np

from kerasish import backend, ops


def _color_palette(num_classes):
    """Keras's default class colours: `i * [2**25-1, 2**15-1, 2**21-1] % 255`."""
    palette = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * palette) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(images, segmentation_masks, num_classes=None, color_mapping=None,
                            alpha=0.8, blend=True, ignore_index=-1, data_format=None):
    """Paints each class of integer masks over the images in its colour.

    Args:
        images: A batch of images `(batch, height, width, channels)`
            (`(batch, channels, height, width)` for `"channels_first"`).
        segmentation_masks: Integer masks `(batch, height, width, 1)` (same
            layout as the images); class `c` in `[0, num_classes)` is painted.
        num_classes: The number of classes; defaults to the masks' maximum
            (as in Keras, so that class is then not painted).
        color_mapping: A dict from class index to RGB colour; defaults to
            Keras's palette.
        alpha: The masks' opacity when blending.
        blend: If True, blend with `alpha` and return uint8 numpy images; if
            False, return the painted images as a float32 tensor.
        ignore_index: Mask value left unpainted when blending.
        data_format: `"channels_last"` or `"channels_first"`; the result is
            channels-last either way, as in Keras.

    Returns:
        The images with the masks drawn, channels-last.

    Example:
        >>> images = np.zeros((1, 2, 2, 3), "float32")
        >>> masks = np.array([[[[0], [1]], [[1], [-1]]]])
        >>> draw_segmentation_masks(images, masks, num_classes=2).shape  # (1, 2, 2, 3)
    """
    data_format = data_format or backend.image_data_format()
    images_shape = ops.shape(images)
    if len(images_shape) != 4:
        raise ValueError("`images` must be batched 4D tensor. "
                         f"Received: images.shape={images_shape}")
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
        segmentation_masks = ops.transpose(segmentation_masks, (0, 2, 3, 1))
    images = ops.convert_to_tensor(images, dtype="float32")
    segmentation_masks = ops.convert_to_tensor(segmentation_masks)
    if not backend.is_int_dtype(segmentation_masks.dtype):
        dtype = backend.standardize_dtype(segmentation_masks.dtype)
        raise TypeError("`segmentation_masks` must be in integer dtype. "
                        f"Received: segmentation_masks.dtype={dtype}")
    if ops.shape(segmentation_masks)[-1] != 1:  # Keras's (TensorFlow's) squeeze error
        raise ValueError("Cannot squeeze axis=-1, because the dimension is not 1.")
    if num_classes is None:
        num_classes = int(ops.convert_to_numpy(ops.max(segmentation_masks)))
    if color_mapping is None:
        colors = _color_palette(num_classes)
    else:
        colors = [color_mapping[i] for i in range(num_classes)]
    valid = ops.squeeze(ops.not_equal(segmentation_masks, ignore_index), axis=-1)
    one_hot = ops.convert_to_numpy(ops.one_hot(segmentation_masks, num_classes)[..., 0, :])
    painted = ops.convert_to_numpy(images).copy()
    for class_mask, color in zip(np.moveaxis(one_hot, -1, 0).astype(bool), colors):
        painted[class_mask, ...] = np.array(color, dtype=painted.dtype)[None, :]
    outputs = ops.cast(ops.convert_to_tensor(painted), dtype="float32")
    if blend:
        outputs = images * (1 - alpha) + outputs * alpha
        outputs = ops.where(valid[..., None], outputs, images)
        outputs = ops.convert_to_numpy(ops.cast(outputs, dtype="uint8"))
    return outputs

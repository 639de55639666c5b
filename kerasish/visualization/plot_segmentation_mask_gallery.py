"""`keras.visualization.plot_segmentation_mask_gallery` (needs matplotlib)."""
import numpy as np

from kerasish import backend, ops
from kerasish.visualization.draw_segmentation_masks import draw_segmentation_masks
from kerasish.visualization.plot_image_gallery import plot_image_gallery


def plot_segmentation_mask_gallery(images, num_classes, value_range=(0, 255), y_true=None,
                                   y_pred=None, color_mapping=None, blend=True, alpha=0.8,
                                   ignore_index=-1, data_format=None, **kwargs):
    """Plots one row per image: the image, then its true and predicted masks.

    Args:
        images: Images `(batch, height, width, channels)`.
        num_classes: The number of classes.
        value_range: The images' value range.
        y_true: Optional true masks `(batch, height, width, 1)`.
        y_pred: Optional predicted masks `(batch, height, width, 1)`.
        color_mapping: A dict from class index to RGB colour.
        blend: Blend the masks with the images.
        alpha: The masks' opacity.
        ignore_index: Mask value left unpainted.
        data_format: `"channels_last"` or `"channels_first"`.
        **kwargs: Passed to `plot_image_gallery` (`path`, `show`, `scale`, ...).

    Returns:
        What `plot_image_gallery` returns (None).

    Example:
        >>> masks = np.zeros((2, 8, 8, 1), "int32")
        >>> plot_segmentation_mask_gallery(np.zeros((2, 8, 8, 3)), 2, y_true=masks,
        ...                                path="masks.png")
    """
    data_format = data_format or backend.image_data_format()
    image_shape = ops.shape(images)
    if len(image_shape) != 4:
        raise ValueError("`images` must be batched 4D tensor. "
                         f"Received: images.shape={image_shape}")
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    batch_size = image_shape[0]
    cols = 1 + (y_true is not None) + (y_pred is not None)
    images_np = ops.convert_to_numpy(images)
    drawn = []
    for masks in (y_true, y_pred):
        if masks is None:
            continue
        if data_format == "channels_first":
            masks = ops.transpose(masks, (0, 2, 3, 1))
        drawn.append(draw_segmentation_masks(
            images_np, ops.cast(masks, "int32"), num_classes=num_classes,
            color_mapping=color_mapping, alpha=alpha, ignore_index=ignore_index, blend=blend))
    gallery = []
    for i in range(batch_size):
        gallery.append(images_np[i])
        gallery.extend(ops.convert_to_numpy(d[i]) for d in drawn)
    return plot_image_gallery(np.stack(gallery, axis=0), value_range=value_range,
                              rows=batch_size, cols=cols, **kwargs)

"""`keras.visualization.plot_image_gallery` (needs matplotlib, as Keras)."""
import math

import numpy as np

from kerasish import backend, ops


def _pyplot(function_name):
    try:
        import matplotlib.pyplot as plt  # optional dependency
    except ImportError:
        plt = None
    if plt is None:
        raise ImportError(f"The `{function_name}` function requires the `matplotlib` "
                          "package. Please install it with `pip install matplotlib`.")
    return plt


def _to_0_255(images, value_range):
    """Rescales images from `value_range` to `[0, 255]` (float32), as Keras's layers."""
    low, high = value_range
    if low == 0 and high == 255:
        return images
    images = ops.cast(images, "float32")
    low, high = ops.cast(low, "float32"), ops.cast(high, "float32")
    return (images - low) / (high - low) * 255.0


def _title(index, y_true, y_pred, label_map):
    parts = []
    if y_true is not None and index < len(y_true):
        parts.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
    if y_pred is not None and index < len(y_pred):
        parts.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
    return "  ".join(parts)


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None, cols=None,
                       value_range=(0, 255), scale=2, path=None, show=None, transparent=True,
                       dpi=60, legend_handles=None, data_format=None):
    """Shows (or saves) a grid of images, optionally titled with labels.

    Args:
        images: Images `(batch, height, width, channels)`.
        y_true: Optional true class indices `(batch,)`.
        y_pred: Optional predicted class indices `(batch,)`.
        label_map: A dict from class index to name; required with labels.
        rows: Grid rows; defaults to `ceil(sqrt(batch))`.
        cols: Grid columns; defaults to `batch // rows`.
        value_range: The images' value range, rescaled to `[0, 255]`.
        scale: Each image's size in inches.
        path: Where to save the figure; if None it is shown.
        show: Whether to call `plt.show()` (defaults to `path is None`).
        transparent: Save with a transparent background.
        dpi: The saved figure's dots per inch.
        legend_handles: Optional matplotlib handles for a figure legend.
        data_format: `"channels_last"` or `"channels_first"`.

    Example:
        >>> plot_image_gallery(np.zeros((4, 8, 8, 3)), path="gallery.png")
    """
    plt = _pyplot("plot_image_gallery")
    if path is not None and show:
        raise ValueError("plot_gallery() expects either `path` to be set, or `show` "
                         "to be true.")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError("If `y_true` or `y_pred` are provided, a `label_map` must also be"
                         " provided.")
    show = show if show is not None else (path is None)
    data_format = data_format or backend.image_data_format()
    shape = ops.shape(images)
    batch_size = shape[0] if len(shape) == 4 else 1
    rows = rows or int(math.ceil(math.sqrt(batch_size)))
    cols = cols or int(math.ceil(batch_size // rows))
    if len(shape) != 4:
        raise ValueError("`plot_images_gallery()` requires you to "
                         "batch your `np.array` samples together.")
    images = images[:min(rows * cols, batch_size), ...]
    if data_format == "channels_first":
        # Once: Keras 3.15.1 transposes channels-first images twice, which garbles them.
        images = ops.transpose(images, (0, 2, 3, 1))
    fig, axes = plt.subplots(nrows=rows, ncols=cols, figsize=(cols * scale, rows * scale),
                             frameon=False, layout="tight", squeeze=True, sharex="row",
                             sharey="col")
    fig.subplots_adjust(wspace=0, hspace=0)
    if isinstance(axes, np.ndarray) and len(axes.shape) == 1:
        axes = np.expand_dims(axes, 0 if rows == 1 else -1)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    images = ops.convert_to_numpy(_to_0_255(images, value_range))
    y_true = None if y_true is None else ops.convert_to_numpy(y_true)
    y_pred = None if y_pred is None else ops.convert_to_numpy(y_pred)
    for row in range(rows):
        for col in range(cols):
            index = row * cols + col
            axis = axes[row, col] if isinstance(axes, np.ndarray) else axes
            axis.imshow(images[index].astype("uint8"))
            axis.margins(x=0, y=0)
            axis.axis("off")
            title = _title(index, y_true, y_pred, label_map)
            if title:
                axis.set_title(title, fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                    dpi=dpi)
        plt.close()
    elif show:
        plt.show()
        plt.close()

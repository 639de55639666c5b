"""`keras.visualization.plot_bounding_box_gallery` (matplotlib and OpenCV)."""
import numpy as np

from kerasish import backend, ops
from kerasish.visualization.draw_bounding_boxes import draw_bounding_boxes
from kerasish.visualization.plot_image_gallery import plot_image_gallery


def _patches():
    try:
        from matplotlib import patches  # optional dependency
    except ImportError:
        patches = None
    if patches is None:
        raise ImportError("The `plot_bounding_box_gallery` function requires the "
                          " `matplotlib` package. Please install it with "
                          " `pip install matplotlib`.")
    return patches


def plot_bounding_box_gallery(images, bounding_box_format, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness=2, font_scale=1.0,
                              text_thickness=None, class_mapping=None,
                              ground_truth_mapping=None, prediction_mapping=None,
                              legend=False, legend_handles=None, rows=None, cols=None,
                              data_format=None, **kwargs):
    """Plots images with their true and/or predicted boxes drawn on them.

    Args:
        images: Images `(batch, height, width, channels)`.
        bounding_box_format: The boxes' format.
        y_true: Optional true boxes, a dict as for `draw_bounding_boxes`.
        y_pred: Optional predicted boxes, a dict as for `draw_bounding_boxes`.
        value_range: The images' value range.
        true_color: RGB colour of the true boxes.
        pred_color: RGB colour of the predicted boxes.
        line_thickness: The boxes' line thickness.
        font_scale: The labels' font scale.
        text_thickness: The labels' thickness (defaults to `line_thickness`).
        class_mapping: A dict from label to name, for both sets of boxes.
        ground_truth_mapping: Overrides `class_mapping` for `y_true`.
        prediction_mapping: Overrides `class_mapping` for `y_pred`.
        legend: Add a "Ground Truth" / "Prediction" legend.
        legend_handles: Custom legend handles (not with `legend`).
        rows: Grid rows.
        cols: Grid columns.
        data_format: `"channels_last"` or `"channels_first"`.
        **kwargs: Passed to `plot_image_gallery` (`path`, `show`, `scale`, ...).

    Returns:
        What `plot_image_gallery` returns (None).

    Example:
        >>> boxes = {"boxes": np.array([[[4., 4., 20., 20.]]]), "labels": np.array([[0]])}
        >>> plot_bounding_box_gallery(np.zeros((1, 32, 32, 3)), "xyxy", y_true=boxes,
        ...                           path="boxes.png")
    """
    patches = _patches()
    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    data_format = data_format or backend.image_data_format()
    images_shape = ops.shape(images)
    if len(images_shape) != 4:
        raise ValueError("`images` must be batched 4D tensor. "
                         f"Received: images.shape={images_shape}")
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    plotted = ops.convert_to_numpy(images)
    draw = dict(bounding_box_format=bounding_box_format, line_thickness=line_thickness,
                text_thickness=text_thickness, font_scale=font_scale)
    if y_true is not None:
        plotted = draw_bounding_boxes(plotted, y_true, color=true_color,
                                      class_mapping=ground_truth_mapping, **draw)
    if y_pred is not None:
        plotted = draw_bounding_boxes(plotted, y_pred, color=pred_color,
                                      class_mapping=prediction_mapping, **draw)
    if legend:
        if legend_handles:
            raise ValueError("Only pass `legend` OR `legend_handles` to "
                             "`keras.visualization.plot_bounding_box_gallery()`.")
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(plotted, value_range=value_range, legend_handles=legend_handles,
                              rows=rows, cols=cols, **kwargs)

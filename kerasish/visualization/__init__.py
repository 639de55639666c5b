"""`keras.visualization`: draw boxes and masks on images, plot image galleries.

`draw_bounding_boxes` needs OpenCV and the `plot_*` functions matplotlib, as
in Keras; both are imported only when called.
"""
from kerasish.visualization.draw_bounding_boxes import draw_bounding_boxes
from kerasish.visualization.draw_segmentation_masks import draw_segmentation_masks
from kerasish.visualization.plot_bounding_box_gallery import plot_bounding_box_gallery
from kerasish.visualization.plot_image_gallery import plot_image_gallery
from kerasish.visualization.plot_segmentation_mask_gallery import (
    plot_segmentation_mask_gallery)

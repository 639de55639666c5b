"""RandomZoom: zooms images in or out by random factors."""
import numpy as np

from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_rotation import check_fill_and_interpolation
from kerasish.ops import image as image_ops


class RandomZoom(BaseImagePreprocessingLayer):
    """Zooms each image by `1 + factor` per axis (positive: zoom out; negative: zoom in).

    Args:
        height_factor: float f (range [-f, f]) or (low, high), each in [-1, 1].
        width_factor: same for the width; None keeps the aspect ratio (same draw).
        fill_mode, interpolation, seed, fill_value, data_format: as RandomRotation.

    Example:
        >>> keras.layers.RandomZoom(0.2, seed=0)(np.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self.height_lower, self.height_upper = self._set_factor(height_factor, "height_factor")
        if width_factor is not None:
            self.width_lower, self.width_upper = self._set_factor(width_factor, "width_factor")
        check_fill_and_interpolation(self, fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        batch = images.shape[0]
        height_zoom = self._uniform((batch, 1), 1.0 + self.height_lower,
                                    1.0 + self.height_upper).numpy()
        width_zoom = height_zoom if self.width_factor is None else self._uniform(
            (batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper).numpy()
        matrix = zoom_matrix(width_zoom, height_zoom, images.shape[self.height_axis],
                             images.shape[self.width_axis])
        return image_ops.affine_transform(images, matrix, interpolation=self.interpolation,
                                          fill_mode=self.fill_mode, fill_value=self.fill_value,
                                          data_format=self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor,
                       "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "seed": self.seed, "fill_value": self.fill_value})
        return config


def zoom_matrix(width_zoom, height_zoom, height, width):
    """Keras's zoom-about-the-centre transforms, one row of 8 per image."""
    zx, zy = width_zoom.astype("float32"), height_zoom.astype("float32")
    x_offset = (np.float32(width) - 1.0) / 2.0 * (1.0 - zx)
    y_offset = (np.float32(height) - 1.0) / 2.0 * (1.0 - zy)
    zeros = np.zeros_like(zx)
    return np.concatenate([zx, zeros, x_offset, zeros, zy, y_offset, zeros, zeros],
                          axis=1).astype("float32")

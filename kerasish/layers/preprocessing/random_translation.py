"""RandomTranslation: shifts images by random fractions of their size."""
import numpy as np

from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_rotation import check_fill_and_interpolation
from kerasish.ops import image as image_ops


class RandomTranslation(BaseImagePreprocessingLayer):
    """Shifts each image by `factor * size` pixels per axis (training only).

    Args:
        height_factor: float f (range [-f, f]) or (low, high), fractions of the height.
        width_factor: same for the width.
        fill_mode, interpolation, seed, fill_value, data_format: as RandomRotation.

    Example:
        >>> keras.layers.RandomTranslation(0.1, 0.1, seed=0)(np.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = self._set_factor(height_factor, "height_factor")
        self.width_lower, self.width_upper = self._set_factor(width_factor, "width_factor")
        check_fill_and_interpolation(self, fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        batch = images.shape[0]
        height, width = images.shape[self.height_axis], images.shape[self.width_axis]
        dy = self._uniform((batch, 1), self.height_lower, self.height_upper).numpy() * height
        dx = self._uniform((batch, 1), self.width_lower, self.width_upper).numpy() * width
        ones, zeros = np.ones((batch, 1), "float32"), np.zeros((batch, 1), "float32")
        matrix = np.concatenate([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], 1)
        return image_ops.affine_transform(images, matrix.astype("float32"),
                                          interpolation=self.interpolation,
                                          fill_mode=self.fill_mode, fill_value=self.fill_value,
                                          data_format=self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor,
                       "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "seed": self.seed, "fill_value": self.fill_value})
        return config

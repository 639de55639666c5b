"""Solarization: inverts pixels above a random threshold (after a random addition)."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)
from kerasish.layers.preprocessing.random_contrast import sorted_value_range


class Solarization(BaseImagePreprocessingLayer):
    """In [0, 255] space: `x + a` clipped, then `255 - x` where `x >= threshold`.

    As Keras 3.15.1, the addition is drawn from `[addition_factor[0],
    addition_factor[1] * 255]` and the threshold from `[threshold_factor[0],
    threshold_factor[1] * 255]` (the lower bounds are not scaled by 255).

    Args:
        addition_factor: float f (range [0, f]) or (low, high) in [0, 1].
        threshold_factor: float f (range [0, f]) or (low, high) in [0, 1].
        value_range: (min, max) of the images.
        seed: int seed.

    Example:
        >>> keras.layers.Solarization(threshold_factor=0.5, seed=0)(np.ones((1, 2, 2, 3))).shape
        (1, 2, 2, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = self._set_factor(addition_factor, "addition_factor")
        self.threshold_factor = self._set_factor(threshold_factor, "threshold_factor")
        self.value_range = sorted_value_range(self, value_range)

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        shape = (images.shape[0], 1, 1, 1)
        additions = self._uniform(shape, self.addition_factor[0],
                                  self.addition_factor[1] * 255, dtype=self.compute_dtype)
        thresholds = self._uniform(shape, self.threshold_factor[0],
                                   self.threshold_factor[1] * 255, dtype=self.compute_dtype)
        x = transform_value_range(images, self.value_range, (0, 255))
        x = ops.clip(x + additions, 0, 255)
        x = ops.where(x < thresholds, x, 255 - x)
        return transform_value_range(x, (0, 255), self.value_range)

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range,
                       "addition_factor": self.addition_factor,
                       "threshold_factor": self.threshold_factor, "seed": self.seed})
        return config

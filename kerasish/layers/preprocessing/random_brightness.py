"""RandomBrightness: adds a random offset to each image."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_contrast import sorted_value_range


class RandomBrightness(BaseImagePreprocessingLayer):
    """Adds `delta * (max - min)` to each image, delta drawn from `factor`, then clips
    to `value_range` (training only).

    Args:
        factor: float f in [-1, 1] (range [-f, f]) or (low, high).
        value_range: (min, max) of the images.
        seed: int seed.

    Example:
        >>> keras.layers.RandomBrightness(0.2, seed=0)(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = sorted_value_range(self, value_range)

    def transform_images(self, images, training=True):
        if not training:
            return images   # as Keras: not cast at inference (an integer image stays one)
        # as Keras: the images keep their dtype, the delta is cast to it (integer images
        # get a truncated delta and wrap around as TensorFlow's integer add does)
        delta = self._uniform((images.shape[0], 1, 1, 1), self.factor[0], self.factor[1])
        delta = ops.cast(delta * (self.value_range[1] - self.value_range[0]), images.dtype)
        return ops.clip(images + delta, self.value_range[0], self.value_range[1])

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config

"""RandomInvert: replaces a random share of the images by `value_range[1] - image`."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_contrast import check_value_range


class RandomInvert(BaseImagePreprocessingLayer):
    """Inverts each image of a batch (`value_range[1] - x`) with a random probability.

    As in Keras 3.15.1, each image draws an inversion probability from
    `[factor[0], factor[1]]` and a threshold from `[0, 1)`, and is inverted when
    the threshold is below the probability; `factor=(1, 1)` inverts every image,
    `factor=(0, 0)` none.

    Args:
        factor: float f in [0, 1] (probabilities drawn from [0, f]) or (low, high).
        value_range: (min, max) of the images; the inverse is `max - x`.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.RandomInvert(factor=(1, 1), value_range=(0, 1))(np.zeros((1, 2, 2, 3)))
        ... # every pixel becomes 1.0
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = check_value_range(self, value_range)

    def transform_images(self, images, training=True):
        if not training:
            return images
        images = ops.cast(images, self.compute_dtype)
        batch = (images.shape[0],)
        probability = self._uniform(batch, self.factor[0], self.factor[1])
        threshold = self._uniform(batch, 0.0, 1.0)
        invert = ops.reshape(threshold < probability, (-1, 1, 1, 1))
        return ops.where(invert, self.value_range[1] - images, images)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config

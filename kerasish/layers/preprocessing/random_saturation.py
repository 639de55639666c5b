"""RandomSaturation: scales each image's saturation by a random factor."""
from kerasish import ops
from kerasish.backend import config
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_contrast import sorted_value_range
from kerasish.ops import image as image_ops


class RandomSaturation(BaseImagePreprocessingLayer):
    """Multiplies the HSV saturation by `f / (1 - f + epsilon)`, f drawn from `factor`
    (0.5 keeps the image, 0 makes it gray, 1 saturates), clipped to `value_range`,
    as Keras 3.15.1 (which converts the pixels to HSV as they are). Training only.

    Args:
        factor: float f (range [-f, f], as Keras's bounds give) or (low, high).
        value_range: (min, max) of the images.
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.RandomSaturation(0.5, seed=0)(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = sorted_value_range(self, value_range)

    def transform_images(self, images, training=True):
        self._check_images(images, channels=(3,))
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        factor = self._uniform((images.shape[0],), self.factor[0], self.factor[1])
        factor = ops.cast(factor / (1 - factor + config.epsilon()), self.compute_dtype)
        hsv = image_ops.rgb_to_hsv(images, data_format=self.data_format)
        axis = self.channel_axis
        h, s, v = (ops.take(hsv, i, axis=axis) for i in range(3))
        s = ops.clip(s * ops.reshape(factor, (-1, 1, 1)), self.value_range[0],
                     self.value_range[1])
        return image_ops.hsv_to_rgb(ops.stack([h, s, v], axis=axis),
                                    data_format=self.data_format)

    def get_config(self):
        config_dict = super().get_config()
        config_dict.update({"factor": self.factor, "value_range": self.value_range,
                            "seed": self.seed})
        return config_dict

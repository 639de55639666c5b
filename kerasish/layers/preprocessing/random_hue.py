"""RandomHue: rotates each image's hue by a random amount."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)
from kerasish.layers.preprocessing.random_contrast import check_value_range
from kerasish.ops import image as image_ops


class RandomHue(BaseImagePreprocessingLayer):
    """Shifts the hue by `±f / 2` (sign and f drawn per image, f from `factor`), wrapping
    around, as Keras 3.15.1. Training only.

    Args:
        factor: float f in [0, 1] (range [0, f]) or (low, high).
        value_range: (min, max) of the images.
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.RandomHue(0.5, seed=0)(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = check_value_range(self, value_range)

    def transform_images(self, images, training=True):
        self._check_images(images, channels=(3,))
        if not training:
            return images  # as Keras: not cast at inference (an integer image stays one)
        images = ops.cast(images, self.compute_dtype)
        batch = images.shape[0]
        invert = ops.where(self._uniform((batch,), 0.0, 1.0) > 0.5, -1.0, 1.0)
        shift = invert * self._uniform((batch,), self.factor[0], self.factor[1]) * 0.5
        x = transform_value_range(images, self.value_range, (0, 1))
        hsv = image_ops.rgb_to_hsv(x, data_format=self.data_format)
        axis = self.channel_axis
        h, s, v = (ops.take(hsv, i, axis=axis) for i in range(3))
        h = h + ops.reshape(ops.cast(shift, self.compute_dtype), (-1, 1, 1))
        h = ops.where(h > 1.0, h - 1.0, h)
        h = ops.where(h < 0.0, h + 1.0, h)
        rgb = image_ops.hsv_to_rgb(ops.stack([h, s, v], axis=axis), data_format=self.data_format)
        return transform_value_range(ops.clip(rgb, 0, 1), (0, 1), self.value_range)

    def get_config(self):
        config_dict = super().get_config()
        config_dict.update({"factor": self.factor, "value_range": self.value_range,
                            "seed": self.seed})
        return config_dict

"""RandomPosterization: keeps only the top bits of every 8-bit colour value."""
from kerasish import ops, random
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)
from kerasish.layers.preprocessing.random_contrast import sorted_value_range

_MAX_BITS = 8


class RandomPosterization(BaseImagePreprocessingLayer):
    """Reduces each image to `bits` bits per channel: `(x >> (8 - bits)) << (8 - bits)`.

    As in Keras 3.15.1, the images are mapped to [0, 255], cast to uint8 (which
    truncates), shifted, and mapped back to `value_range`; the number of bits is
    drawn per image from `[factor[0], factor[1])` (upper bound excluded), or is
    `factor[0]` when both bounds are equal.

    Args:
        factor: int f in [1, 8] (bits drawn from [1, f)) or (low, high) in [1, 8].
        value_range: (min, max) of the images.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> layer = keras.layers.RandomPosterization(factor=(2, 2))
        >>> layer(np.full((1, 1, 1, 1), 200.0))   # 200 = 0b11001000 -> 0b11000000 = 192
    """

    _FACTOR_BOUNDS = (1, _MAX_BITS)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = sorted_value_range(self, value_range)

    def _bits(self, batch):
        low, high = self.factor
        if low != high:
            return random.randint((batch,), int(low), int(high), dtype="uint8",
                                  seed=self.generator)
        return ops.full((batch,), int(low), dtype="uint8")

    def transform_images(self, images, training=True):
        if not training:
            return images
        shift = ops.reshape(_MAX_BITS - self._bits(images.shape[0]), (-1, 1, 1, 1))
        if self.value_range != (0, 255):
            images = transform_value_range(ops.cast(images, self.compute_dtype),
                                           self.value_range, (0, 255))
        pixels = ops.cast(images, "uint8")
        pixels = ops.left_shift(ops.right_shift(pixels, ops.cast(shift, "uint8")),
                                ops.cast(shift, "uint8"))
        out = ops.cast(pixels, self.compute_dtype)
        return transform_value_range(out, (0, 255), self.value_range)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config

"""RandomSharpness: blends each image with a 3x3 smoothing of itself, by a random factor."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_contrast import sorted_value_range

_EDGE, _CENTRE = 1.0 / 13.0, 5.0 / 13.0


class RandomSharpness(BaseImagePreprocessingLayer):
    """`x + (1 - 2 f) * (smooth(x) - x)` clipped to `value_range`, f drawn per image.

    As in Keras 3.15.1: `smooth` is a "same"-padded (zeros) depthwise 3x3
    convolution with weights 1/13 around 5/13, and `f` is drawn from
    `[factor[0], factor[1]]`; f = 0.5 keeps the image, smaller values blur it,
    larger values sharpen it. The input is cast to the compute dtype.

    Args:
        factor: float f in [0, 1] (draws from [0, f]) or (low, high).
        value_range: (min, max) of the images (the clip range).
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.RandomSharpness(factor=(0.5, 0.5))(np.ones((1, 3, 3, 1)))
        ... # the same image: f = 0.5 leaves it unchanged
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = sorted_value_range(self, value_range)

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        sharpness = ops.reshape(
            ops.cast(self._uniform((images.shape[0],), *self.factor) * 2, self.compute_dtype),
            (-1, 1, 1, 1))
        channels = images.shape[self.channel_axis]
        kernel = ops.convert_to_tensor([[_EDGE, _EDGE, _EDGE], [_EDGE, _CENTRE, _EDGE],
                                        [_EDGE, _EDGE, _EDGE]], dtype=self.compute_dtype)
        kernel = ops.tile(ops.reshape(kernel, (3, 3, 1, 1)), [1, 1, channels, 1])
        last = images if self.data_format == "channels_last" else \
            ops.transpose(images, (0, 2, 3, 1))
        smoothed = ops.depthwise_conv(last, kernel, strides=1, padding="same",
                                      data_format="channels_last")
        if self.data_format == "channels_first":
            smoothed = ops.transpose(smoothed, (0, 3, 1, 2))
        images = images + (1.0 - sharpness) * (smoothed - images)
        return ops.clip(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config

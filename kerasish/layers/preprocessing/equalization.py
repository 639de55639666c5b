"""Equalization: histogram equalisation of every channel."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             transform_value_range)
from kerasish.layers.preprocessing.random_contrast import sorted_value_range


class Equalization(BaseImagePreprocessingLayer):
    """Spreads each channel's values over [0, 255] through its cumulative histogram.

    As in Keras 3.15.1: each channel is mapped to [0, 255], its histogram of
    `bins` bins is taken over the whole batch (not image by image), and values
    go through the lookup table `round(255 * (cdf - cdf_min) / (cdf[-1] - cdf_min))`;
    a channel whose values fall in a single bin is left as it is. The layer
    acts when training (a direct call trains, as in Keras) and gives its input
    back otherwise.

    Args:
        value_range: (min, max) of the images.
        bins: number of histogram bins.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.Equalization()(np.array([[[[0.0], [64.0], [128.0], [255.0]]]]))
        ... # [[[[0.], [85.], [170.], [255.]]]]
    """

    _has_seed_generator = False  # Keras's draws nothing

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = int(bins)
        if self.bins < 1:
            raise ValueError(f"Equalization: `bins` must be a positive integer. "
                             f"Received: bins={bins}")
        self.value_range = sorted_value_range(self, value_range)

    def _equalize(self, channel):
        channel = transform_value_range(channel, self.value_range, (0, 255))
        indices = ops.clip(ops.cast(channel * ((self.bins - 1) / 255.0), "int32"),
                           0, self.bins - 1)
        hist = ops.bincount(ops.reshape(indices, (-1,)), minlength=self.bins)
        if int(ops.count_nonzero(hist)) <= 1:
            return transform_value_range(channel, (0, 255), self.value_range)
        cdf = ops.cumsum(hist)
        cdf_min = cdf[int(ops.nonzero(cdf)[0][0])]
        denominator = cdf[-1] - cdf_min
        denominator = ops.where(denominator == 0, 1, denominator)
        table = ops.clip(ops.round(ops.cast(cdf - cdf_min, "float64") * 255
                                   / ops.cast(denominator, "float64")), 0, 255)
        lookup = ops.cast(ops.clip((channel / 255.0) * (self.bins - 1), 0, self.bins - 1),
                          "int32")
        equalized = ops.take(table, lookup)
        return transform_value_range(equalized, (0, 255), self.value_range)

    def transform_images(self, images, training=True):
        if not training:
            return images
        images = ops.cast(images, self.compute_dtype)
        axis = self.channel_axis
        channels = [self._equalize(ops.take(images, i, axis=axis))
                    for i in range(images.shape[axis])]
        return ops.cast(ops.stack(channels, axis=axis), self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"bins": self.bins, "value_range": self.value_range})
        return config

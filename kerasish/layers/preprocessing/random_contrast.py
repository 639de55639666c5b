"""RandomContrast: scales each image's deviation from its mean by a random factor."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer


class RandomContrast(BaseImagePreprocessingLayer):
    """`(x - mean) * c + mean` per image and channel, c drawn from
    `[1 - factor[0], 1 + factor[1]]`, clipped to `value_range` (training only).

    Args:
        factor: float f (range [1 - 0, 1 + f] as Keras's bounds give) or (low, high).
        value_range: (min, max) of the images.
        seed: int seed.

    Example:
        >>> keras.layers.RandomContrast(0.5, seed=0)(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.value_range = check_value_range(self, value_range)

    def transform_images(self, images, training=True):
        if not training:
            return images   # as Keras: not cast at inference (an integer image stays one)
        images = ops.cast(images, self.compute_dtype)
        factor = self._uniform((images.shape[0], 1, 1, 1), 1.0 - self.factor[0],
                               1.0 + self.factor[1], dtype=self.compute_dtype)
        mean = ops.mean(ops.mean(images, axis=self.height_axis, keepdims=True),
                        axis=self.width_axis, keepdims=True)
        out = (images - mean) * factor + mean
        return ops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config


def sorted_value_range(layer, value_range):
    """Keras's `_set_value_range` of the color layers: the two bounds sorted, as a list
    (so `get_config` prints `[0, 255]` and a reversed pair is accepted)."""
    if isinstance(value_range, (tuple, list)) and len(value_range) == 2:
        value_range = sorted(value_range)
    return list(check_value_range(layer, value_range))


def check_value_range(layer, value_range):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2 or \
            value_range[0] >= value_range[1]:
        raise ValueError(f"{type(layer).__name__}: the `value_range` argument should be a list "
                         f"of two numbers, (min, max). Received: value_range={value_range}")
    return tuple(value_range)

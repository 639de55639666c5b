"""RandomColorDegeneration: blends each image towards its grayscale version."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops


class RandomColorDegeneration(BaseImagePreprocessingLayer):
    """`x + f * (gray(x) - x)` clipped to `value_range`, f drawn per image (training only).

    As in Keras 3.15.1: `f` is drawn from `[factor[0], factor[1]]` (a float
    `f` gives `[-f, f]`, so negative draws push colours away from gray), and
    `gray` is `ops.image.rgb_to_grayscale`. Images must have 3 channels.

    Args:
        factor: float f in [0, 1] or (low, high) in [-1, 1].
        value_range: (min, max) of the images.
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> gray = keras.layers.RandomColorDegeneration(factor=(1, 1))
        >>> gray(np.array([[[[255.0, 0.0, 0.0]]]]))   # pure red -> its luminance
        ... # [[[[76.245, 76.245, 76.245]]]]
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("RandomColorDegeneration: the `value_range` argument should be a "
                             f"list of two numbers. Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    def get_random_transformation(self, images):
        """{"factor": (batch, 1, 1, 1) draws from `factor`}."""
        return {"factor": self._uniform((images.shape[0], 1, 1, 1), *self.factor)}

    def transform_images(self, images, transformation=None, training=True):
        self._check_images(images, channels=(3,))
        if not training:
            return images  # as Keras: not cast at inference (an integer image stays one)
        images = ops.cast(images, self.compute_dtype)
        transformation = transformation or self.get_random_transformation(images)
        factor = ops.cast(transformation["factor"], self.compute_dtype)
        gray = image_ops.rgb_to_grayscale(images, data_format=self.data_format)
        images = images + factor * (gray - images)
        return ops.cast(ops.clip(images, self.value_range[0], self.value_range[1]),
                        self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range,
                       "seed": self.seed})
        return config

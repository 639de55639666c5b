"""RandomFlip: flips images horizontally and/or vertically at random."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer

_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class RandomFlip(BaseImagePreprocessingLayer):
    """Flips each image with probability 1/2 in training (identity at inference).

    As Keras, "horizontal_and_vertical" draws one coin per image: the image
    is either unchanged or flipped on both axes.

    Args:
        mode: "horizontal", "vertical" or "horizontal_and_vertical".
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> flip = keras.layers.RandomFlip("horizontal", seed=0)
        >>> flip(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        if mode not in _MODES:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument "
                             f"{mode!r}. Expected one of {list(_MODES)}.")
        self.mode = mode

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        flips = ops.less_equal(self._uniform((images.shape[0], 1, 1, 1), 0.0, 1.0), 0.5)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = ops.where(flips, ops.flip(images, axis=self.width_axis), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = ops.where(flips, ops.flip(images, axis=self.height_axis), images)
        return images

    def get_config(self):
        config = super().get_config()
        config.update({"seed": self.seed, "mode": self.mode})
        return config

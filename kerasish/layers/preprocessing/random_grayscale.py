"""RandomGrayscale: turns images to grayscale (kept as 3 channels) with a probability."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops


class RandomGrayscale(BaseImagePreprocessingLayer):
    """Replaces each RGB image by its luma (broadcast to the 3 channels) with
    probability `factor` (training only).

    Args:
        factor: probability in [0, 1].
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.RandomGrayscale(1.0)(np.ones((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError("RandomGrayscale: `factor` should be between 0 and 1. "
                             f"Received: factor={factor}")
        self.factor = factor

    def transform_images(self, images, training=True):
        self._check_images(images, channels=(3,))
        if not training:  # as Keras, integer images keep their dtype (no cast here)
            return images
        apply = ops.reshape(ops.less(self._uniform((images.shape[0],), 0.0, 1.0), self.factor),
                            (-1, 1, 1, 1))
        gray = image_ops.rgb_to_grayscale(images, data_format=self.data_format)
        return ops.where(apply, gray, images)

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config

"""RandomCrop: a random (height, width) box in training, the centre box at inference."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.random import make_default_seed
from kerasish.utils import image_utils


class RandomCrop(BaseImagePreprocessingLayer):
    """Crops a random box in training (one offset for the whole batch, as Keras).
    In training, an input not larger than the target is centre-cropped to the
    target aspect ratio and resized; at inference the input passes unchanged
    (as Keras 3.15.1).

    Args:
        height, width: output size.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.RandomCrop(2, 3, seed=1)(np.ones((4, 5, 5, 3))).shape
        (4, 2, 3, 3)
    """

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        # As Keras: without a seed, the config's seed is drawn first, then the
        # generator draws its own (two draws from Python's `random`).
        config_seed = make_default_seed() if seed is None else seed
        super().__init__(data_format=data_format, seed=seed, name=name, **kwargs)
        self.seed = config_seed
        self.height, self.width = height, width

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        in_h, in_w = images.shape[self.height_axis], images.shape[self.width_axis]
        if not (training and in_h > self.height and in_w > self.width):
            return image_utils.smart_resize(images, (self.height, self.width),
                                            data_format=self.data_format)
        top = int(float(self._uniform((), 0, float(in_h - self.height + 1)).numpy()))
        left = int(float(self._uniform((), 0, float(in_w - self.width + 1)).numpy()))
        if self.data_format == "channels_last":
            return images[:, top:top + self.height, left:left + self.width, :]
        return images[:, :, top:top + self.height, left:left + self.width]

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self.height_axis], shape[self.width_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config

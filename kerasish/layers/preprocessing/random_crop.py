"""RandomCrop: a random (height, width) box in training, the centre box at inference."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops
from kerasish.random import make_default_seed


class RandomCrop(BaseImagePreprocessingLayer):
    """Crops a random box in training (one offset for the whole batch, as Keras).
    In training, an input not larger than the target (in both dimensions) is
    sliced from the offsets of a centre crop to the target aspect ratio and
    resized to the target; at inference the input passes unchanged (as Keras
    3.15.1).

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
        self.autocast = False   # Keras's `_convert_input_args = False`: inputs come as given

    def transform_images(self, images, training=True):
        if not training:
            return images   # as Keras 3.15.1: unchanged at inference, not even cast
        images = ops.cast(images, self.compute_dtype)
        in_h, in_w = images.shape[self.height_axis], images.shape[self.width_axis]
        if in_h > self.height and in_w > self.width:
            top = int(float(self._uniform((), 0, float(in_h - self.height + 1)).numpy()))
            left = int(float(self._uniform((), 0, float(in_w - self.width + 1)).numpy()))
        else:
            # Keras's fallback: the offsets of a centre crop to the target aspect
            # ratio, but a target-sized slice from there (shorter where the input is
            # smaller), resized to the target.
            crop_h = max(min(in_h, int(float(in_w * self.height) / self.width)), 1)
            crop_w = max(min(in_w, int(float(in_h * self.width) / self.height)), 1)
            top, left = int(float(in_h - crop_h) / 2), int(float(in_w - crop_w) / 2)
        if self.data_format == "channels_last":
            images = images[:, top:top + self.height, left:left + self.width, :]
        else:
            images = images[:, :, top:top + self.height, left:left + self.width]
        if (images.shape[self.height_axis], images.shape[self.width_axis]) != (self.height,
                                                                             self.width):
            resized = image_ops.resize(ops.cast(images, "float32"), (self.height, self.width),
                                       data_format=self.data_format)
            images = ops.cast(resized, self.compute_dtype)
        return images

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self.height_axis], shape[self.width_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "seed": self.seed})
        return config

"""RandomShear: shears images along x and y by random factors."""
import numpy as np

from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_rotation import check_fill_and_interpolation
from kerasish.ops import image as image_ops


class RandomShear(BaseImagePreprocessingLayer):
    """Shears each image by `(s_x, s_y)` drawn from the factors, with a random sign.

    As in Keras 3.15.1: per image, `s_x` from `[x_factor[0], x_factor[1]]` and
    `s_y` from `[y_factor[0], y_factor[1]]`, both negated with probability
    1/2 (one sign per image), applied with `ops.image.affine_transform` and
    the transform `[1, s_x, 0, s_y, 1, 0, 0, 0]`: output pixel (x, y) samples
    the input at `(x + s_x y, s_y x + y)`, a shear about the top-left corner.

    Args:
        x_factor: float f in [0, 1] (range [-f, f]) or (low, high) in [0, 1].
        y_factor: the same for y.
        interpolation: "bilinear" or "nearest".
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        fill_value: value outside the image for "constant".
        data_format: "channels_last" or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.RandomShear(x_factor=0.2, seed=0)(np.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.x_factor = _shear_factor(x_factor, "x_factor")
        self.y_factor = _shear_factor(y_factor, "y_factor")
        check_fill_and_interpolation(self, fill_mode, interpolation)
        self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, interpolation

    def get_random_transformation(self, images):
        """{"shear_factor": (batch, 2) signed `(s_x, s_y)` per image}."""
        batch = images.shape[0]
        invert = ops.where(self._uniform((batch, 1), 0.0, 1.0, self.compute_dtype) > 0.5,
                           -1.0, 1.0)
        shear_y = self._uniform((batch, 1), self.y_factor[0], self.y_factor[1],
                                self.compute_dtype)
        shear_x = self._uniform((batch, 1), self.x_factor[0], self.x_factor[1],
                                self.compute_dtype)
        factor = ops.concatenate([shear_x, shear_y], axis=1) * ops.cast(invert,
                                                                         self.compute_dtype)
        return {"shear_factor": factor}

    def transform_images(self, images, transformation=None, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        transformation = transformation or self.get_random_transformation(images)
        shear = np.asarray(ops.convert_to_numpy(transformation["shear_factor"]), "float32")
        ones, zeros = np.ones(len(shear), "float32"), np.zeros(len(shear), "float32")
        matrix = np.stack([ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros],
                          axis=1)
        return image_ops.affine_transform(images, matrix, interpolation=self.interpolation,
                                          fill_mode=self.fill_mode, fill_value=self.fill_value,
                                          data_format=self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update({"x_factor": self.x_factor, "y_factor": self.y_factor,
                       "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "seed": self.seed, "fill_value": self.fill_value})
        return config


def _shear_factor(factor, name):
    message = ("RandomShear: the `factor` argument should be a number (or a list of two "
               "numbers) in the range [0, 1.0]. ")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message + f"Received: {name}={factor}")
        for value in factor:
            if value > 1.0 or value < 0.0:
                raise ValueError(message + f"Received: input_number={value}")
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor > 1.0 or factor < 0.0:
            raise ValueError(message + f"Received: input_number={factor}")
        return (-abs(factor), abs(factor))
    raise ValueError(message + f"Received: {name}={factor}")

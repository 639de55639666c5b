"""RandomRotation: rotates images by a random angle about their centre."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import (BaseImagePreprocessingLayer,
                                                             affine_matrix)
from kerasish.ops import image as image_ops

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


class RandomRotation(BaseImagePreprocessingLayer):
    """Rotates each image by an angle drawn from `factor * 360` degrees (training only).

    Args:
        factor: fraction of a full turn: a float f (range [-f, f]) or (low, high).
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        interpolation: "bilinear" or "nearest".
        seed: int seed.
        fill_value: value outside the image for "constant".
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.RandomRotation(0.1, seed=0)(np.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        check_fill_and_interpolation(self, fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        angles = self._uniform((images.shape[0],), self.factor[0] * 360.0,
                               self.factor[1] * 360.0).numpy()
        matrix = affine_matrix(angles, images.shape[self.height_axis],
                               images.shape[self.width_axis])
        return image_ops.affine_transform(images, matrix, interpolation=self.interpolation,
                                          fill_mode=self.fill_mode, fill_value=self.fill_value,
                                          data_format=self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "fill_mode": self.fill_mode,
                       "fill_value": self.fill_value, "interpolation": self.interpolation,
                       "seed": self.seed})
        return config


def check_fill_and_interpolation(layer, fill_mode, interpolation):
    if fill_mode not in _FILL_MODES:
        raise NotImplementedError(f"{type(layer).__name__}: unknown `fill_mode` {fill_mode}. "
                                  f"Expected of one {_FILL_MODES}.")
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"{type(layer).__name__}: unknown `interpolation` "
                                  f"{interpolation}. Expected of one {_INTERPOLATIONS}.")

"""RandomPerspective: moves the four corners of some images by random offsets."""
import numpy as np

from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops

_INTERPOLATIONS = ("nearest", "bilinear")


class RandomPerspective(BaseImagePreprocessingLayer):
    """Warps images by a random perspective, with probability drawn from `factor`.

    As in Keras 3.15.1: the corners `(0, 0), (w-1, 0), (0, h-1), (w-1, h-1)`
    move to `corner * (1 + u)` with `u` uniform in `[-scale/2, scale/2]` per
    coordinate (so the top-left corner never moves), through
    `ops.image.perspective_transform` with a constant fill; an image is warped
    when a uniform threshold falls below its probability drawn from `factor`.

    Args:
        factor: float f in [0, 1] (probabilities drawn from [0, f]) or (low, high).
        scale: float in [0, 1], the size of the corner offsets.
        interpolation: "bilinear" or "nearest".
        fill_value: value of pixels from outside the image.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.RandomPerspective(scale=0.2, seed=0)(np.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        if scale < 0.0 or scale > 1.0:
            raise ValueError("RandomPerspective: the `scale` argument should be a number in "
                             f"the range [0,1]. Received: scale={scale}")
        if interpolation not in _INTERPOLATIONS:
            raise NotImplementedError(f"RandomPerspective: unknown `interpolation` "
                                      f"{interpolation}. Expected of one {_INTERPOLATIONS}.")
        self.scale, self.fill_value, self.interpolation = scale, fill_value, interpolation

    def get_random_transformation(self, images):
        """"apply_perspective" (batch,), "start_points" and "end_points" (batch, 4, 2)."""
        batch = images.shape[0]
        height, width = images.shape[self.height_axis], images.shape[self.width_axis]
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        threshold = self._uniform((batch,), 0.0, 1.0)
        offsets = ops.convert_to_numpy(self._uniform((batch, 4, 2), -0.5 * self.scale,
                                                     0.5 * self.scale, self.compute_dtype))
        start = np.repeat(np.array([[[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1],
                                     [width - 1, height - 1]]], dtype=offsets.dtype),
                          batch, axis=0)
        return {"apply_perspective": threshold < probability, "start_points": start,
                "end_points": start + start * offsets}

    def transform_images(self, images, transformation=None, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        transformation = transformation or self.get_random_transformation(images)
        warped = image_ops.perspective_transform(
            images, transformation["start_points"], transformation["end_points"],
            interpolation=self.interpolation, fill_value=self.fill_value,
            data_format=self.data_format)
        apply = ops.reshape(transformation["apply_perspective"], (-1, 1, 1, 1))
        return ops.where(apply, warped, images)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "scale": self.scale,
                       "interpolation": self.interpolation, "fill_value": self.fill_value,
                       "seed": self.seed})
        return config

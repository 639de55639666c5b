"""RandomElasticTransform: elastic deformation of some images, random strength."""
from kerasish import ops
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.ops import image as image_ops

_INTERPOLATIONS = ("nearest", "bilinear")
_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


class RandomElasticTransform(BaseImagePreprocessingLayer):
    """`ops.image.elastic_transform` of some images, its strength drawn per batch.

    As in Keras 3.15.1: one distortion `d` is drawn from `scale` for the batch,
    giving `alpha = max(h, w) * 0.1 d` and `sigma = min(h, w) * 0.05 d`; an
    image is deformed when a uniform threshold falls below its probability
    drawn from `factor`; the result is clipped to `value_range`. Nothing
    happens when `scale[1]` or `factor[1]` is 0.

    Args:
        factor: float f in [0, 1] (probabilities drawn from [0, f]) or (low, high).
        scale: float s in [0, 1] (distortions drawn from [0, s]) or (low, high).
        interpolation: "bilinear" or "nearest".
        fill_mode: "reflect", "constant", "nearest" or "wrap" ("mirror" is
            accepted here as in Keras, but `elastic_transform` rejects it).
        fill_value: value outside the image for "constant".
        value_range: (min, max) of the images.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> layer = keras.layers.RandomElasticTransform(scale=0.5, seed=0)
        >>> layer(np.random.random((2, 16, 16, 3)) * 255).shape
        (2, 16, 16, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.factor = self._set_factor(factor)
        self.scale = self._set_factor(scale, "scale")
        if interpolation not in _INTERPOLATIONS:
            raise NotImplementedError(f"RandomElasticTransform: unknown `interpolation` "
                                      f"{interpolation}. Expected of one {_INTERPOLATIONS}.")
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"RandomElasticTransform: unknown `fill_mode` "
                                      f"{fill_mode}. Expected of one {set(_FILL_MODES)}.")
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, fill_value
        self.value_range = value_range

    def get_random_transformation(self, images):
        """"apply_transform" (batch,) and one "distortion_factor"; None when disabled."""
        if self.scale[1] == 0 or self.factor[1] == 0:
            return None
        batch = images.shape[0]
        probability = self._uniform((batch,), self.factor[0], self.factor[1])
        threshold = self._uniform((batch,), 0.0, 1.0)
        distortion = self._uniform((), self.scale[0], self.scale[1], self.compute_dtype)
        return {"apply_transform": threshold < probability, "distortion_factor": distortion}

    def transform_images(self, images, transformation=None, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        transformation = transformation or self.get_random_transformation(images)
        if transformation is None:
            return images
        height, width = images.shape[self.height_axis], images.shape[self.width_axis]
        distortion = float(ops.convert_to_numpy(transformation["distortion_factor"]))
        deformed = image_ops.elastic_transform(
            images, alpha=max(height, width) * 0.1 * distortion,
            sigma=min(height, width) * 0.05 * distortion, interpolation=self.interpolation,
            fill_mode=self.fill_mode, fill_value=self.fill_value, seed=self.generator,
            data_format=self.data_format)
        apply = ops.reshape(transformation["apply_transform"], (-1, 1, 1, 1))
        images = ops.where(apply, deformed, images)
        return ops.cast(ops.clip(images, self.value_range[0], self.value_range[1]),
                        self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "scale": self.scale,
                       "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                       "fill_value": self.fill_value, "value_range": self.value_range,
                       "seed": self.seed})
        return config

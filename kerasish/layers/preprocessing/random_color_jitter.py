"""RandomColorJitter: random brightness, contrast, saturation and hue, in that order."""
from kerasish import ops
from kerasish.layers.preprocessing.augment_ops import apply_drawing_from
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer
from kerasish.layers.preprocessing.random_brightness import RandomBrightness
from kerasish.layers.preprocessing.random_contrast import RandomContrast
from kerasish.layers.preprocessing.random_hue import RandomHue
from kerasish.layers.preprocessing.random_saturation import RandomSaturation


class RandomColorJitter(BaseImagePreprocessingLayer):
    """Applies `RandomBrightness`, `RandomContrast`, `RandomSaturation` and `RandomHue`
    (those whose factor is given), in that order, as Keras 3.15.1 (training only).

    Each is the layer of that name built with the factor, `value_range`,
    `seed` and `data_format` given here, and draws its own factor per image
    from this layer's generator, one step after the other
    (Keras 3.15.1 builds them with the global data format, which garbles
    channels_first images; kerasish passes the layer's own).

    Args:
        value_range: (min, max) of the images.
        brightness_factor, contrast_factor, saturation_factor, hue_factor:
            the factor of each layer, or None to skip it.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> jitter = keras.layers.RandomColorJitter(brightness_factor=0.2, hue_factor=0.1)
        >>> jitter(np.random.random((2, 8, 8, 3)) * 255).shape
        (2, 8, 8, 3)
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        common = {"value_range": value_range, "seed": seed, "data_format": self.data_format}
        self.steps = [cls(factor, **common) for cls, factor in (
            (RandomBrightness, brightness_factor), (RandomContrast, contrast_factor),
            (RandomSaturation, saturation_factor), (RandomHue, hue_factor))
            if factor is not None]

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        for step in self.steps:
            # As Keras: every step draws from the jitter's own generator, one after the
            # other (not from its own, which would repeat the same draws per step).
            images = apply_drawing_from(step, images, self.generator)
        return ops.cast(images, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range,
                       "brightness_factor": self.brightness_factor,
                       "contrast_factor": self.contrast_factor,
                       "saturation_factor": self.saturation_factor,
                       "hue_factor": self.hue_factor,
                       "seed": self.seed})
        return config

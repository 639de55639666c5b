"""RandAugment: applies `num_ops` augmentations chosen at random to each batch."""
from kerasish import ops, random
from kerasish.layers.preprocessing.augment_ops import augmentation_layers
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer

AUGMENT_LAYERS = ["random_shear", "random_translation", "random_rotation",
                  "random_brightness", "random_color_degeneration", "random_contrast",
                  "random_sharpness", "random_posterization", "solarization", "auto_contrast",
                  "equalization"]


class RandAugment(BaseImagePreprocessingLayer):
    """`num_ops` augmentations, each drawn uniformly among eleven layers (training only).

    As in Keras 3.15.1: the layer indices are drawn once per batch (the whole
    batch gets the same layers); the layers are RandomShear,
    RandomTranslation, RandomRotation, RandomBrightness,
    RandomColorDegeneration, RandomContrast, RandomSharpness (factor
    `factor`), RandomPosterization (`max(1, int(8 factor[1]))` bits),
    Solarization, AutoContrast and Equalization. Each application draws the
    layer's own factors per image (Keras draws one transformation per layer
    and call, so a layer picked twice in one call repeats its draw there).

    Args:
        value_range: (min, max) of the images.
        num_ops: augmentations applied per batch.
        factor: float f in [0, 1] (range [0, f]) or (low, high): the strength.
        interpolation: "bilinear" or "nearest" for the geometric layers.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.RandAugment(seed=0)(np.random.random((2, 16, 16, 3)) * 255).shape
        (2, 16, 16, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range, self.num_ops = value_range, num_ops
        self.factor = self._set_factor(factor)
        self.interpolation = interpolation
        self.augmentations = augmentation_layers(AUGMENT_LAYERS, self.factor, value_range,
                                                 interpolation, seed, self.data_format)

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        chosen = ops.convert_to_numpy(random.randint((self.num_ops,), 0, len(AUGMENT_LAYERS),
                                                     seed=self.generator))
        for index in chosen:
            images = self.augmentations[AUGMENT_LAYERS[int(index)]].transform_images(
                images, training=True)
        return ops.cast(images, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range, "num_ops": self.num_ops,
                       "factor": self.factor, "interpolation": self.interpolation})
        return config

"""RandAugment: applies `num_ops` augmentations chosen at random to each batch."""
from kerasish import ops, random
from kerasish.layers.preprocessing.augment_ops import apply_drawing_from, augmentation_layers
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
    Solarization, AutoContrast and Equalization. After the indices, each of
    the eleven layers draws one transformation (its factors per image) from
    RandAugment's generator, in that order, whether chosen or not; a layer
    chosen twice applies the same draw twice.

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
        # As Keras: after the indices, every layer (in AUGMENT_LAYERS order) draws one
        # transformation from RandAugment's generator, and a chosen layer applies its
        # draw (twice if chosen twice). Each layer's draws are replayed from the
        # generator state they start at.
        seed, start = self.generator.get_state()
        offsets = self._draw_offsets(images)
        try:
            for index in chosen:
                name = AUGMENT_LAYERS[int(index)]
                self.generator.set_state((seed, start + offsets[name]))
                images = apply_drawing_from(self.augmentations[name], images, self.generator)
        finally:
            self.generator.set_state((seed, start + offsets[None]))
        return ops.cast(images, self.compute_dtype)

    def _draw_offsets(self, images):
        """{layer name: how many draws the layers before it take; None: all of them}.
        Counted once by running each layer (its number of draws is fixed)."""
        if not hasattr(self, "_offsets"):
            seed, start = self.generator.get_state()
            offsets, total = {}, 0
            for name in AUGMENT_LAYERS:
                offsets[name] = total
                self.generator.set_state((seed, start))
                apply_drawing_from(self.augmentations[name], images, self.generator)
                total += self.generator.get_state()[1] - start
            self.generator.set_state((seed, start))
            offsets[None] = total
            self._offsets = offsets
        return self._offsets

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range, "num_ops": self.num_ops,
                       "factor": self.factor, "interpolation": self.interpolation,
                       "seed": self.seed})
        return config

"""AugMix: mixes each batch with chains of random augmentations of itself."""
import random as py_random

from kerasish import ops, random
from kerasish.layers.preprocessing.augment_ops import apply_drawing_from, augmentation_layers
from kerasish.layers.preprocessing.base_image_layer import BaseImagePreprocessingLayer

AUGMENT_LAYERS_ALL = ["random_shear", "random_translation", "random_rotation",
                      "random_posterization", "solarization", "auto_contrast", "equalization",
                      "random_brightness", "random_color_degeneration", "random_contrast",
                      "random_sharpness"]
AUGMENT_LAYERS = AUGMENT_LAYERS_ALL[:7]


class AugMix(BaseImagePreprocessingLayer):
    """`w x + (1 - w) sum_i m_i chain_i(x)`, clipped to `value_range` (training only).

    As in Keras 3.15.1: `num_chains` chains each apply up to `chain_depth`
    augmentations, every step picking one of the augmentation layers or none
    with Python's `random.choice` (the global generator, as Keras); the chain
    weights `m` come from a Dirichlet(`alpha`) draw and `w` from
    Beta(`alpha`, `alpha`), one of each per batch. The augmentations are the
    layers RandomShear, RandomTranslation, RandomRotation (factor `factor`),
    RandomPosterization (`max(1, int(8 factor[1]))` bits), Solarization,
    AutoContrast and Equalization, plus RandomBrightness,
    RandomColorDegeneration, RandomContrast and RandomSharpness with
    `all_ops`. Each layer draws its factors per image from AugMix's generator,
    in chain order (as Keras draws every chain's transformations first).

    Args:
        value_range: (min, max) of the images.
        num_chains: number of augmentation chains.
        chain_depth: steps per chain.
        factor: float f in [0, 1] (range [0, f]) or (low, high): the strength.
        alpha: Dirichlet and Beta parameter.
        all_ops: include the colour layers.
        interpolation: "bilinear" or "nearest" for the geometric layers.
        seed: int seed.
        data_format: "channels_last" or "channels_first".

    Example:
        >>> keras.layers.AugMix(seed=0)(np.random.random((2, 16, 16, 3)) * 255).shape
        (2, 16, 16, 3)
    """

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, seed=seed, **kwargs)
        self.value_range, self.num_chains, self.chain_depth = value_range, num_chains, chain_depth
        self.factor = self._set_factor(factor)
        self.alpha, self.all_ops, self.interpolation = alpha, all_ops, interpolation
        self._augment_layers = AUGMENT_LAYERS_ALL if all_ops else AUGMENT_LAYERS
        self.augmentations = augmentation_layers(self._augment_layers, self.factor, value_range,
                                                 interpolation, seed, self.data_format)

    def transform_images(self, images, training=True):
        images = ops.cast(images, self.compute_dtype)
        if not training:
            return images
        gamma = random.gamma((self.num_chains,), self.alpha, seed=self.generator)
        chain_weights = ops.cast(gamma / ops.sum(gamma, axis=-1, keepdims=True),
                                 self.compute_dtype)
        weight = ops.cast(random.beta((), self.alpha, self.alpha, seed=self.generator),
                          self.compute_dtype)
        mixed = ops.zeros_like(images)
        for chain in range(self.num_chains):
            augmented = images
            for _ in range(self.chain_depth):
                name = py_random.choice(self._augment_layers + [None])
                if name is not None:   # drawing from AugMix's generator, as Keras
                    augmented = apply_drawing_from(self.augmentations[name], augmented,
                                                   self.generator)
            mixed = mixed + augmented * chain_weights[chain]
        images = weight * images + (1 - weight) * mixed
        return ops.cast(ops.clip(images, self.value_range[0], self.value_range[1]),
                        self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": self.value_range, "num_chains": self.num_chains,
                       "chain_depth": self.chain_depth, "factor": self.factor,
                       "alpha": self.alpha, "all_ops": self.all_ops,
                       "interpolation": self.interpolation, "seed": self.seed})
        return config

"""The augmentation layers AugMix and RandAugment choose from, built as Keras 3.15.1 builds them,
and the way composite layers make them draw from their own generator."""
import contextlib

from kerasish.layers.preprocessing.auto_contrast import AutoContrast
from kerasish.layers.preprocessing.equalization import Equalization
from kerasish.layers.preprocessing.random_brightness import RandomBrightness
from kerasish.layers.preprocessing.random_color_degeneration import RandomColorDegeneration
from kerasish.layers.preprocessing.random_contrast import RandomContrast
from kerasish.layers.preprocessing.random_posterization import RandomPosterization
from kerasish.layers.preprocessing.random_rotation import RandomRotation
from kerasish.layers.preprocessing.random_sharpness import RandomSharpness
from kerasish.layers.preprocessing.random_shear import RandomShear
from kerasish.layers.preprocessing.random_translation import RandomTranslation
from kerasish.layers.preprocessing.solarization import Solarization


def augmentation_layers(names, factor, value_range, interpolation, seed, data_format):
    """{name: layer} for the names of Keras's AUGMENT_LAYERS lists, with Keras's arguments.

    Args:
        names: layer names ("random_shear", "solarization", ...).
        factor: the (low, high) factor of the composite layer.
        value_range, interpolation, seed, data_format: passed on as Keras does.

    Returns:
        dict from name to a new layer.
    """
    common = {"seed": seed, "data_format": data_format}
    valued = {"value_range": value_range, **common}
    makers = {
        "random_shear": lambda: RandomShear(x_factor=factor, y_factor=factor,
                                            interpolation=interpolation, **common),
        "random_translation": lambda: RandomTranslation(
            height_factor=factor, width_factor=factor, interpolation=interpolation, **common),
        "random_rotation": lambda: RandomRotation(factor=factor, interpolation=interpolation,
                                                  **common),
        "random_brightness": lambda: RandomBrightness(factor=factor, **valued),
        "random_color_degeneration": lambda: RandomColorDegeneration(factor=factor, **valued),
        "random_contrast": lambda: RandomContrast(factor=factor, **valued),
        "random_sharpness": lambda: RandomSharpness(factor=factor, **valued),
        "solarization": lambda: Solarization(addition_factor=factor, threshold_factor=factor,
                                             **valued),
        "random_posterization": lambda: RandomPosterization(
            factor=max(1, int(8 * factor[1])), **valued),
        "auto_contrast": lambda: AutoContrast(value_range=value_range, data_format=data_format),
        "equalization": lambda: Equalization(value_range=value_range, data_format=data_format),
    }
    return {name: makers[name]() for name in names}


@contextlib.contextmanager
def drawing_from(layer, generator):
    """Within it, `layer` draws from `generator` instead of its own: Keras's composite
    layers (AugMix, RandAugment, RandomColorJitter) pass their generator to their
    sublayers' `get_random_transformation`."""
    own, layer.generator = layer.generator, generator
    try:
        yield
    finally:
        layer.generator = own


def apply_drawing_from(layer, images, generator):
    """`layer.transform_images(images)` in training, its draws taken from `generator`."""
    with drawing_from(layer, generator):
        return layer.transform_images(images, training=True)

"""The image layers' get_config keys come in Keras 3.15.1's order.

The orders below are what `list(layer.get_config())` prints under Keras 3.15.1
(its base image layer adds only `data_format`; each layer puts `seed` where its
own get_config does, and the non-random layers have none).
"""
import pytest

from kerasish import layers as L

BASE = ["name", "trainable", "dtype", "data_format"]
KERAS_ORDERS = {
    "RandomTranslation": ((0.1, 0.1), ["height_factor", "width_factor", "fill_mode",
                                       "interpolation", "seed", "fill_value"]),
    "RandomZoom": ((0.1,), ["height_factor", "width_factor", "fill_mode", "interpolation",
                            "seed", "fill_value"]),
    "RandomShear": ((0.1,), ["x_factor", "y_factor", "fill_mode", "interpolation", "seed",
                             "fill_value"]),
    "RandomCrop": ((2, 2), ["height", "width", "seed"]),
    "RandomFlip": ((), ["seed", "mode"]),
    "CutMix": ((), ["factor", "seed"]),
    "MixUp": ((), ["alpha", "seed"]),
    "AugMix": ((), ["value_range", "num_chains", "chain_depth", "factor", "alpha", "all_ops",
                    "interpolation", "seed"]),
    "RandAugment": ((), ["value_range", "num_ops", "factor", "interpolation", "seed"]),
    "Solarization": ((), ["value_range", "addition_factor", "threshold_factor", "seed"]),
    "Equalization": ((), ["bins", "value_range"]),
    "RandomErasing": ((), ["factor", "scale", "fill_value", "value_range", "seed"]),
    "RandomGaussianBlur": ((), ["factor", "kernel_size", "sigma", "value_range", "seed"]),
    "RandomElasticTransform": ((), ["factor", "scale", "interpolation", "fill_mode",
                                    "fill_value", "value_range", "seed"]),
    "RandomPerspective": ((), ["factor", "scale", "interpolation", "fill_value", "seed"]),
    "RandomColorJitter": ((), ["value_range", "brightness_factor", "contrast_factor",
                               "saturation_factor", "hue_factor", "seed"]),
    "RandomInvert": ((), ["factor", "value_range", "seed"]),
    "RandomPosterization": ((4,), ["factor", "value_range", "seed"]),
    "RandomSharpness": ((0.2,), ["factor", "value_range", "seed"]),
    "RandomHue": ((0.2, (0, 255)), ["factor", "value_range", "seed"]),
    "RandomSaturation": ((0.2,), ["factor", "value_range", "seed"]),
    "RandomBrightness": ((0.2,), ["factor", "value_range", "seed"]),
    "RandomContrast": ((0.2,), ["factor", "value_range", "seed"]),
    "RandomColorDegeneration": ((0.2,), ["factor", "value_range", "seed"]),
    "RandomRotation": ((0.2,), ["factor", "fill_mode", "fill_value", "interpolation", "seed"]),
    "RandomGrayscale": ((), ["factor"]),
    "AutoContrast": ((), ["value_range"]),
    "CenterCrop": ((2, 2), ["height", "width"]),
    "Resizing": ((2, 2), ["height", "width", "interpolation", "crop_to_aspect_ratio",
                          "pad_to_aspect_ratio", "fill_mode", "fill_value", "antialias"]),
}


@pytest.mark.parametrize("name", sorted(KERAS_ORDERS))
def test_config_keys_in_keras_order(name):
    args, own = KERAS_ORDERS[name]
    assert list(getattr(L, name)(*args).get_config()) == BASE + own


def test_seed_round_trips():
    layer = L.RandomRotation(0.2, seed=7)
    clone = L.RandomRotation.from_config(layer.get_config())
    assert clone.seed == 7 and clone.get_config() == layer.get_config()

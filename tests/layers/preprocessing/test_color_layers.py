"""Equalization, RandomPosterization, RandomInvert, RandomSharpness and RandomGaussianBlur against Keras 3.15.1
(fixtures/preprocessing/color_fixtures.npz, make_color_fixtures.py)."""
import os

import numpy as np
import pytest

import kerasish as keras

F = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "preprocessing",
                         "color_fixtures.npz"))
PIXELS, UNIT, SIGNED = F["pixels"], F["unit"], F["signed"]
L = keras.layers


@pytest.mark.parametrize("key, layer, images, kwargs", [
    ("eq_default", lambda: L.Equalization(), PIXELS, {}),
    ("eq_unit_bins16", lambda: L.Equalization(value_range=(0, 1), bins=16), UNIT, {}),
    ("eq_first", lambda: L.Equalization(data_format="channels_first"),
     np.transpose(PIXELS, (0, 3, 1, 2)), {}),
    ("eq_single_image", lambda: L.Equalization(), PIXELS[0], {}),
    ("eq_inference", lambda: L.Equalization(), PIXELS, {"training": False}),
    ("post_3", lambda: L.RandomPosterization(factor=(3, 3)), PIXELS, {}),
    ("post_unit_5", lambda: L.RandomPosterization(factor=(5, 5), value_range=(0, 1)), UNIT, {}),
    ("post_signed_2", lambda: L.RandomPosterization(factor=(2, 2), value_range=(1, -1)),
     SIGNED, {}),
    ("post_inference", lambda: L.RandomPosterization(factor=(3, 3)), PIXELS,
     {"training": False}),
    ("invert_all", lambda: L.RandomInvert(factor=(1, 1), value_range=(0, 1)), UNIT, {}),
    ("invert_none", lambda: L.RandomInvert(factor=(0, 0)), PIXELS, {}),
    ("invert_inference", lambda: L.RandomInvert(factor=(1, 1)), PIXELS, {"training": False}),
    ("sharp_blur", lambda: L.RandomSharpness(factor=(0.1, 0.1)), PIXELS, {}),
    ("sharp_sharpen_unit", lambda: L.RandomSharpness(factor=(0.9, 0.9), value_range=(0, 1)),
     UNIT, {}),
    ("sharp_first", lambda: L.RandomSharpness(factor=(0.8, 0.8), data_format="channels_first"),
     np.transpose(PIXELS, (0, 3, 1, 2)), {}),
    ("sharp_inference", lambda: L.RandomSharpness(factor=(0.9, 0.9)), PIXELS,
     {"training": False}),
    ("blur_half", lambda: L.RandomGaussianBlur(factor=(1, 1), sigma=(0.5, 0.5)), PIXELS, {}),
    ("blur_5_first", lambda: L.RandomGaussianBlur(
        factor=(1, 1), kernel_size=5, sigma=(0.9, 0.9), value_range=(0, 1),
        data_format="channels_first"), np.transpose(UNIT, (0, 3, 1, 2)), {}),
    ("blur_never", lambda: L.RandomGaussianBlur(factor=(0, 0), value_range=(10, 200)),
     PIXELS, {}),
])
def test_matches_keras(key, layer, images, kwargs):
    out = layer()(images, **kwargs).numpy()
    assert out.dtype == F[key].dtype and out.shape == F[key].shape
    np.testing.assert_allclose(out, F[key], rtol=1e-6, atol=2e-5)


def test_random_bits_and_inversions_vary_per_image_within_the_factor():
    images = np.full((64, 1, 1, 1), 255.0, "float32")
    kept = L.RandomPosterization(factor=(2, 5), seed=3)(images).numpy().ravel()
    bits = {8 - int(np.log2(256 - v)) for v in kept}   # 255 -> 256 - 2**(8 - bits)
    assert bits == {2, 3, 4}                             # upper bound excluded, as Keras
    inverted = L.RandomInvert(factor=(0.5, 0.5), seed=3)(images).numpy().ravel()
    assert set(inverted.tolist()) == {0.0, 255.0} and 10 < (inverted == 0).sum() < 54


def test_model_round_trip_and_config():
    model = keras.Sequential([keras.Input((5, 6, 3)),
                              L.Equalization(bins=64), L.RandomPosterization((4, 4)),
                              L.RandomInvert((0, 0.5), seed=1)])
    clone = keras.Sequential.from_config(model.get_config())
    assert [type(layer).__name__ for layer in clone.layers] == [
        "Equalization", "RandomPosterization", "RandomInvert"]
    assert clone.layers[0].bins == 64 and clone.layers[1].factor == (4, 4)
    np.testing.assert_array_equal(model.predict(PIXELS, verbose=0), PIXELS)


@pytest.mark.parametrize("make, match", [
    (lambda: L.RandomPosterization(factor=9), "range \\[1, 8\\]"),
    (lambda: L.RandomInvert(factor=1.5), "range \\[0, 1\\]"),
    (lambda: L.Equalization(value_range=(0,)), "value_range"),
    (lambda: L.Equalization(bins=0), "bins"),
    (lambda: L.RandomGaussianBlur(kernel_size=4), "odd"),
    (lambda: L.RandomGaussianBlur(sigma=2.0), "sigma"),
])
def test_bad_arguments_name_the_layer_and_argument(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_configs_print_as_keras():
    # Keras 3.15.1: these layers keep value_range sorted, as a list (a reversed pair is
    # accepted); a zero factor is (0, 0.0); RandomGrayscale has no seed in its config.
    L = keras.layers
    for layer in [L.AutoContrast(), L.Equalization(), L.RandomBrightness(0.1),
                  L.RandomColorDegeneration(0.1), L.RandomPosterization(2),
                  L.RandomSaturation(0.1), L.RandomSharpness(0.1), L.Solarization()]:
        assert layer.get_config()["value_range"] == [0, 255], type(layer).__name__
    assert L.RandomBrightness(0.1, value_range=[1, 0]).get_config()["value_range"] == [0, 1]
    assert L.AutoContrast(value_range=(0.0, 1.0)).get_config()["value_range"] == [0.0, 1.0]
    config = L.Solarization().get_config()
    assert config["addition_factor"] == (0, 0.0) and repr(config["addition_factor"]) == "(0, 0.0)"
    assert "seed" not in L.RandomGrayscale().get_config()


def test_random_grayscale_keeps_integer_images():
    # Keras 3.15.1: no cast to the compute dtype; the luma of uint8 images is truncated
    images = np.array([[[[10, 200, 31], [255, 255, 255]]]], "uint8")
    layer = L.RandomGrayscale(1.0, seed=1)
    out = layer(images, training=True)
    assert out.dtype == "uint8" and out.numpy().ravel().tolist() == [123] * 3 + [254] * 3
    assert layer(images, training=False).dtype == "uint8"


def test_integer_images_and_auto_contrast_as_keras():
    # Keras 3.15.1 (TF backend), /tmp/probe15/u8lay.py: the same uint8 batch through the
    # layers (seed 1, after set_random_seed(0))
    images = (np.random.RandomState(0).rand(2, 8, 8, 3) * 255).astype("uint8")
    keras.utils.set_random_seed(0)
    bright = L.RandomBrightness(0.3, seed=1)(images, training=True)
    assert bright.dtype == "uint8" and float(bright.numpy().astype("float64").sum()) == 49359.0
    assert bright.numpy().ravel()[:5].tolist() == [196, 239, 210, 195, 165]
    for layer in (L.RandomHue(0.5, value_range=(0, 255), seed=1),
                  L.RandomColorDegeneration(0.5, seed=1)):
        out = layer(images, training=False)
        assert out.dtype == "uint8"
        np.testing.assert_array_equal(out.numpy(), images)
    contrast = L.AutoContrast()(images).numpy()
    assert repr(float(contrast.astype("float64").sum())) == "48855.16352891922"

"""RandomErasing, RandomColorDegeneration, RandomShear, RandomPerspective,
RandomElasticTransform, CutMix, RandomColorJitter, RandAugment and AugMix against Keras
3.15.1 on their deterministic paths (fixtures/preprocessing/augment_fixtures.npz, written
by make_augment_fixtures.py), and their random paths by their invariants."""
import os

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.layers.preprocessing.cut_mix import kept_share

F = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "preprocessing",
                         "augment_fixtures.npz"))
PIXELS = F["pixels"]
FIRST = np.transpose(PIXELS, (0, 3, 1, 2))
CORNERS = list(F["box_corners"])


def _close(key, value, tol=1e-4):
    value = np.asarray(value)
    assert value.shape == F[key].shape and value.dtype == F[key].dtype, key
    np.testing.assert_allclose(value, F[key], rtol=tol, atol=tol, err_msg=key)


def test_random_erasing_matches_keras():
    _close("erase_all", layers.RandomErasing(factor=(1, 1), scale=(1, 1), fill_value=30.0)(PIXELS))
    _close("erase_all_channels", layers.RandomErasing(factor=(1, 1), scale=(1, 1),
                                                      fill_value=[10, 300, -5])(PIXELS))
    _close("erase_never", layers.RandomErasing(factor=(0, 0), fill_value=30.0)(PIXELS))
    _close("erase_inference", layers.RandomErasing(fill_value=30.0)(PIXELS, training=False))
    _close("box_masks", layers.RandomErasing().box_masks(PIXELS.shape, CORNERS))
    _close("box_masks_first", layers.RandomErasing(data_format="channels_first").box_masks(
        FIRST.shape, CORNERS))


def test_random_erasing_boxes_by_their_statistics():
    images = np.full((400, 20, 20, 1), 100.0, "float32")
    out = np.asarray(layers.RandomErasing(factor=(1, 1), scale=(0.1, 0.3), fill_value=0.0,
                                          seed=1)(images))
    erased = (out == 0).mean(axis=(1, 2, 3))
    # Box sides sqrt(u) * 20 with u uniform in [0.1, 0.3] per side (floor of the pixel
    # grid aside): the erased share lies in [0.1, 0.3] and averages about 0.2.
    assert erased.min() > 0.05 and erased.max() < 0.33
    assert 0.17 < erased.mean() < 0.23
    half = np.asarray(layers.RandomErasing(factor=(0.5, 0.5), fill_value=0.0, seed=2)(images))
    assert 0.4 < (half == 0).any(axis=(1, 2, 3)).mean() < 0.6
    noise = np.asarray(layers.RandomErasing(factor=(1, 1), scale=(1, 1), seed=3)(images))
    assert noise.min() >= 0 and noise.max() <= 255 and 0.2 < (noise == 0).mean() < 0.8


def test_random_color_degeneration_matches_keras():
    _close("degen_04", layers.RandomColorDegeneration(factor=(0.4, 0.4))(PIXELS))
    _close("degen_neg", layers.RandomColorDegeneration(factor=(-0.5, -0.5))(PIXELS))
    _close("degen_first", layers.RandomColorDegeneration(
        factor=(1, 1), value_range=(0, 100), data_format="channels_first")(FIRST))
    with pytest.raises(ValueError, match="3 channels"):
        layers.RandomColorDegeneration(0.5)(PIXELS[..., :2])


def test_random_shear_matches_keras_for_given_factors():
    shear = {"shear_factor": F["shear_factor"]}
    _close("shear_reflect", layers.RandomShear(0.3, 0.2).transform_images(PIXELS, shear))
    _close("shear_constant_nearest", layers.RandomShear(
        0.3, 0.2, fill_mode="constant", fill_value=9.0,
        interpolation="nearest").transform_images(PIXELS, shear))
    _close("shear_first_wrap", layers.RandomShear(
        0.3, fill_mode="wrap", data_format="channels_first").transform_images(FIRST, shear))
    _close("shear_zero", layers.RandomShear(0.0, 0.0)(PIXELS))
    with pytest.raises(ValueError, match=r"in the range \[0, 1.0\]"):
        layers.RandomShear(x_factor=(-0.2, 0.3))


def test_random_shear_draws_signed_factors():
    layer = layers.RandomShear(x_factor=(0.2, 0.4), y_factor=(0.1, 0.1), seed=4)
    shear = np.asarray(layer.get_random_transformation(np.zeros((500, 4, 4, 1)))["shear_factor"])
    sign = np.sign(shear[:, 1])
    assert 0.4 < (sign > 0).mean() < 0.6
    np.testing.assert_allclose(np.abs(shear[:, 1]), 0.1, rtol=1e-6)   # one sign per image
    assert np.all(np.sign(shear[:, 0]) == sign)
    assert 0.2 <= np.abs(shear[:, 0]).min() and np.abs(shear[:, 0]).max() <= 0.4


def test_random_perspective_matches_keras_for_given_points():
    given = {"apply_perspective": np.array([True, False]), "start_points": F["persp_start"],
             "end_points": F["persp_end"]}
    _close("persp_given", layers.RandomPerspective(fill_value=3.0).transform_images(
        PIXELS, given))
    _close("persp_nearest_first", layers.RandomPerspective(
        interpolation="nearest", data_format="channels_first").transform_images(
        FIRST, {**given, "apply_perspective": np.array([True, True])}))
    _close("persp_scale0", layers.RandomPerspective(factor=(1, 1), scale=0.0)(PIXELS))


def test_random_perspective_moves_corners_within_scale():
    layer = layers.RandomPerspective(scale=0.4, seed=5)
    t = layer.get_random_transformation(np.zeros((300, 9, 11, 1)))
    start, end = t["start_points"], t["end_points"]
    np.testing.assert_array_equal(start[0], [[0, 0], [10, 0], [0, 8], [10, 8]])
    ratio = (end - start)[:, 1:] / np.where(start[:, 1:] == 0, 1, start[:, 1:])
    assert np.abs(ratio).max() <= 0.2 + 1e-6 and np.abs(ratio).max() > 0.18
    np.testing.assert_array_equal(end[:, 0], 0)   # the origin stays
    assert 0.35 < np.asarray(t["apply_perspective"]).mean() < 0.65   # factor 1: p ~ U[0, 1)


def test_random_elastic_transform_matches_keras_when_not_applied():
    layer = layers.RandomElasticTransform(value_range=(0, 100))
    _close("elastic_unapplied", layer.transform_images(
        PIXELS, {"apply_transform": np.array([False, False]), "distortion_factor": 0.5}))
    _close("elastic_scale0", layers.RandomElasticTransform(scale=0.0, value_range=(0, 100))(
        PIXELS))


def test_random_elastic_transform_deforms_chosen_images():
    images = np.random.default_rng(1).uniform(0, 255, (6, 20, 20, 3)).astype("float32")
    out = np.asarray(layers.RandomElasticTransform(factor=(1, 1), scale=(0.5, 0.5), seed=1)(
        images))
    assert np.abs(out - images).mean(axis=(1, 2, 3)).min() > 1.0
    assert out.min() >= 0 and out.max() <= 255


def test_cut_mix_matches_keras_for_a_given_box():
    layer = layers.CutMix()
    order = np.array([1, 0], "int32")
    _close("cutmix_images", layer.transform_images(
        PIXELS, {"permutation_order": order, "box_corners": CORNERS}))
    _close("cutmix_labels", layer.transform_labels(
        F["cutmix_labels_in"], {"permutation_order": order, "mix_weight": F["cutmix_weight"]}))
    _close("cutmix_single", layer(PIXELS[0]))
    share = kept_share([np.asarray(c) for c in CORNERS], 6, 7)
    np.testing.assert_allclose(np.asarray(share), F["cutmix_weight"].reshape(-1), rtol=1e-6)


def test_cut_mix_labels_follow_the_pasted_area():
    images = np.stack([np.full((16, 16, 1), float(i)) for i in range(8)]).astype("float32")
    labels = np.eye(8, dtype="float32")
    out = layers.CutMix(seed=3)({"images": images, "labels": labels})
    mixed, new_labels = np.asarray(out["images"]), np.asarray(out["labels"])
    for i in range(8):
        own = (mixed[i] == i).mean()
        assert new_labels[i, i] == pytest.approx(own, abs=0.2)   # fractional box edges
        np.testing.assert_allclose(new_labels[i].sum(), 1.0, rtol=1e-5)
    assert np.asarray(layers.CutMix(seed=3)(images, training=False)).tolist() == images.tolist()


def test_random_color_jitter_matches_keras():
    _close("jitter", layers.RandomColorJitter(
        brightness_factor=(0.1, 0.1), contrast_factor=0.0, saturation_factor=(0.7, 0.7),
        hue_factor=(0, 0))(PIXELS), tol=2e-3)
    _close("jitter_brightness_only", layers.RandomColorJitter(
        value_range=(0, 1), brightness_factor=(-0.2, -0.2))(PIXELS / 255.0))


RAND_AUGMENT_NAMES = ["random_shear", "random_translation", "random_rotation",
                      "random_brightness", "random_color_degeneration", "random_contrast",
                      "random_sharpness", "random_posterization", "solarization",
                      "auto_contrast", "equalization"]


@pytest.mark.parametrize("name", RAND_AUGMENT_NAMES)
def test_rand_augment_and_aug_mix_sub_layers_match_keras(name):
    _close(f"ra_{name}", layers.RandAugment(factor=0.0).augmentations[name](PIXELS))
    _close(f"am_{name}", layers.AugMix(factor=0.0).augmentations[name](PIXELS))


def test_rand_augment_applies_one_of_its_layers():
    layer = layers.RandAugment(factor=0.0, num_ops=1, seed=0)
    candidates = [F[f"ra_{name}"] for name in RAND_AUGMENT_NAMES]
    seen = set()
    for _ in range(30):
        out = np.asarray(layer(PIXELS))
        matches = [i for i, c in enumerate(candidates) if np.allclose(out, c, atol=1e-3)]
        assert matches, "RandAugment's output is none of its layers' outputs"
        seen.update(matches)
    assert len(seen) >= 5
    _close("ra_inference", layer(PIXELS, training=False))


def test_aug_mix_is_a_convex_mix_with_one_layer():
    # One chain of depth one: out = w x + (1 - w) op(x), op one of the layers or none.
    layer = layers.AugMix(factor=0.0, num_chains=1, chain_depth=1, seed=0)
    candidates = [F[f"am_{name}"] for name in layer._augment_layers]
    for _ in range(10):
        out = np.asarray(layer(PIXELS)).astype("float64")
        delta = out - PIXELS
        if np.allclose(delta, 0, atol=1e-3):
            continue
        fits = []
        for c in candidates:
            direction = c - PIXELS
            if not np.any(direction):
                continue
            w = (delta * direction).sum() / (direction * direction).sum()
            if 0 <= w <= 1 + 1e-6 and np.allclose(delta, w * direction, atol=1e-2):
                fits.append(w)
        assert fits, "AugMix's output is no convex mix of the image and one augmentation"


def test_configs_round_trip():
    for layer in (layers.RandomErasing(factor=0.5, fill_value=3.0, seed=1),
                  layers.RandomColorDegeneration(0.3), layers.RandomShear((0.1, 0.2)),
                  layers.RandomPerspective(scale=0.5), layers.RandomElasticTransform(scale=0.2),
                  layers.CutMix(factor=0.5), layers.RandomColorJitter(hue_factor=0.1),
                  layers.AugMix(num_chains=2), layers.RandAugment(num_ops=3)):
        clone = type(layer).from_config(layer.get_config())
        assert clone.get_config() == layer.get_config()
        x = keras.Input((8, 8, 3))
        assert layer(x).shape == (None, 8, 8, 3)
    # As Keras: a float shear factor is stored as (-f, f), which the constructor refuses.
    with pytest.raises(TypeError, match=r"in the range \[0, 1.0\]"):
        layers.RandomShear.from_config(layers.RandomShear(0.1).get_config())

"""Image preprocessing layers: real Keras outputs where Keras is deterministic (fixed
factor ranges, inference), and shapes/ranges/identity/seeding elsewhere."""
import json
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "preprocessing"
CASES = [c for c in json.loads((FIXTURES / "image_fixtures.json").read_text())["cases"]
         if c["kind"] == "layer"]
ARRAYS = np.load(FIXTURES / "image_fixtures.npz")
IMAGES = np.random.RandomState(0).uniform(0, 255, (4, 8, 10, 3)).astype("float32")


def case_id(case):
    return f"{case['name']}-{json.dumps(case['args'], sort_keys=True)}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_layer_matches_keras(case):
    args = dict(case["args"])
    training = args.pop("training")
    for key, value in args.items():
        if isinstance(value, list):
            args[key] = tuple(value)
    layer = getattr(keras.layers, case["name"])(**args)
    out = layer(ARRAYS[f"{case['key']}_in0"], training=training).numpy()
    expected = ARRAYS[f"{case['key']}_out"]
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=5e-3)


RANDOM_LAYERS = [
    lambda: keras.layers.RandomFlip(seed=1),
    lambda: keras.layers.RandomRotation(0.2, seed=1),
    lambda: keras.layers.RandomZoom(0.3, seed=1),
    lambda: keras.layers.RandomTranslation(0.2, 0.2, seed=1),
    lambda: keras.layers.RandomContrast(0.5, seed=1),
    lambda: keras.layers.RandomBrightness(0.3, seed=1),
    lambda: keras.layers.RandomGrayscale(0.5, seed=1),
    lambda: keras.layers.Solarization(0.2, 0.5, seed=1),
]


@pytest.mark.parametrize("make", RANDOM_LAYERS)
def test_identity_at_inference_and_seeded(make):
    layer = make()
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), IMAGES)
    first = make()(IMAGES, training=True).numpy()
    second = make()(IMAGES, training=True).numpy()
    np.testing.assert_array_equal(first, second)          # same seed, same draws
    assert first.shape == IMAGES.shape
    assert 0.0 <= first.min() and first.max() <= 255.0 + 1e-3
    assert not np.array_equal(layer(IMAGES).numpy(), layer(IMAGES).numpy()) or \
        isinstance(layer, keras.layers.RandomGrayscale)   # the stream advances


def test_identity_inside_predict():
    model = keras.Sequential([keras.Input((8, 10, 3)), keras.layers.RandomFlip(seed=3),
                              keras.layers.RandomRotation(0.3, seed=3)])
    np.testing.assert_allclose(model.predict(IMAGES, verbose=0), IMAGES, rtol=1e-6)


def test_flip_is_per_image_and_both_axes_together():
    out = keras.layers.RandomFlip(seed=5)(IMAGES).numpy()
    flipped = IMAGES[:, ::-1, ::-1]
    kinds = [np.array_equal(o, x) or np.array_equal(o, f)
             for o, x, f in zip(out, IMAGES, flipped)]
    assert all(kinds)
    horizontal = keras.layers.RandomFlip("horizontal", seed=2)(IMAGES).numpy()
    assert all(np.array_equal(o, x) or np.array_equal(o, x[:, ::-1])
               for o, x in zip(horizontal, IMAGES))


def test_random_crop_training_window():
    out = keras.layers.RandomCrop(5, 6, seed=4)(IMAGES).numpy()
    assert out.shape == (4, 5, 6, 3)
    windows = [(t, l) for t in range(4) for l in range(5)
               if np.array_equal(out, IMAGES[:, t:t + 5, l:l + 6])]
    assert len(windows) == 1


def test_augmentation_in_dataset_map_and_channels_first():
    augment = keras.Sequential([keras.layers.RandomFlip(seed=1),
                                keras.layers.RandomZoom(0.2, seed=1)])
    ds = keras.data.Dataset.from_tensor_slices(IMAGES).batch(2).map(
        lambda x: augment(x, training=True))
    assert [b.shape for b in ds] == [(2, 8, 10, 3), (2, 8, 10, 3)]
    chw = np.transpose(IMAGES, (0, 3, 1, 2))
    out = keras.layers.Resizing(4, 5, data_format="channels_first")(chw)
    expected = keras.layers.Resizing(4, 5)(IMAGES).numpy().transpose(0, 3, 1, 2)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_config_round_trips():
    for layer in [keras.layers.Resizing(3, 4, interpolation="area"),
                  keras.layers.RandomRotation((-0.1, 0.2), fill_mode="constant", seed=3),
                  keras.layers.RandomZoom(0.1, (-0.2, 0.3)), keras.layers.CenterCrop(2, 3),
                  keras.layers.RandomContrast(0.4), keras.layers.AutoContrast((0, 1))]:
        clone = type(layer).from_config(layer.get_config())
        assert clone.get_config() == layer.get_config()


def test_symbolic_shapes():
    inp = keras.Input((8, 10, 3))
    assert keras.layers.Resizing(4, 6)(inp).shape == (None, 4, 6, 3)
    assert keras.layers.RandomCrop(4, 6)(inp).shape == (None, 4, 6, 3)
    assert keras.layers.RandomRotation(0.1)(inp).shape == (None, 8, 10, 3)


@pytest.mark.parametrize("make, x, match", [
    (lambda: keras.layers.RandomFlip(), np.ones((2, 3)), "rank 3 .* or 4"),
    (lambda: keras.layers.Resizing(2, 2), np.ones((1, 2, 3, 4, 5)), "rank 3 .* or 4"),
    (lambda: keras.layers.RandomGrayscale(1.0), np.ones((1, 4, 4, 2)), "3 channels"),
])
def test_bad_images(make, x, match):
    with pytest.raises(ValueError, match=match):
        make()(x)


@pytest.mark.parametrize("make, match", [
    (lambda: keras.layers.RandomFlip("diagonal"), "unknown mode"),
    (lambda: keras.layers.RandomRotation(2.0), "factor"),
    (lambda: keras.layers.RandomRotation(0.1, fill_mode="mirror"), "fill_mode"),
    # as Keras, Resizing checks these when called (Keras 3.15.1's texts)
    (lambda: keras.layers.Resizing(2, 2, interpolation="cubic")(np.ones((1, 4, 4, 1))),
     r"Invalid value for argument `interpolation`\. Expected of one \('bilinear', 'nearest', "
     r"'lanczos3', 'lanczos5', 'bicubic', 'area'\)\. Received: interpolation=cubic"),
    (lambda: keras.layers.Resizing(2, 2, crop_to_aspect_ratio=True,
                                   pad_to_aspect_ratio=True)(np.ones((1, 4, 4, 1))),
     r"Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`\."),
    (lambda: keras.layers.RandomContrast(0.2, value_range=(1, 0)), "value_range"),
])
def test_bad_arguments(make, match):
    with pytest.raises((ValueError, NotImplementedError), match=match):
        make()


def test_mix_up_blends_pairs_and_labels():
    images = np.stack([np.full((4, 4, 3), float(i)) for i in range(6)]).astype("float32")
    labels = np.eye(6, dtype="float32")
    out = keras.layers.MixUp(alpha=0.4, seed=2)({"images": images, "labels": labels})
    mixed, mixed_labels = out["images"].numpy(), out["labels"].numpy()
    np.testing.assert_allclose(mixed_labels.sum(axis=1), 1.0, rtol=1e-6)
    # each image is a constant w * i + (1 - w) * j, matching its label's weights
    expected = (mixed_labels * np.arange(6, dtype="float32")).sum(axis=1)
    np.testing.assert_allclose(mixed[:, 0, 0, 0], expected, rtol=1e-5, atol=1e-5)
    unchanged = keras.layers.MixUp(seed=2)(images, training=False).numpy()
    np.testing.assert_array_equal(unchanged, images)
    with pytest.raises(ValueError, match="alpha"):
        keras.layers.MixUp(alpha=0)


def test_random_hue_shifts_hue_by_half_factor_either_way():
    images = np.random.RandomState(1).uniform(0, 1, (6, 5, 5, 3)).astype("float32")
    out = keras.layers.RandomHue((0.4, 0.4), value_range=(0, 1), seed=3)(images).numpy()
    hsv = keras.ops.image.rgb_to_hsv(images).numpy()
    signs = set()
    for shift in (0.2, -0.2):
        moved = hsv.copy()
        moved[..., 0] = np.mod(moved[..., 0] + shift, 1.0)
        expected = np.clip(keras.ops.image.hsv_to_rgb(moved).numpy(), 0, 1)
        for i in range(6):
            if np.allclose(out[i], expected[i], atol=1e-5):
                signs.add((i, shift))
    assert sorted(i for i, _ in signs) == list(range(6))   # every image: one of the two shifts
    np.testing.assert_array_equal(keras.layers.RandomHue(0.3)(images, training=False).numpy(),
                                  images)


@pytest.mark.parametrize("make", [
    lambda fmt: keras.layers.RandomRotation(0.2, seed=4, data_format=fmt),
    lambda fmt: keras.layers.RandomZoom(0.3, 0.2, seed=4, data_format=fmt),
    lambda fmt: keras.layers.RandomTranslation(0.2, 0.1, seed=4, data_format=fmt),
    lambda fmt: keras.layers.RandomFlip(seed=4, data_format=fmt),
    lambda fmt: keras.layers.RandomCrop(5, 7, seed=4, data_format=fmt),
    lambda fmt: keras.layers.CenterCrop(5, 7, data_format=fmt),
])
def test_channels_first_equals_channels_last(make):
    last = make("channels_last")(IMAGES, training=True).numpy()
    first = make("channels_first")(IMAGES.transpose(0, 3, 1, 2), training=True).numpy()
    np.testing.assert_allclose(first.transpose(0, 2, 3, 1), last, rtol=1e-6, atol=1e-4)


def _python_random_draws(make):
    import random

    import kerasish as keras
    keras.utils.set_random_seed(1)
    make()
    return random.random()


@pytest.mark.parametrize("name, args", [
    ("CenterCrop", (2, 2)), ("Resizing", (2, 2)), ("AutoContrast", ()), ("Equalization", ()),
    ("ContrastLimitedAdaptiveHistogramEqualization", ())])
def test_deterministic_image_layers_draw_no_seed_as_keras(name, args):
    """Keras 3.15.1 gives these layers no SeedGenerator, so building one must not
    move Python's `random` (which seeds every later layer's weights)."""
    import random

    from kerasish import layers
    random.seed(1)
    expected = random.random()
    assert _python_random_draws(lambda: getattr(layers, name)(*args)) == expected
    assert getattr(layers, name)(*args).generator is None


def test_random_crop_draws_its_config_seed_then_its_generators_as_keras():
    """Keras 3.15.1's RandomCrop(seed=None): `make_default_seed()` for the config,
    then `SeedGenerator(None)` draws again. Expected values: Keras 3.15.1 (TF,
    CPU) on the program of probe cropt.py (probe3 session): a RandomCrop built
    before the model, then trained in it."""
    import random

    import kerasish as keras
    from kerasish import layers
    keras.utils.set_random_seed(1)
    crop = layers.RandomCrop(8, 8)
    assert abs(random.random() - 0.8474337369372327) < 1e-15  # Keras after two draws
    keras.utils.set_random_seed(1)
    first, second = random.randint(1, 10**9), random.randint(1, 10**9)
    keras.utils.set_random_seed(1)
    crop = layers.RandomCrop(8, 8)
    assert crop.get_config()["seed"] == first
    assert crop.generator.state.numpy().tolist() == [second, 0]

    keras.utils.set_random_seed(41)
    x = (np.random.rand(16, 10, 10, 3) * 255).astype("float32")
    y = np.random.randint(0, 2, 16)
    crop = layers.RandomCrop(8, 8)
    model = keras.Sequential([keras.Input((10, 10, 3)), crop, layers.Rescaling(1 / 255.),
                              layers.Conv2D(3, 3), layers.GlobalMaxPooling2D(), layers.Dense(2)])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history
    np.testing.assert_allclose(history["loss"], [0.90621, 0.82046], atol=2e-5)
    np.testing.assert_allclose(np.asarray(crop(x[:2], training=True))[:, :2, :2, 0],
                               [[[21.22, 163.95], [220.06, 211.59]], [[34.22, 46.42], [33.75, 72.7]]],
                               atol=0.01)


def test_random_crop_of_a_smaller_input_slices_then_resizes_as_keras():
    # Not smart_resize: Keras 3.15.1 slices a target-sized box from the offsets of a
    # centre crop to the target aspect ratio, then resizes. Values printed by Keras.
    images = np.arange(40, dtype="float32").reshape(2, 5, 4, 1)
    out = keras.layers.RandomCrop(6, 6, seed=1)(images, training=True)
    np.testing.assert_allclose(np.asarray(out)[0, :, :, 0], [
        [0.0, 0.5, 1.1667, 1.8333, 2.5, 3.0], [3.0, 3.5, 4.1667, 4.8333, 5.5, 6.0],
        [6.3333, 6.8333, 7.5, 8.1667, 8.8333, 9.3333],
        [9.6667, 10.1667, 10.8333, 11.5, 12.1667, 12.6667],
        [13.0, 13.5, 14.1667, 14.8333, 15.5, 16.0], [16.0, 16.5, 17.1667, 17.8333, 18.5, 19.0]],
        atol=1e-4)
    out = keras.layers.RandomCrop(2, 5, seed=1)(images, training=True)
    np.testing.assert_allclose(np.asarray(out)[1, :, :, 0], [
        [28.0, 28.7, 29.5, 30.3, 31.0], [32.0, 32.7, 33.5, 34.3, 35.0]], atol=1e-4)


@pytest.mark.parametrize("dtype", ["float64", "uint8"])
def test_inference_passes_images_unchanged_as_keras(dtype):
    # Keras 3.15.1 at inference: RandomCrop returns its input as given (no autocast);
    # RandomContrast/RandomBrightness leave an integer image integer (a float64 one is
    # autocast to float32 on the way in).
    images = np.arange(40).reshape(2, 5, 4, 1).astype(dtype)
    out = keras.layers.RandomCrop(2, 2, seed=1, dtype="float16")(images, training=False)
    assert keras.backend.standardize_dtype(out.dtype) == dtype and out.shape == (2, 5, 4, 1)
    expected = "float32" if dtype == "float64" else dtype
    for layer in (keras.layers.RandomContrast(0.2, seed=1),
                  keras.layers.RandomBrightness(0.2, seed=1)):
        out = layer(images, training=False)
        assert keras.backend.standardize_dtype(out.dtype) == expected
        np.testing.assert_array_equal(np.asarray(out), images)


def test_random_color_jitter_steps_share_the_jitters_generator_as_keras():
    # Keras 3.15.1 draws every step's factors from the jitter's own generator, one
    # after the other. Output printed by Keras (TF, CPU); each pixel's channels are
    # equal after the saturation step.
    images = np.arange(24, dtype="float32").reshape(2, 2, 2, 3) * 10
    jitter = keras.layers.RandomColorJitter(value_range=(0, 255), brightness_factor=0.5,
                                            contrast_factor=0.5, saturation_factor=0.5, seed=21)
    out = np.asarray(jitter(images, training=True))
    np.testing.assert_allclose(out[..., 0], [[[9.5771, 50.2413], [90.9055, 131.5697]],
                                             [[123.0144, 162.3721], [201.7299, 241.0876]]],
                               atol=2e-3)
    np.testing.assert_allclose(out[..., 2], out[..., 0], atol=2e-3)


def test_rand_augment_and_aug_mix_draw_from_their_own_generator_as_keras():
    # Keras 3.15.1: RandAugment draws the layer indices, then one transformation per
    # layer (all eleven, in order) from its generator; AugMix's chain steps draw from
    # AugMix's generator. Per-image channel sums of two calls, printed by Keras (TF, CPU).
    images = (np.random.RandomState(0).rand(2, 5, 4, 3) * 255).astype("float32")
    keras.utils.set_random_seed(1)
    rand_augment = keras.layers.RandAugment(value_range=(0, 255), num_ops=3, factor=0.5,
                                            seed=30)
    sums = [np.asarray(rand_augment(images, training=True)).sum(axis=(1, 2)) for _ in range(2)]
    np.testing.assert_allclose(sums, [
        [[1186.98, 1027.27, 1169.94], [1325.82, 1473.93, 1539.21]],
        [[2634.89, 2876.84, 3000.05], [2364.63, 2454.70, 2583.47]]], atol=0.02)
    keras.utils.set_random_seed(1)
    aug_mix = keras.layers.AugMix(value_range=(0, 255), seed=29)
    sums = [np.asarray(aug_mix(images, training=True)).sum(axis=(1, 2)) for _ in range(2)]
    np.testing.assert_allclose(sums, [
        [[2961.34, 2883.76, 3035.05], [2726.57, 2822.37, 2808.33]],
        [[2322.20, 2401.13, 2347.46], [2171.53, 2185.97, 2310.18]]], atol=0.02)

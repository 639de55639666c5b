"""Predictions of keras.applications models equal real Keras's, with the same
deterministic weights (the recipe of make_application_fixtures.py) and with a
`.weights.h5` file real Keras saved (MobileNetV3Small)."""
import gzip
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "applications"
EXPECTED = np.load(HERE / "applications_numerics.npz")
# key: (application, options, seed), as NUMERIC_CASES in the fixture generator
CASES = {
    "MobileNetV3Small": ("MobileNetV3Small", dict(alpha=0.75, minimalistic=False, classes=10,
                                                  input_shape=(32, 32, 3), include_top=True,
                                                  classifier_activation=None), 0),
    "MobileNetV3SmallFile": ("MobileNetV3Small", dict(alpha=0.75, minimalistic=True,
                                                      include_top=False, pooling="avg",
                                                      input_shape=(32, 32, 3)), 7),
    "EfficientNetB0": ("EfficientNetB0", dict(include_top=False, input_shape=(32, 32, 3),
                                              pooling="avg"), 1),
    "MobileNetV3Large": ("MobileNetV3Large", dict(minimalistic=True, include_top=False,
                                                  input_shape=(32, 32, 3), pooling="avg"), 2),
    "Xception": ("Xception", dict(include_top=False, input_shape=(71, 71, 3),
                                  pooling="avg"), 3),
    "InceptionV3": ("InceptionV3", dict(include_top=False, input_shape=(75, 75, 3),
                                        pooling="avg"), 4),
    "ConvNeXtTiny": ("ConvNeXtTiny", dict(include_top=False, input_shape=(32, 32, 3),
                                          pooling="avg"), 5),
    "EfficientNetV2B0": ("EfficientNetV2B0", dict(include_top=False, input_shape=(32, 32, 3),
                                                  pooling="avg"), 6),
    "InceptionResNetV2": ("InceptionResNetV2", dict(include_top=False, input_shape=(75, 75, 3),
                                                    pooling="avg"), 8),
    "NASNetMobile": ("NASNetMobile", dict(include_top=False, input_shape=(32, 32, 3),
                                          pooling="avg"), 9),
    "EfficientNetV2S": ("EfficientNetV2S", dict(include_top=False, input_shape=(32, 32, 3),
                                                pooling="max"), 10),
    "MobileNetV3LargeTop": ("MobileNetV3Large", dict(classes=7, input_shape=(32, 32, 3),
                                                     classifier_activation=None), 11),
}


def deterministic_weights(model, seed):
    """The generator's recipe, weight by weight in `model.weights` order."""
    rng = np.random.default_rng(seed)
    values = []
    for w in model.weights:
        shape = tuple(w.shape)
        steps = rng.integers(-8, 9, size=shape)
        if "int" in str(w.dtype):
            values.append(np.zeros(shape, w.dtype))
        elif w.path.endswith("variance"):
            values.append((0.5 + (steps + 8) / 16).astype("float32"))
        elif len(shape) > 1:
            fan_in = int(np.prod(shape[:-1]))
            values.append((steps / 8 * 2.0 ** -round(np.log2(np.sqrt(fan_in)))).astype("float32"))
        elif w.path.endswith("gamma"):
            values.append((1 + steps / 64).astype("float32"))
        else:
            values.append((steps / 64).astype("float32"))
    return values


def numeric_input(seed, shape):
    return np.random.default_rng(100 + seed).uniform(0, 255, size=(2,) + shape).astype("float32")


def _tolerance(expected):
    return dict(rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


@pytest.mark.parametrize("key", sorted(CASES))
def test_predictions_match_keras(key, zero_init):
    """(zero_init: the random initialization, replaced by the recipe, is skipped)"""
    name, options, seed = CASES[key]
    model = getattr(keras.applications, name)(weights=None, **options)
    model.set_weights(deterministic_weights(model, seed))
    got = model.predict(numeric_input(seed, options["input_shape"]), verbose=0)
    np.testing.assert_allclose(got, EXPECTED[key], **_tolerance(EXPECTED[key]))


def test_loads_a_weights_file_saved_by_keras(tmp_path):
    path = tmp_path / "mobilenet_v3_small.weights.h5"
    with gzip.open(HERE / "mobilenet_v3_small.weights.h5.gz", "rb") as f:
        path.write_bytes(f.read())
    name, options, seed = CASES["MobileNetV3SmallFile"]
    model = keras.applications.MobileNetV3Small(weights=str(path), **options)
    got = model.predict(numeric_input(seed, options["input_shape"]), verbose=0)
    np.testing.assert_allclose(got, EXPECTED["MobileNetV3SmallFile"], rtol=1e-5, atol=1e-6)
    # the file's numbers, not a recipe: a fresh model predicts something else
    fresh = keras.applications.MobileNetV3Small(weights=None, **options)
    assert not np.allclose(fresh.predict(numeric_input(seed, options["input_shape"]),
                                         verbose=0), got, atol=1e-3)

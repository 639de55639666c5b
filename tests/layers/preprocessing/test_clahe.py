"""ContrastLimitedAdaptiveHistogramEqualization against Keras 3.15.1
(fixtures/preprocessing/clahe_fixtures.npz, written by make_clahe_fixtures.py)."""
import os

import numpy as np
import pytest

import kerasish as keras

F = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "preprocessing",
                         "clahe_fixtures.npz"))
PIXELS = F["pixels"]
Clahe = keras.layers.ContrastLimitedAdaptiveHistogramEqualization


@pytest.mark.parametrize("key, layer, images", [
    ("default", Clahe(), PIXELS),
    ("grid_4x3", Clahe(tile_grid_size=(4, 3), clip_limit=2.0), PIXELS),
    ("no_clip", Clahe(tile_grid_size=(2, 2), clip_limit=0.0), PIXELS),
    ("unit_range", Clahe(value_range=(0, 1), tile_grid_size=(4, 4)), F["unit"]),
    ("first", Clahe(tile_grid_size=(3, 2), data_format="channels_first"),
     np.transpose(PIXELS, (0, 3, 1, 2))),
    ("single", Clahe(tile_grid_size=(2, 5)), PIXELS[0]),
])
def test_clahe_matches_keras(key, layer, images):
    out = np.asarray(layer(images))
    assert out.shape == F[key].shape and out.dtype == F[key].dtype
    np.testing.assert_allclose(out, F[key], rtol=1e-5, atol=1e-4)


def test_clahe_acts_at_inference_too_and_round_trips():
    layer = Clahe(tile_grid_size=(4, 3))
    np.testing.assert_allclose(np.asarray(layer(PIXELS, training=False)), F["inference"],
                               rtol=1e-5, atol=1e-4)
    clone = Clahe.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    assert layer(keras.Input((13, 10, 3))).shape == (None, 13, 10, 3)

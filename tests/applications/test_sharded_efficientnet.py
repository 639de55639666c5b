"""EfficientNetB0's sharded weights (`save_weights(..., max_shard_size=...)`): the json map is the one Keras 3.15.1 writes,
byte for byte (fixture from make_application_fixtures.py --shards-only), and the
shards load back."""
import os
from pathlib import Path

import numpy as np

import kerasish as keras

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "applications" /
           "efficientnetb0_shards.weights.json")


def test_efficientnet_map_is_keras_byte_for_byte_and_round_trips(tmp_path, zero_init):
    model = keras.applications.EfficientNetB0(weights=None, include_top=False,
                                              input_shape=(32, 32, 3))
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(w.dtype) for w in model.weights])
    path = tmp_path / "efficientnetb0.weights.json"
    model.save_weights(path, max_shard_size=0.005)
    assert path.read_text() == FIXTURE.read_text()
    assert sorted(os.listdir(tmp_path)) == ["efficientnetb0.weights.json"] + [
        f"efficientnetb0_{i:05}.weights.h5" for i in range(4)]
    saved = model.get_weights()
    model.set_weights([np.zeros_like(w) for w in saved])
    model.load_weights(path)
    for got, want in zip(model.get_weights(), saved):
        np.testing.assert_array_equal(got, want)

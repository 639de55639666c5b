"""FeatureSpace against real Keras 3.15.1 (make_feature_space_fixtures.py), plus symbolic
use, config and errors."""
import sys
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "preprocessing"
EXPECTED = np.load(FIXTURES / "feature_space_fixtures.npz")
sys.path.insert(0, str(FIXTURES))
from feature_space_table import table  # noqa: E402

FeatureSpace = keras.utils.FeatureSpace


def make():
    return FeatureSpace(
        features={"sex": FeatureSpace.integer_categorical(num_oov_indices=0),
                  "cp": FeatureSpace.integer_categorical(),
                  "thal": FeatureSpace.string_categorical(num_oov_indices=0),
                  "city": FeatureSpace.string_hashed(num_bins=4),
                  "zip": FeatureSpace.integer_hashed(num_bins=3),
                  "age": FeatureSpace.float_discretized(num_bins=5),
                  "chol": FeatureSpace.float_normalized(),
                  "ratio": FeatureSpace.float_rescaled(scale=2.0, offset=-1.0)},
        crosses=[FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=8),
                 FeatureSpace.cross(feature_names=("thal", "cp"), crossing_dim=6)],
        output_mode="concat")


def test_concat_matches_keras():
    data = table()
    space = make()
    space.adapt(keras.data.Dataset.from_tensor_slices(data).batch(8))
    out = space({k: v[:10] for k, v in data.items()}).numpy()
    np.testing.assert_allclose(out, EXPECTED["concat"], rtol=1e-5, atol=1e-5)
    single = space({k: v[3] for k, v in data.items()}).numpy()
    np.testing.assert_allclose(single, EXPECTED["single"], rtol=1e-5, atol=1e-5)


def test_dict_mode_and_unbatched_adapt_match_keras():
    data = {k: table()[k] for k in ("cp", "chol", "thal")}
    space = FeatureSpace(features={"cp": "integer_categorical", "chol": "float_normalized",
                                   "thal": "string_categorical"}, output_mode="dict")
    space.adapt(keras.data.Dataset.from_tensor_slices(data))
    out = space({k: v[:6] for k, v in data.items()})
    for name in ("cp", "chol", "thal"):
        np.testing.assert_allclose(out[name].numpy(), EXPECTED[f"dict_{name}"], rtol=1e-5,
                                   atol=1e-6)


def test_model_on_encoded_features_and_dataset_map():
    data = table()
    space = make()
    space.adapt(data)
    inputs = space.get_inputs()
    encoded = space.get_encoded_features()
    assert encoded.shape == (None, 38)
    output = keras.layers.Dense(1, activation="sigmoid")(encoded)
    model = keras.Model(inputs, output)
    # object arrays for the strings: Keras's predict refuses numpy str arrays
    batch = {k: v[:5, None].astype(object) if v.dtype.kind == "U" else v[:5, None]
             for k, v in data.items()}
    assert model.predict(batch, verbose=0).shape == (5, 1)
    ds = keras.data.Dataset.from_tensor_slices((data, np.zeros(40))).batch(10).map(
        lambda x, y: (space(x), y))
    assert next(iter(ds))[0].shape == (10, 38)


def test_config_and_errors():
    space = FeatureSpace({"a": "float_normalized", "b": "string_hashed"}, hashing_dim=7)
    clone = FeatureSpace.from_config(space.get_config())
    assert clone.hashing_dim == 7 and sorted(clone.features) == ["a", "b"]
    with pytest.raises(ValueError, match="adapt"):
        space({"a": np.array([1.0]), "b": np.array(["x"])})
    with pytest.raises(ValueError, match="invalid feature type"):
        FeatureSpace({"a": "floaty"})
    with pytest.raises(ValueError, match="unknown features"):
        FeatureSpace({"a": "float"}, crosses=[("a", "zz")])
    with pytest.raises(ValueError, match="cannot be None or empty"):
        FeatureSpace({})

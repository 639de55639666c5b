"""VGG16, ResNet50 and MobileNetV2 built layer for layer as Keras 3.15.1 builds them
(fixture: tests/fixtures/applications/make_application_fixtures.py): layer order,
names, classes, key config, weight shapes, connections and parameter counts."""
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "applications"
with gzip.open(HERE / "applications.json.gz", "rt") as _file:
    MODELS = json.load(_file)["models"]
KEYS = ("filters", "kernel_size", "strides", "padding", "use_bias", "activation", "units",
        "pool_size", "epsilon", "momentum", "axis", "max_value", "depth_multiplier", "rate")


def _normal(value):
    if isinstance(value, (tuple, list)):
        return [_normal(v) for v in value]
    return value


def _describe(model):
    out = []
    for layer in model.layers:
        cfg = layer.get_config()
        inbound = []
        for node in layer._inbound_nodes:
            for t in node.input_tensors:
                inbound.append(t._keras_history[0].name)
        out.append({"name": layer.name, "class": type(layer).__name__,
                    "config": {k: _normal(cfg[k]) for k in KEYS if k in cfg},
                    "weights": [[w.path.split("/")[-1], list(w.shape)] for w in layer.weights],
                    "inbound": inbound})
    return out


def _name(layer):
    """Auto-named layers (global pooling) lose Keras's session counter (all models ran in one)."""
    if layer["name"].startswith("global_"):
        return re.sub(r"_\d+$", "", layer["name"])
    return layer["name"]


@pytest.mark.parametrize("key", sorted(MODELS))
def test_architecture_matches_keras(key):
    expected = MODELS[key]
    name = key.split("/")[0]
    model = getattr(keras.applications, name)(weights=None, **expected["options"])
    assert model.count_params() == expected["count_params"]
    assert model.name == expected["name"]
    assert list(model.output.shape) == expected["output_shape"]
    ours = _describe(model)
    assert [_name(l) for l in ours[1:]] == [_name(l) for l in expected["layers"][1:]]
    for got, want in zip(ours[1:], expected["layers"][1:]):
        assert got["class"] == want["class"], got["name"]
        if got["class"].startswith("Global"):
            continue
        assert got["weights"] == want["weights"], got["name"]
        assert got["config"] == want["config"], got["name"]
        if want["inbound"] and not want["inbound"][0].startswith("input_layer"):
            assert [_name({"name": n}) for n in got["inbound"]] == \
                [_name({"name": n}) for n in want["inbound"]], got["name"]


def test_weights_file_round_trip_and_errors(tmp_path):
    model = keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None,
                                           classes=3)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    x = np.random.default_rng(0).uniform(0, 255, size=(2, 32, 32, 3)).astype("float32")
    x = keras.applications.mobilenet_v2.preprocess_input(x)
    loaded = keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=path,
                                            classes=3)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="ImageNet"):
        keras.applications.VGG16(weights="imagenet")
    with pytest.raises(ValueError, match="at least 32x32"):
        keras.applications.ResNet50(weights=None, input_shape=(16, 16, 3), include_top=False)


def test_preprocess_input_modes():
    pixel = np.array([[[10.0, 20.0, 30.0]]], "float32")
    np.testing.assert_allclose(keras.applications.vgg16.preprocess_input(pixel),
                               [[[30 - 103.939, 20 - 116.779, 10 - 123.68]]], rtol=1e-6)
    np.testing.assert_allclose(keras.applications.resnet.preprocess_input(pixel),
                               keras.applications.vgg16.preprocess_input(pixel))
    np.testing.assert_allclose(keras.applications.mobilenet_v2.preprocess_input(pixel),
                               pixel / 127.5 - 1.0, rtol=1e-6)

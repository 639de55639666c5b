"""keras.applications built layer for layer as Keras 3.15.1 builds them
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
    _FIXTURE = json.load(_file)
MODELS = _FIXTURE["models"]
DEFAULT_COUNTS = _FIXTURE["default_counts"]
KEYS = ("filters", "kernel_size", "strides", "padding", "use_bias", "activation", "units",
        "pool_size", "epsilon", "momentum", "axis", "max_value", "depth_multiplier", "rate",
        "noise_shape", "scale", "offset", "keepdims", "target_shape", "dilation_rate",
        "cropping", "init_values", "projection_dim", "layer_scale_init_value", "drop_path_rate",
        "groups", "data_format")


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
def test_architecture_matches_keras(key, zero_init):
    """(zero_init: random initialization takes longer than building; values are not
    compared here)"""
    expected = MODELS[key]
    name = key.split("/")[0]
    keras.utils.clear_session()  # auto names as in the fixture's fresh session
    options = {k: tuple(v) if isinstance(v, list) else v
               for k, v in expected["options"].items()}
    model = getattr(keras.applications, name)(weights=None, **options)
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


@pytest.mark.parametrize("name", sorted(DEFAULT_COUNTS))
def test_parameter_count_at_the_defaults(name, zero_init):
    keras.utils.clear_session()
    assert getattr(keras.applications, name)(weights=None).count_params() == \
        DEFAULT_COUNTS[name]


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
    with pytest.raises(ValueError, match="should be either `None`"):
        keras.applications.VGG16(weights="no_such_file.h5")
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        keras.applications.VGG16(classes=10)
    with pytest.raises(ValueError, match=r"`input_shape` should be \(224, 224, 3\)"):
        keras.applications.ResNet50(input_shape=(96, 96, 3))
    with pytest.raises(ValueError, match="alpha must be one of"):
        keras.applications.MobileNetV2(alpha=0.6)
    with pytest.raises(ValueError, match="at least 32x32"):
        keras.applications.ResNet50(weights=None, input_shape=(16, 16, 3), include_top=False)


def test_preprocess_input_modes():
    pixel = np.array([[[10.0, 20.0, 30.0]]], "float32")
    np.testing.assert_allclose(keras.applications.vgg16.preprocess_input(pixel),
                               [[[30 - 103.939, 20 - 116.779, 10 - 123.68]]], rtol=1e-6)
    pixel = np.array([[[10.0, 20.0, 30.0]]], "float32")  # the call above changed it in place
    np.testing.assert_allclose(keras.applications.resnet.preprocess_input(pixel.copy()),
                               keras.applications.vgg16.preprocess_input(pixel.copy()))
    np.testing.assert_allclose(keras.applications.mobilenet_v2.preprocess_input(pixel.copy()),
                               pixel / 127.5 - 1.0, rtol=1e-6)


def test_preprocess_input_follows_keras_numpy_and_tensor_paths():
    """Values printed by Keras 3.15.1 (TF backend), /tmp/probe15/pp_rec.py."""
    apps = keras.applications
    x = np.array([[[[10.0, 20.0, 30.0]]]])  # float64: kept, changed in place (BGR view)
    y = apps.vgg16.preprocess_input(x)
    assert y.dtype == np.float64 and np.shares_memory(x, y)
    assert y.tolist() == [[[[-73.939, -96.779, -113.68]]]]
    assert x.tolist() == [[[[-113.68, -96.779, -73.939]]]]
    first = np.array([[[[51.0]], [[102.0]], [[153.0]]]], "float32")
    y = apps.densenet.preprocess_input(first, data_format="channels_first")
    assert y.reshape(-1).tolist() == [-1.2445416450500488, -0.2499999701976776,
                                      0.8622223734855652]
    bgr = [-73.93900299072266, -96.77899932861328, -113.68000030517578]
    first = np.array([[[[10.0]], [[20.0]], [[30.0]]]], "float32")
    caffe = apps.resnet50.preprocess_input(first.copy(), "channels_first")
    assert caffe.reshape(-1).tolist() == bgr
    ints = np.array([[[10, 20, 30]]], "uint8")  # cast to floatx, the input left alone
    y = apps.mobilenet.preprocess_input(ints)
    assert y.dtype == np.float32 and ints.tolist() == [[[10, 20, 30]]]
    assert y.reshape(-1).tolist() == [-0.9215686321258545, -0.843137264251709,
                                      -0.7647058963775635]
    y = apps.vgg19.preprocess_input(keras.ops.convert_to_tensor(first), "channels_first")
    assert keras.ops.is_tensor(y) and y.dtype == "float32"
    assert keras.ops.convert_to_numpy(y).reshape(-1).tolist() == bgr
    with pytest.raises(ValueError, match="one of `channels_first` or `channels_last`. "
                                         "Received: data_format=channels_middle"):
        apps.vgg16.preprocess_input(first, data_format="channels_middle")


def _serve(tmp_path, monkeypatch, subpath, write):
    """Puts a file at `<origin>/<subpath>` (a file:// origin) and an empty download cache."""
    target = tmp_path / "origin" / subpath
    target.parent.mkdir(parents=True, exist_ok=True)
    write(target)
    monkeypatch.setattr(keras.applications.common, "WEIGHTS_ORIGIN",
                        (tmp_path / "origin").as_uri() + "/")
    monkeypatch.setenv("KERASISH_HOME", str(tmp_path / "home"))
    return target


def test_imagenet_weights_are_downloaded_once_and_loaded(tmp_path, monkeypatch):
    """`weights="imagenet"` (the default) fetches Keras's file by its name into
    ~/.keras/models and loads it (Keras's legacy layout, by layer order)."""
    import h5py
    from kerasish.saving import legacy_h5
    kwargs = dict(input_shape=(96, 96, 3), alpha=0.35, include_top=False)
    reference = keras.applications.MobileNetV2(weights=None, **kwargs)
    rng = np.random.default_rng(0)
    reference.set_weights([rng.normal(size=w.shape).astype("float32")
                           for w in reference.get_weights()])
    name = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"

    def write(path):
        with h5py.File(path, "w") as f:
            legacy_h5.save_weights_to_group(f, reference, "tensorflow", "2.15.0")

    served = _serve(tmp_path, monkeypatch, f"mobilenet_v2/{name}", write)
    model = keras.applications.MobileNetV2(**kwargs)
    for got, want in zip(model.get_weights(), reference.get_weights()):
        np.testing.assert_array_equal(got, want)
    assert (tmp_path / "home" / "models" / name).exists()
    served.unlink()  # cached: a second model does not download again
    again = keras.applications.MobileNetV2(**kwargs)
    np.testing.assert_array_equal(again.get_weights()[0], reference.get_weights()[0])


def test_imagenet_weights_with_the_wrong_hash_are_refused(tmp_path, monkeypatch):
    _serve(tmp_path, monkeypatch,
           "resnet/resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5",
           lambda path: path.write_bytes(b"not the published file"))
    with pytest.raises(ValueError, match="4d473c1dd8becc155b73f8504c6f6626"):
        keras.applications.ResNet50(include_top=False, input_shape=(32, 32, 3))


def test_mobilenet_v2_falls_back_to_224_weights_with_keras_warning(tmp_path, monkeypatch):
    """A non-square input loads the 224 file, as Keras warns (the name says 224 too)."""
    _serve(tmp_path, monkeypatch,
           "mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_224_no_top.h5",
           lambda path: path.write_bytes(b"x"))
    with pytest.warns(UserWarning, match="Weights for input shape \\(224, 224\\) will be"):
        with pytest.raises(ValueError):  # the file is fetched, then found not to be HDF5
            keras.applications.MobileNetV2(input_shape=(96, 128, 3), alpha=0.35,
                                           include_top=False)
    assert (tmp_path / "home" / "models").exists()


def test_decode_predictions(tmp_path, monkeypatch):
    import hashlib
    import json
    from kerasish.applications import imagenet_utils
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    text = json.dumps(index).encode()
    (tmp_path / "index.json").write_bytes(text)
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX_PATH", (tmp_path / "index.json").as_uri())
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX_MD5", hashlib.md5(text).hexdigest())
    monkeypatch.setattr(imagenet_utils, "_class_index", {})
    monkeypatch.setenv("KERASISH_HOME", str(tmp_path / "home"))
    preds = np.zeros((2, 1000), "float32")
    preds[0, [7, 3, 500]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1.0
    decoded = keras.applications.vgg16.decode_predictions(preds, top=2)
    assert [(c, d) for c, d, _ in decoded[0]] == [("n00000003", "class_3"),
                                                  ("n00000500", "class_500")]
    assert decoded[0][0][2] == pytest.approx(0.5) and decoded[1][0][:2] == ("n00000999",
                                                                            "class_999")
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\).*\(2, 10\)"):
        keras.applications.imagenet_utils.decode_predictions(np.zeros((2, 10)))


def test_imagenet_utils_preprocess_modes():
    pixel = np.array([[[51.0, 102.0, 153.0]]], "float32")
    torch = keras.applications.imagenet_utils.preprocess_input(pixel.copy(), mode="torch")
    np.testing.assert_allclose(torch, (pixel / 255 - [0.485, 0.456, 0.406]) /
                               [0.229, 0.224, 0.225], rtol=1e-6)
    pixel = np.array([[[51.0, 102.0, 153.0]]], "float32")
    np.testing.assert_allclose(keras.applications.imagenet_utils.preprocess_input(pixel.copy()),
                               keras.applications.vgg16.preprocess_input(pixel.copy()))
    with pytest.raises(ValueError, match="one of `caffe`, `tf` or `torch`"):
        keras.applications.imagenet_utils.preprocess_input(pixel, mode="bgr")

"""`weights="imagenet"` asks for the file Keras 3.15.1 asks for (name in the cache,
URL, hash, cache folder) and builds the same stem (EfficientNet's extra Rescaling);
fixture: imagenet_files.json from make_application_fixtures.py (Keras's get_file and
load_weights stubbed there, kerasish's here: nothing is downloaded)."""
import json
import warnings
from pathlib import Path

import pytest

import kerasish as keras

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "applications"
with open(HERE / "imagenet_files.json") as _file:
    EXPECTED = json.load(_file)


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_imagenet_weights_request_the_file_keras_requests(key, monkeypatch, zero_init):
    name, top = key.split("/")
    include_top = top == "True"
    calls, loaded = [], []

    def fake_get_file(fname=None, origin=None, **kwargs):
        calls.append({"fname": fname, "origin": origin, "file_hash": kwargs.get("file_hash"),
                      "cache_subdir": kwargs.get("cache_subdir")})
        return "/nonexistent/weights.h5"

    monkeypatch.setattr(keras.applications.common.file_utils, "get_file", fake_get_file)
    monkeypatch.setattr(keras.Model, "load_weights",
                        lambda self, path, *args, **kwargs: loaded.append((self, path)))
    keras.utils.clear_session()
    kwargs = {} if include_top else {"input_shape": (224, 224, 3)}
    if name == "NASNetLarge" and not include_top:
        kwargs = {"input_shape": (331, 331, 3)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(keras.applications, name)(weights="imagenet", include_top=include_top,
                                          **kwargs)
    assert calls == [EXPECTED[key]["get_file"]]
    model, path = loaded[-1]
    assert path == "/nonexistent/weights.h5"
    first = [[layer.name, type(layer).__name__, _plain(layer.get_config().get("scale"))]
             for layer in model.layers[:5]]
    assert first == EXPECTED[key]["first_layers"]


def test_efficientnet_loads_keras_legacy_imagenet_file_with_its_extra_stem(tmp_path,
                                                                           monkeypatch,
                                                                           zero_init):
    """The ImageNet model has one more Rescaling (no weights): Keras's legacy file (by
    layer order, Normalization's mean/variance/count included) loads into it, checked
    against the file's md5 as Keras checks it; predictions then follow the extra
    1/sqrt(std) scaling of the normalized input."""
    import hashlib

    import h5py
    import numpy as np

    from kerasish.saving import legacy_h5
    kwargs = dict(input_shape=(32, 32, 3), include_top=False, pooling="avg")
    reference = keras.applications.EfficientNetB0(weights=None, **kwargs)
    rng = np.random.default_rng(0)
    values = []
    for w in reference.weights:
        if "int" in str(w.dtype):
            values.append(np.full(w.shape, 7, w.dtype))
        elif w.path.endswith("variance"):
            values.append(rng.uniform(0.5, 1.5, w.shape).astype("float32"))
        else:
            values.append(rng.normal(0, 0.1, w.shape).astype("float32"))
    reference.set_weights(values)
    origin = tmp_path / "origin"
    origin.mkdir()
    with h5py.File(origin / "efficientnetb0_notop.h5", "w") as f:
        legacy_h5.save_weights_to_group(f, reference, "tensorflow", "2.15.0")
    md5 = hashlib.md5((origin / "efficientnetb0_notop.h5").read_bytes()).hexdigest()
    monkeypatch.setattr(keras.applications.common, "EFFICIENTNET_ORIGIN", origin.as_uri() + "/")
    monkeypatch.setitem(keras.applications.efficientnet._IMAGENET_HASHES, "b0", ("", md5))
    monkeypatch.setenv("KERASISH_HOME", str(tmp_path / "home"))
    model = keras.applications.EfficientNetB0(weights="imagenet", **kwargs)
    for got, want in zip(model.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    assert (tmp_path / "home" / "models" / "efficientnetb0_notop.h5").exists()
    # the reference fed x' with (x'/255 - mean) / sd == (x/255 - mean) / sd * s
    # (s: the extra Rescaling) gives the same numbers
    x = rng.uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    mean = keras.ops.convert_to_numpy(model.layers[2].mean).reshape(3)
    scale = 1 / np.sqrt([0.229, 0.224, 0.225])
    x_ref = (255 * (mean + (x / 255 - mean) * scale)).astype("float32")
    np.testing.assert_allclose(model.predict(x, verbose=0), reference.predict(x_ref, verbose=0),
                               rtol=1e-4, atol=1e-5)

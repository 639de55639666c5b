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

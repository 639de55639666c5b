"""cifar100, reuters, boston_housing and california_housing: small files in the real
formats, served from file:// URLs with their hashes, against what real Keras 3.15.1's
loaders return for the same files (tests/fixtures/preprocessing/make_dataset_fixtures.py)."""
import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

from kerasish.datasets import boston_housing, california_housing, cifar100, reuters

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "preprocessing"
EXPECTED = np.load(FIXTURES / "dataset_fixtures.npz")
sys.path.insert(0, str(FIXTURES))
import dataset_files  # noqa: E402


def _serve(monkeypatch, module, path, origin="_ORIGIN", file_hash="_FILE_HASH"):
    monkeypatch.setattr(module, origin, Path(path).as_uri())
    monkeypatch.setattr(module, file_hash, hashlib.sha256(Path(path).read_bytes()).hexdigest())


def _check(prefix, splits):
    (x_train, y_train), (x_test, y_test) = splits
    for name, got in (("x_train", x_train), ("y_train", y_train), ("x_test", x_test),
                      ("y_test", y_test)):
        expected = EXPECTED[f"{prefix}_{name}"]
        if got.dtype == object:
            got = np.array([" ".join(map(str, s)) for s in got])
        assert got.shape == expected.shape and got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("mode", ["fine", "coarse"])
def test_cifar100(tmp_path, monkeypatch, cache_home, mode):
    _serve(monkeypatch, cifar100, dataset_files.write_cifar100(str(tmp_path)))
    _check(f"cifar100_{mode}", cifar100.load_data(label_mode=mode))
    assert (cache_home / "datasets" / "cifar-100-python-target" / "cifar-100-python").is_dir()


@pytest.mark.parametrize("module, n, features, extra", [
    (boston_housing, 40, 13, {}), (california_housing, 700, 8, {"version": "small"})])
def test_regression_sets(tmp_path, monkeypatch, cache_home, module, n, features, extra):
    name = module.__name__.rsplit(".", 1)[1]
    _serve(monkeypatch, module, dataset_files.write_regression(str(tmp_path), name, n, features))
    _check(name, module.load_data(test_split=0.25, seed=7, **extra))
    assert (cache_home / "datasets" / f"{name}.npz").is_file()


@pytest.mark.parametrize("key, kwargs", [
    ("default", {}), ("capped", dict(num_words=20, skip_top=3, maxlen=9)),
    ("no_oov", dict(oov_char=None, start_char=None, index_from=0, test_split=0.5))])
def test_reuters(tmp_path, monkeypatch, key, kwargs):
    path, words = dataset_files.write_reuters(str(tmp_path))
    _serve(monkeypatch, reuters, path)
    _check(f"reuters_{key}", reuters.load_data(**kwargs))
    _serve(monkeypatch, reuters, words, "_WORD_INDEX_ORIGIN", "_WORD_INDEX_HASH")
    assert reuters.get_word_index() == {"the": 1, "of": 2, "to": 3}


def test_keras_urls_hashes_and_labels():
    assert cifar100._ORIGIN == "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    assert boston_housing._FILE_HASH.startswith("f553886a")
    assert california_housing._ORIGIN.endswith("tf-keras-datasets/california_housing.npz")
    assert reuters._WORD_INDEX_HASH == "4d44cc38712099c9e383dc6e5f11a921"
    names = reuters.get_label_names()
    assert len(names) == 46 and names[:3] == ("cocoa", "grain", "veg-oil")


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="label_mode"):
        cifar100.load_data(label_mode="medium")
    with pytest.raises(ValueError, match="test_split"):
        boston_housing.load_data(test_split=1.0)
    with pytest.raises(ValueError, match="version"):
        california_housing.load_data(version="tiny")
    with pytest.raises(FileNotFoundError, match="reuters.load_data"):
        reuters.load_data(path=str(tmp_path / "missing" / "reuters.npz"))

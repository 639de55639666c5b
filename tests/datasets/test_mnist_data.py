"""`keras.datasets.mnist.load_data` on the shared subset, local files and the cache."""
import hashlib
import os

import numpy as np
import pytest

from kerasish.datasets import mnist


def test_shared_subset_shapes_dtypes_and_values(data_dir):
    path = data_dir / "mnist_subset.npz"
    (x_train, y_train), (x_test, y_test) = mnist.load_data(path=str(path))
    assert x_train.shape == (22699, 28, 28) and x_train.dtype == np.uint8
    assert y_train.shape == (22699,) and y_train.dtype == np.uint8
    assert x_test.shape == (10000, 28, 28) and x_test.dtype == np.uint8
    assert y_test.shape == (10000,) and y_test.dtype == np.uint8
    assert x_train.min() == 0 and x_train.max() == 255
    assert set(np.unique(y_train)) == set(range(10)) == set(np.unique(y_test))
    # The well-known first labels of MNIST's official training and test sets.
    assert y_train[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert y_test[:5].tolist() == [7, 2, 1, 0, 4]
    with np.load(path) as f:
        np.testing.assert_array_equal(y_train, f["y_train"])
        np.testing.assert_array_equal(x_test[:3], f["x_test"][:3])


def test_relative_path_and_data_dir_convention(data_dir, monkeypatch):
    monkeypatch.chdir(data_dir)
    (_, y_train), _ = mnist.load_data(path="mnist_subset.npz")
    assert len(y_train) == 22699
    monkeypatch.setenv("KERASISH_DATA_DIR", str(data_dir))
    path = os.path.join(os.environ["KERASISH_DATA_DIR"], "mnist_subset.npz")
    (_, y_train), _ = mnist.load_data(path=path)
    assert y_train[0] == 5


def _tiny_mnist(path):
    x = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    np.savez(path, x_train=x, y_train=np.array([3, 1], np.uint8),
             x_test=x[:1], y_test=np.array([7], np.uint8))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_default_path_downloads_into_keras_cache(tmp_path, cache_home, monkeypatch):
    source = tmp_path / "served.npz"
    monkeypatch.setattr(mnist, "_ORIGIN", source.as_uri())
    monkeypatch.setattr(mnist, "_FILE_HASH", _tiny_mnist(source))
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    assert (cache_home / "datasets" / "mnist.npz").is_file()
    assert x_train.shape == (2, 28, 28) and y_train.tolist() == [3, 1]
    assert y_test.tolist() == [7]


def test_same_origin_and_hash_as_keras():
    assert mnist._ORIGIN == ("https://storage.googleapis.com/tensorflow/"
                             "tf-keras-datasets/mnist.npz")
    assert mnist._FILE_HASH == ("731c5ac602752760c8e48fbffcf8c3b8"
                                "50d9dc2a2aedcf2cc48468fc17b673d1")


def test_missing_local_path_and_wrong_keys(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent/mnist.npz"):
        mnist.load_data(path=str(tmp_path / "absent" / "mnist.npz"))
    other = tmp_path / "other.npz"
    np.savez(other, x_train=np.zeros(1))
    with pytest.raises(KeyError, match=r"lacks \['y_train', 'x_test', 'y_test'\]"):
        mnist.load_data(path=str(other))

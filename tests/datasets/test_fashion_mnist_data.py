"""`keras.datasets.fashion_mnist.load_data` with the download served from local files."""
import gzip
import hashlib

import numpy as np
import pytest

from kerasish.datasets import fashion_mnist


def _idx_gz(path, magic, dims, data):
    header = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in dims)
    path.write_bytes(gzip.compress(header + bytes(data)))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def served(tmp_path, monkeypatch):
    """Four tiny IDX files (3 train, 2 test images) served through file:// URLs."""
    folder = tmp_path / "served"
    folder.mkdir()
    images = np.arange(3 * 784, dtype=np.uint8)
    hashes = {
        "train-labels-idx1-ubyte.gz": _idx_gz(folder / "train-labels-idx1-ubyte.gz",
                                              2049, [3], [9, 0, 4]),
        "train-images-idx3-ubyte.gz": _idx_gz(folder / "train-images-idx3-ubyte.gz",
                                              2051, [3, 28, 28], images),
        "t10k-labels-idx1-ubyte.gz": _idx_gz(folder / "t10k-labels-idx1-ubyte.gz",
                                             2049, [2], [1, 8]),
        "t10k-images-idx3-ubyte.gz": _idx_gz(folder / "t10k-images-idx3-ubyte.gz",
                                             2051, [2, 28, 28], images[:2 * 784]),
    }
    monkeypatch.setattr(fashion_mnist, "_ORIGIN_FOLDER", folder.as_uri() + "/")
    monkeypatch.setattr(fashion_mnist, "_FILE_HASHES", hashes)
    return folder


def test_load_data_parses_idx_files(served, cache_home):
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    assert x_train.shape == (3, 28, 28) and x_train.dtype == np.uint8
    assert y_train.tolist() == [9, 0, 4] and y_test.tolist() == [1, 8]
    assert x_test.shape == (2, 28, 28)
    assert x_train[0, 0, :3].tolist() == [0, 1, 2]
    assert x_train[1, 0, 0] == 784 % 256
    assert (cache_home / "datasets" / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz").is_file()


def test_wrong_magic_number_is_reported(served, tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b"\x00\x00\x08\x03rest"))
    with pytest.raises(ValueError, match="magic number 2051, expected 2049"):
        fashion_mnist.read_idx(bad, 2049)


def test_same_origin_and_hashes_as_keras():
    assert fashion_mnist._ORIGIN_FOLDER == (
        "https://storage.googleapis.com/tensorflow/tf-keras-datasets/")
    assert fashion_mnist._FILE_HASHES["t10k-labels-idx1-ubyte.gz"] == (
        "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5")
    assert sorted(fashion_mnist._FILE_HASHES) == sorted(fashion_mnist._FILES)

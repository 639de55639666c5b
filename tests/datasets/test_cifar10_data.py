"""`keras.datasets.cifar10.load_data` with a tiny archive served from a local file."""
import hashlib
import io
import pickle
import tarfile

import numpy as np
import pytest

from kerasish.datasets import cifar10


def _batch(first_label, protocol, n=2):
    data = (np.arange(n * 3072) % 251).astype(np.uint8).reshape(n, 3072)
    data[:, 0] = first_label
    labels = [(first_label + i) % 10 for i in range(n)]
    return pickle.dumps({b"batch_label": b"x", b"labels": labels, b"data": data},
                        protocol=protocol)


@pytest.fixture(params=[2, 4], ids=["pickle2", "pickle4"])
def served(request, tmp_path, monkeypatch):
    """The archive layout of cifar-10-python.tar.gz: 5 train batches and a test
    batch of 2 images each, pickled with protocol 2 (as the real files) or 4."""
    archive = tmp_path / "cifar-10-python.tar.gz"
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    with tarfile.open(archive, "w:gz") as tar:
        for i, name in enumerate(names):
            payload = _batch(i, request.param)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    monkeypatch.setattr(cifar10, "_ORIGIN", archive.as_uri())
    monkeypatch.setattr(cifar10, "_FILE_HASH", hashlib.sha256(archive.read_bytes()).hexdigest())
    return archive


def test_load_data_channels_last(served, cache_home):
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
    assert x_test.shape == (2, 32, 32, 3) and y_test.shape == (2, 1)
    assert y_train[:, 0].tolist() == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    assert y_test[:, 0].tolist() == [5, 6]
    # Pixel (row 0, col 0) takes byte 0 (red), 1024 (green) and 2048 (blue).
    assert x_train[2, 0, 0].tolist() == [1, 1024 % 251, 2048 % 251]
    folder = cache_home / "datasets"
    assert (folder / "cifar-10-batches-py-target_archive").is_file()
    assert (folder / "cifar-10-batches-py-target" / "cifar-10-batches-py" / "test_batch").is_file()


def test_load_data_channels_first(served, monkeypatch):
    monkeypatch.setattr(cifar10, "_image_data_format", lambda: "channels_first")
    (x_train, _), _ = cifar10.load_data()
    assert x_train.shape == (10, 3, 32, 32)
    assert x_train[2, :, 0, 0].tolist() == [1, 1024 % 251, 2048 % 251]


def test_same_origin_and_hash_as_keras():
    assert cifar10._ORIGIN == "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    assert cifar10._FILE_HASH == ("6d958be074577803d12ecdefd02955f3"
                                  "9262c83c16fe9348329d7fe0b5c001ce")

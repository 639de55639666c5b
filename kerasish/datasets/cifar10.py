"""CIFAR-10 small images dataset, as `keras.datasets.cifar10`."""
import os

import numpy as np

from kerasish.backend import config
from kerasish.datasets import _download
from kerasish.utils.file_utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
_FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
_CACHE_NAME = "cifar-10-batches-py-target"
_INNER_FOLDER = "cifar-10-batches-py"
_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))


def load_data():
    """Loads the CIFAR-10 dataset.

    50,000 32x32 color training images and 10,000 test images in 10 classes:
    0 airplane, 1 automobile, 2 bird, 3 cat, 4 deer, 5 dog, 6 frog, 7 horse,
    8 ship, 9 truck. The archive is downloaded once and extracted into
    `~/.keras/datasets/cifar-10-batches-py-target/` (the same cache and hash
    as Keras 3).

    Returns:
        Tuple of numpy arrays `(x_train, y_train), (x_test, y_test)`:
        `x_*` uint8 images of shape `(n, 32, 32, 3)` (or `(n, 3, 32, 32)` when
        `keras.config.image_data_format()` is `"channels_first"`), `y_*` uint8
        labels 0 to 9 of shape `(n, 1)`.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
        >>> x_train.shape, y_train.shape
        ((50000, 32, 32, 3), (50000, 1))
    """
    folder = get_file(fname=_CACHE_NAME, origin=_ORIGIN, extract=True,
                      file_hash=_FILE_HASH)
    folder = os.path.join(folder, _INNER_FOLDER)
    train = [load_batch(os.path.join(folder, name)) for name in _TRAIN_BATCHES]
    x_train = np.concatenate([x for x, _ in train])
    y_train = np.concatenate([y for _, y in train]).reshape(-1, 1)
    x_test, y_test = load_batch(os.path.join(folder, "test_batch"))
    y_test = y_test.reshape(-1, 1)
    if _image_data_format() == "channels_last":
        x_train = np.ascontiguousarray(x_train.transpose(0, 2, 3, 1))
        x_test = np.ascontiguousarray(x_test.transpose(0, 2, 3, 1))
    return (x_train, y_train), (x_test, y_test)


def load_batch(fpath, label_key="labels"):
    """Reads one pickled CIFAR batch (only numpy data may be unpickled).

    Args:
        fpath: path of the batch file.
        label_key: name of the labels entry (`"labels"`; CIFAR-100 uses
            `"fine_labels"` / `"coarse_labels"`).

    Returns:
        Tuple `(data, labels)`: uint8 images of shape `(n, 3, 32, 32)` and
        uint8 labels of shape `(n,)`.

    Example:
        >>> data, labels = load_batch("cifar-10-batches-py/test_batch")
        >>> data.shape, labels.shape
        ((10000, 3, 32, 32), (10000,))
    """
    batch = _download.load_pickle(fpath)
    if not isinstance(batch, dict) or "data" not in batch or label_key not in batch:
        raise ValueError(
            f"cifar10.load_data: {fpath!r} is not a CIFAR batch (expected a dict "
            f"with 'data' and {label_key!r}).")
    data = np.asarray(batch["data"], dtype="uint8")
    labels = np.asarray(batch[label_key], dtype="uint8")
    return data.reshape(data.shape[0], 3, 32, 32), labels


def _image_data_format():
    return config.image_data_format()

"""CIFAR-100 small images dataset, as `keras.datasets.cifar100`."""
import os

from kerasish.datasets import cifar10
from kerasish.utils.file_utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
_FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"
_CACHE_NAME = "cifar-100-python-target"
_INNER_FOLDER = "cifar-100-python"


def load_data(label_mode="fine"):
    """Loads the CIFAR-100 dataset: 50,000 32x32 colour training images and 10,000 test
    images, labelled over 100 fine classes (or 20 coarse superclasses).

    Downloaded once into `~/.keras/datasets/cifar-100-python-target/` (Keras's
    URL, hash and cache name).

    Args:
        label_mode: "fine" (100 classes) or "coarse" (20 superclasses).

    Returns:
        `(x_train, y_train), (x_test, y_test)`: uint8 images `(n, 32, 32, 3)`
        (`(n, 3, 32, 32)` with channels_first) and int64 labels `(n, 1)` (as Keras).

    Example:
        >>> (x_train, y_train), _ = keras.datasets.cifar100.load_data(label_mode="coarse")
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError('cifar100.load_data: `label_mode` must be one of `"fine"`, '
                         f'`"coarse"`. Received: label_mode={label_mode}.')
    folder = get_file(fname=_CACHE_NAME, origin=_ORIGIN, extract=True, file_hash=_FILE_HASH)
    folder = os.path.join(folder, _INNER_FOLDER)
    key = f"{label_mode}_labels"
    x_train, y_train = cifar10.load_batch(os.path.join(folder, "train"), label_key=key)
    x_test, y_test = cifar10.load_batch(os.path.join(folder, "test"), label_key=key)
    # Keras reshapes the pickled label lists directly: int64 (CIFAR-10 gives uint8).
    y_train = y_train.astype("int64").reshape(-1, 1)
    y_test = y_test.astype("int64").reshape(-1, 1)
    if cifar10._image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)

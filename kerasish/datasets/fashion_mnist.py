"""Fashion-MNIST dataset, as `keras.datasets.fashion_mnist`."""
import gzip
import os

import numpy as np

from kerasish.datasets import _download
from kerasish.utils.file_utils import get_file

_ORIGIN_FOLDER = _download.ORIGIN_FOLDER
_CACHE_SUBDIR = os.path.join("datasets", "fashion-mnist")
_FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)
# SHA-256 of each archive, as Keras 3 checks them.
_FILE_HASHES = {
    "train-labels-idx1-ubyte.gz":
        "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
    "train-images-idx3-ubyte.gz":
        "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
    "t10k-labels-idx1-ubyte.gz":
        "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
    "t10k-images-idx3-ubyte.gz":
        "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
}
_LABELS_MAGIC, _IMAGES_MAGIC = 2049, 2051


def load_data():
    """Loads the Fashion-MNIST dataset.

    60,000 28x28 grayscale training images of 10 fashion categories and
    10,000 test images, a drop-in replacement for MNIST. The four IDX files
    are downloaded once into `~/.keras/datasets/fashion-mnist/` (the same
    cache and hashes as Keras 3). Labels: 0 T-shirt/top, 1 Trouser,
    2 Pullover, 3 Dress, 4 Coat, 5 Sandal, 6 Shirt, 7 Sneaker, 8 Bag,
    9 Ankle boot.

    Returns:
        Tuple of numpy arrays `(x_train, y_train), (x_test, y_test)`:
        `x_*` uint8 images of shape `(n, 28, 28)`, `y_*` uint8 labels 0 to 9
        of shape `(n,)`.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
        >>> x_train.shape, x_test.shape
        ((60000, 28, 28), (10000, 28, 28))

    License:
        The copyright for Fashion-MNIST is held by Zalando SE; it is licensed
        under the MIT license.
    """
    paths = [get_file(fname, origin=_ORIGIN_FOLDER + fname, cache_subdir=_CACHE_SUBDIR,
                      file_hash=_FILE_HASHES[fname]) for fname in _FILES]
    y_train = read_idx(paths[0], _LABELS_MAGIC)
    x_train = read_idx(paths[1], _IMAGES_MAGIC).reshape(len(y_train), 28, 28)
    y_test = read_idx(paths[2], _LABELS_MAGIC)
    x_test = read_idx(paths[3], _IMAGES_MAGIC).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


def read_idx(path, magic):
    """Reads a gzipped IDX file of unsigned bytes (labels or images).

    Args:
        path: path of the `.gz` file.
        magic: the expected magic number: 2049 for labels, 2051 for images.

    Returns:
        A flat uint8 numpy array of the data after the header.

    Example:
        >>> read_idx("t10k-labels-idx1-ubyte.gz", 2049)[:3]
        array([9, 2, 1], dtype=uint8)
    """
    with gzip.open(path, "rb") as f:
        raw = f.read()
    found = int.from_bytes(raw[:4], "big") if len(raw) >= 4 else None
    if found != magic:
        raise ValueError(
            f"fashion_mnist.load_data: {path!r} is not an IDX file of the "
            f"expected kind: magic number {found}, expected {magic}.")
    header = 8 if magic == _LABELS_MAGIC else 16
    return np.frombuffer(raw, np.uint8, offset=header).copy()

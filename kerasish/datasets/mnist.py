"""MNIST handwritten digits dataset, as `keras.datasets.mnist`."""
from kerasish.datasets import _download

_ORIGIN = _download.ORIGIN_FOLDER + "mnist.npz"
_FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
_KEYS = ("x_train", "y_train", "x_test", "y_test")


def load_data(path="mnist.npz"):
    """Loads the MNIST dataset.

    60,000 28x28 grayscale training images of the 10 digits and 10,000 test
    images. By default the file is downloaded once from Keras's origin into
    `~/.keras/datasets/mnist.npz` (the same cache and hash as Keras 3).

    Beyond Keras, `path` may name an existing local `.npz` file with Keras's
    keys (`x_train`, `y_train`, `x_test`, `y_test`), which is read directly,
    e.g. the project's shared subset. Examples locate it through the
    `KERASISH_DATA_DIR` environment variable, which this function never reads
    itself:

        path = os.path.join(os.environ["KERASISH_DATA_DIR"], "mnist_subset.npz")
        (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(path=path)

    Args:
        path: an existing `.npz` file, or the cache name to download to
            (relative to `~/.keras/datasets`).

    Returns:
        Tuple of numpy arrays `(x_train, y_train), (x_test, y_test)`:
        `x_*` uint8 images of shape `(n, 28, 28)` with values 0 to 255, `y_*`
        uint8 digit labels 0 to 9 of shape `(n,)`.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
        >>> x_train.shape, y_train.shape, x_test.shape
        ((60000, 28, 28), (60000,), (10000, 28, 28))

    License:
        Yann LeCun and Corinna Cortes hold the copyright of MNIST, a derivative
        of the NIST datasets, made available under the Creative Commons
        Attribution-Share Alike 3.0 license.
    """
    fpath = _download.resolve_path(path, _ORIGIN, _FILE_HASH, "mnist.load_data")
    arrays = _download.load_npz(fpath)
    _download.require_keys(arrays, _KEYS, fpath, "mnist.load_data",
                           "Keras's mnist.npz layout")
    return ((arrays["x_train"], arrays["y_train"]),
            (arrays["x_test"], arrays["y_test"]))

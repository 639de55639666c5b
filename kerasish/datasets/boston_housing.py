"""Boston housing price regression dataset, as `keras.datasets.boston_housing`."""
from kerasish.datasets import _download, _regression

_ORIGIN = _download.ORIGIN_FOLDER + "boston_housing.npz"
_FILE_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Loads the Boston housing dataset (506 samples, 13 features, price targets).

    Args:
        path: cache name (under `~/.keras/datasets`) or an existing `.npz` file.
        test_split: fraction kept for the test split.
        seed: seed of the shuffle before splitting.

    Returns:
        `(x_train, y_train), (x_test, y_test)` float64 arrays.

    Example:
        >>> (x_train, y_train), (x_test, y_test) = keras.datasets.boston_housing.load_data()
    """
    _regression.check_test_split("boston_housing.load_data", test_split)
    x, y = _regression.load_xy(path, _ORIGIN, _FILE_HASH, "boston_housing.load_data")
    return _regression.shuffle_and_split(x, y, test_split, seed)

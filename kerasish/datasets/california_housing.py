"""California housing price regression dataset, as `keras.datasets.california_housing`."""
from kerasish.datasets import _download, _regression

_ORIGIN = _download.ORIGIN_FOLDER + "california_housing.npz"
_FILE_HASH = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """Loads the California housing dataset (20,640 samples, 8 features).

    Args:
        version: "large" (all samples) or "small" (the first 600, as Keras).
        path: cache name (under `~/.keras/datasets`) or an existing `.npz` file.
        test_split: fraction kept for the test split.
        seed: seed of the shuffle before splitting.

    Returns:
        `(x_train, y_train), (x_test, y_test)` float arrays.

    Example:
        >>> (x_train, y_train), _ = keras.datasets.california_housing.load_data("small")
    """
    _regression.check_test_split("california_housing.load_data", test_split)
    if version not in ("small", "large"):
        raise ValueError("california_housing.load_data: argument `version` must be one of "
                         f"'small', 'large'. Received: version={version}")
    x, y = _regression.load_xy(path, _ORIGIN, _FILE_HASH, "california_housing.load_data")
    if version == "small":
        x, y = x[:600], y[:600]
    return _regression.shuffle_and_split(x, y, test_split, seed)

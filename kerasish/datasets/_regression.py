"""The shuffle-and-split shared by boston_housing and california_housing (Keras's order)."""
import numpy as np

from kerasish.datasets import _download


def load_xy(path, origin, file_hash, loader):
    fpath = _download.resolve_path(path, origin, file_hash, loader)
    with np.load(fpath, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    _download.require_keys(arrays, ("x", "y"), fpath, loader, "Keras's layout")
    return arrays["x"], arrays["y"]


def check_test_split(loader, test_split):
    if not 0 <= test_split < 1:
        raise ValueError(f"{loader}: invalid `test_split` argument: {test_split}. It must be "
                         "between 0 and 1 (exclusive of 1).")


def shuffle_and_split(x, y, test_split, seed):
    """`np.random.RandomState(seed)` shuffles the rows; the first
    `int(n * (1 - test_split))` are the training split."""
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
